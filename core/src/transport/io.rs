//! The message pipe under a connection: newline-framed byte streams (stdio, in-process
//! shims), WebSocket text frames (TCP or unix socket) or channels to a transport task (MCP
//! Streamable HTTP). The engine reads and writes whole JSON messages through it and does not
//! care which one it is.

use bytes::Bytes;
#[cfg(feature = "ws")]
use futures_util::{SinkExt, StreamExt};
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, AsyncWriteExt, BufWriter, ReadBuf};
use tokio::sync::mpsc;
#[cfg(feature = "ws")]
use tokio_tungstenite::tungstenite::Message;
#[cfg(feature = "ws")]
use tokio_tungstenite::WebSocketStream;

use super::lines::{read_line, LineRead};

/// Any bidirectional byte stream a WebSocket can run over.
#[cfg_attr(not(any(feature = "ws", feature = "tls")), allow(dead_code))]
pub(crate) trait ByteStream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> ByteStream for T {}

/// A WebSocket over a boxed byte stream.
#[cfg(feature = "ws")]
pub(crate) type Ws = WebSocketStream<Pin<Box<dyn ByteStream>>>;

/// What a channel-backed transport task hands the reader.
#[derive(Debug)]
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))] // only the HTTP transport
pub(crate) enum Inbound {
    /// One whole message (JSON, no trailing newline needed).
    Message(Bytes),
    /// A message longer than the cap was skipped; its length in bytes.
    TooLong(usize),
    /// The connection failed; why (the reader returns it as an error).
    Failed(String),
    /// The server ended the connection in order (the reader returns end of stream).
    Closed,
}

/// The read half.
pub(crate) enum MessageReader {
    Lines(ElasticReader<Pin<Box<dyn AsyncRead + Send>>>),
    /// With the heartbeat's bound: no frame at all for that long means a dead peer.
    #[cfg(feature = "ws")]
    Ws(
        futures_util::stream::SplitStream<Ws>,
        Option<std::time::Duration>,
    ),
    /// Messages a transport task delivers (end of stream once every sender is gone).
    #[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
    Channel(mpsc::Receiver<Inbound>),
}

/// The write half.
pub(crate) enum MessageWriter {
    Lines(BufWriter<Pin<Box<dyn AsyncWrite + Send>>>),
    #[cfg(feature = "ws")]
    Ws(futures_util::stream::SplitSink<Ws, Message>),
    /// Messages for a transport task, one JSON message each without the newline; `None`
    /// once closed (the task sees the channel end).
    #[cfg_attr(not(feature = "mcp-http"), allow(dead_code))]
    Channel(Option<mpsc::Sender<Bytes>>),
}

/// Channel-backed halves for a transport task with room for `depth` messages each way: the
/// engine's halves, then the task's ends (what the engine writes, where to deliver).
#[cfg_attr(not(feature = "mcp-http"), allow(dead_code))] // only the HTTP transport
pub(crate) fn channel_halves(
    depth: usize,
) -> (
    MessageReader,
    MessageWriter,
    mpsc::Receiver<Bytes>,
    mpsc::Sender<Inbound>,
) {
    let (out_tx, out_rx) = mpsc::channel(depth);
    let (in_tx, in_rx) = mpsc::channel(depth);
    (
        MessageReader::Channel(in_rx),
        MessageWriter::Channel(Some(out_tx)),
        out_rx,
        in_tx,
    )
}

/// Split a WebSocket into the two halves; with a `heartbeat` the writer pings every
/// `interval` and the reader fails when no frame came for `interval + timeout`.
#[cfg(feature = "ws")]
pub(crate) fn ws_halves(
    ws: Ws,
    heartbeat: Option<crate::options::Heartbeat>,
) -> (MessageReader, MessageWriter) {
    let (sink, stream) = ws.split();
    (
        MessageReader::Ws(stream, heartbeat.map(|h| h.interval + h.timeout)),
        MessageWriter::Ws(sink),
    )
}

/// Newline-framed halves over a reader and a writer.
pub(crate) fn line_halves(
    read: impl AsyncRead + Send + 'static,
    write: impl AsyncWrite + Send + 'static,
) -> (MessageReader, MessageWriter) {
    (
        MessageReader::Lines(ElasticReader::new(
            Box::pin(read) as Pin<Box<dyn AsyncRead + Send>>
        )),
        MessageWriter::Lines(BufWriter::with_capacity(WRITE_BUF, Box::pin(write))),
    )
}

/// Write buffer of a newline-framed stream: bursts of requests are written in chunks of this
/// size, a longer message goes out directly (an idle connection keeps no more than this).
const WRITE_BUF: usize = 8 * 1024;
/// Read buffer of a newline-framed stream: its size while the server is quiet...
pub(crate) const READ_BUF_MIN: usize = 16 * 1024;
/// ...and at most, during a burst (it doubles each time a read fills it).
pub(crate) const READ_BUF_MAX: usize = 256 * 1024;

/// A buffered reader whose buffer starts at [`READ_BUF_MIN`], doubles (up to
/// [`READ_BUF_MAX`]) while reads fill it (a burst), and goes back to [`READ_BUF_MIN`] once
/// everything buffered is consumed and the next read has to wait (the burst is over). Line
/// length limits are the line reader's business (it reads lines in pieces of any size).
pub(crate) struct ElasticReader<R> {
    inner: R,
    /// The buffered bytes are `buf[pos..]`; the capacity is the next read's size.
    buf: Vec<u8>,
    pos: usize,
    /// The last read filled the buffer: the next one gets twice the room.
    grow: bool,
}

impl<R> ElasticReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        ElasticReader {
            inner,
            buf: Vec::with_capacity(READ_BUF_MIN),
            pos: 0,
            grow: false,
        }
    }

    /// The buffer's size now (for tests).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for ElasticReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(out.remaining());
        out.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead + Unpin> AsyncBufRead for ElasticReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        let me = self.get_mut();
        if me.pos >= me.buf.len() {
            me.buf.clear();
            me.pos = 0;
            if std::mem::take(&mut me.grow) {
                let size = (me.buf.capacity() * 2).min(READ_BUF_MAX);
                me.buf = Vec::with_capacity(size);
            }
            let mut rb = ReadBuf::uninit(me.buf.spare_capacity_mut());
            match Pin::new(&mut me.inner).poll_read(cx, &mut rb) {
                Poll::Pending => {
                    // Caught up with the server: a burst's large buffer is given back.
                    if me.buf.capacity() > READ_BUF_MIN {
                        me.buf = Vec::with_capacity(READ_BUF_MIN);
                    }
                    return Poll::Pending;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {}
            }
            let n = rb.filled().len();
            me.grow = n == me.buf.capacity() && n < READ_BUF_MAX;
            // SAFETY: `poll_read` initialised the first `n` bytes of the spare capacity
            // (`ReadBuf::filled`).
            unsafe { me.buf.set_len(n) };
        }
        Poll::Ready(Ok(&me.buf[me.pos..]))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        self.pos = (self.pos + amt).min(self.buf.len());
    }
}

impl MessageReader {
    /// Read the next message into `buf` (cleared first).
    pub(crate) async fn read(
        &mut self,
        buf: &mut Vec<u8>,
        cap: usize,
    ) -> std::io::Result<LineRead> {
        match self {
            MessageReader::Lines(r) => read_line(r, buf, cap).await,
            #[cfg(feature = "ws")]
            MessageReader::Ws(ws, idle) => loop {
                buf.clear();
                let next = match idle {
                    None => ws.next().await,
                    Some(bound) => match tokio::time::timeout(*bound, ws.next()).await {
                        Ok(next) => next,
                        Err(_) => {
                            return Err(std::io::Error::new(
                                std::io::ErrorKind::TimedOut,
                                format!(
                                    "heartbeat missed: nothing from the server for {bound:?} (pings unanswered)"
                                ),
                            ))
                        }
                    },
                };
                match next {
                    None => return Ok(LineRead::Eof),
                    Some(Err(e)) => return Err(std::io::Error::other(e)),
                    Some(Ok(Message::Text(t))) => {
                        if t.len() > cap {
                            return Ok(LineRead::TooLong(t.len()));
                        }
                        buf.extend_from_slice(t.as_bytes());
                        return Ok(LineRead::Line);
                    }
                    Some(Ok(Message::Binary(b))) => {
                        if b.len() > cap {
                            return Ok(LineRead::TooLong(b.len()));
                        }
                        buf.extend_from_slice(&b);
                        return Ok(LineRead::Line);
                    }
                    Some(Ok(Message::Close(_))) => return Ok(LineRead::Eof),
                    // Pings are answered by the library as it reads.
                    Some(Ok(_)) => continue,
                }
            },
            MessageReader::Channel(rx) => {
                buf.clear();
                match rx.recv().await {
                    None | Some(Inbound::Closed) => Ok(LineRead::Eof),
                    Some(Inbound::Failed(why)) => Err(std::io::Error::other(why)),
                    Some(Inbound::TooLong(n)) => Ok(LineRead::TooLong(n)),
                    Some(Inbound::Message(m)) if m.len() > cap => Ok(LineRead::TooLong(m.len())),
                    Some(Inbound::Message(m)) => {
                        buf.extend_from_slice(&m);
                        Ok(LineRead::Line)
                    }
                }
            }
        }
    }
}

impl MessageWriter {
    /// Queue one message (a JSON line ending in `\n`).
    pub(crate) async fn write(&mut self, line: Bytes) -> std::io::Result<()> {
        match self {
            MessageWriter::Lines(w) => w.write_all(&line).await,
            #[cfg(feature = "ws")]
            MessageWriter::Ws(sink) => {
                let body = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = std::str::from_utf8(body)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?
                    .to_owned();
                sink.feed(Message::text(text))
                    .await
                    .map_err(std::io::Error::other)
            }
            MessageWriter::Channel(tx) => {
                let body = match line.strip_suffix(b"\n") {
                    Some(b) => line.slice(..b.len()),
                    None => line,
                };
                let gone = || {
                    std::io::Error::new(
                        std::io::ErrorKind::BrokenPipe,
                        "the transport task has ended",
                    )
                };
                tx.as_ref()
                    .ok_or_else(gone)?
                    .send(body)
                    .await
                    .map_err(|_| gone())
            }
        }
    }

    /// Whether this is a WebSocket (it can be pinged).
    pub(crate) fn is_ws(&self) -> bool {
        #[cfg(feature = "ws")]
        return matches!(self, MessageWriter::Ws(_));
        #[cfg(not(feature = "ws"))]
        false
    }

    /// Send a WebSocket ping (the heartbeat); nothing for other transports.
    pub(crate) async fn ping(&mut self) -> std::io::Result<()> {
        match self {
            #[cfg(feature = "ws")]
            MessageWriter::Ws(sink) => sink
                .send(Message::Ping(Bytes::from_static(b"codex-client")))
                .await
                .map_err(std::io::Error::other),
            _ => Ok(()),
        }
    }

    /// Push out everything queued.
    pub(crate) async fn flush(&mut self) -> std::io::Result<()> {
        match self {
            MessageWriter::Lines(w) => w.flush().await,
            #[cfg(feature = "ws")]
            MessageWriter::Ws(sink) => sink.flush().await.map_err(std::io::Error::other),
            // Each message went to the task as a whole.
            MessageWriter::Channel(_) => Ok(()),
        }
    }

    /// Close the write side (EOF on stdin, a Close frame on a WebSocket, the end of the
    /// channel for a transport task).
    pub(crate) async fn close(&mut self) {
        match self {
            MessageWriter::Lines(w) => {
                let _ = w.shutdown().await;
            }
            #[cfg(feature = "ws")]
            MessageWriter::Ws(sink) => {
                let _ = sink.close().await;
            }
            MessageWriter::Channel(tx) => {
                tx.take();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::lines::read_line;
    use tokio::io::AsyncWriteExt;

    /// Whether filling the buffer would wait now (nothing buffered, nothing to read).
    async fn would_wait<R: AsyncRead + Unpin>(r: &mut ElasticReader<R>) -> bool {
        std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *r).poll_fill_buf(cx).is_pending()))
            .await
    }

    #[test]
    fn read_buffer_grows_in_a_burst_and_shrinks_once_caught_up() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (mut w, r) = tokio::io::duplex(4 * 1024 * 1024);
            let mut reader = ElasticReader::new(r);
            assert_eq!(reader.capacity(), READ_BUF_MIN);
            // A burst: 2 MB of 100-byte lines, and one line longer than the cap.
            let line = [b'x'; 99];
            for _ in 0..20_000 {
                w.write_all(&line).await.unwrap();
                w.write_all(b"\n").await.unwrap();
            }
            w.write_all(&[b'y'; 300 * 1024]).await.unwrap();
            w.write_all(b"\nlast\n").await.unwrap();
            let mut buf = Vec::new();
            let mut largest = 0;
            for _ in 0..20_000 {
                assert_eq!(
                    read_line(&mut reader, &mut buf, 1024).await.unwrap(),
                    LineRead::Line
                );
                assert_eq!(buf.len(), 99);
                largest = largest.max(reader.capacity());
            }
            assert!(largest > READ_BUF_MIN, "the buffer did not grow in a burst");
            assert!(largest <= READ_BUF_MAX);
            assert_eq!(
                read_line(&mut reader, &mut buf, 1024).await.unwrap(),
                LineRead::TooLong(300 * 1024)
            );
            assert_eq!(
                read_line(&mut reader, &mut buf, 1024).await.unwrap(),
                LineRead::Line
            );
            assert_eq!(buf, b"last");
            // Caught up: the next read waits, and the buffer is back to its small size.
            assert!(would_wait(&mut reader).await);
            assert_eq!(reader.capacity(), READ_BUF_MIN);
            w.write_all(b"after\n").await.unwrap();
            drop(w);
            assert_eq!(
                read_line(&mut reader, &mut buf, 1024).await.unwrap(),
                LineRead::Line
            );
            assert_eq!(buf, b"after");
            assert_eq!(
                read_line(&mut reader, &mut buf, 1024).await.unwrap(),
                LineRead::Eof
            );
        });
    }
}
