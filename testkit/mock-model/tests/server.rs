//! Tests of the mock server itself, over plain HTTP/1.1 (no Codex needed).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codex_mock_model::{codex_config_toml, MockModel};
use serde_json::{json, Value};

/// A minimal HTTP/1.1 client on one keep-alive connection.
struct Conn {
    reader: BufReader<TcpStream>,
}

struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Conn {
            reader: BufReader::new(s),
        }
    }

    fn request(&mut self, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let body = body.map(Value::to_string).unwrap_or_default();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        self.reader.get_mut().write_all(req.as_bytes()).unwrap();
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status: u16 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').unwrap();
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
        let header = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        if let Some(len) = header("content-length") {
            body.resize(len.parse().unwrap(), 0);
            self.reader.read_exact(&mut body).unwrap();
        } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            loop {
                line.clear();
                self.reader.read_line(&mut line).unwrap();
                let size = usize::from_str_radix(line.trim(), 16).unwrap();
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).unwrap();
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        }
        Resp {
            status,
            headers,
            body: String::from_utf8(body).unwrap(),
        }
    }
}

/// Parses an SSE body into (event, data) pairs.
fn sse(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut event = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = e.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = d.to_string();
                }
            }
            (event, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

fn user(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

fn body(input: Vec<Value>) -> Value {
    json!({"model": "mock-model", "stream": true, "tools": [], "input": input})
}

fn streamed_text(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(e, _)| e == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn text_and_default_replies_on_one_keep_alive_connection() {
    let mock = MockModel::start().unwrap();
    assert_eq!(
        mock.base_url(),
        format!("http://127.0.0.1:{}/v1", mock.port())
    );
    let mut conn = Conn::open(mock.port());

    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_TEXT: hi there")])),
    );
    assert_eq!(r.status, 200);
    assert!(r
        .headers
        .iter()
        .any(|(k, v)| k == "content-type" && v == "text/event-stream"));
    let events = sse(&r.body);
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names.first(), Some(&"response.created"));
    assert_eq!(names.last(), Some(&"response.completed"));
    assert!(
        names
            .iter()
            .filter(|n| **n == "response.output_text.delta")
            .count()
            > 1
    );
    assert_eq!(streamed_text(&events), "hi there");
    let done = events
        .iter()
        .find(|(e, _)| e == "response.output_item.done")
        .unwrap();
    assert_eq!(done.1["item"]["content"][0]["text"], "hi there");
    let usage = &events.last().unwrap().1["response"]["usage"];
    assert!(usage["total_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(usage["input_tokens"].as_u64().unwrap() + usage["output_tokens"].as_u64().unwrap())
    );

    // Same connection, no directive.
    let r = conn.request("POST", "/v1/responses", Some(&body(vec![user("hello")])));
    assert_eq!(streamed_text(&sse(&r.body)), "Hello from the mock model.");

    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0]["input"][0]["content"][0]["text"],
        "MOCK_TEXT: hi there"
    );
    mock.reset();
    assert!(mock.requests().is_empty());
}

#[test]
fn exec_steps_follow_function_call_outputs() {
    let mock = MockModel::start().unwrap();
    let mut conn = Conn::open(mock.port());
    let prompt = user("please run\nMOCK_EXEC: echo hi");
    let r = conn.request("POST", "/v1/responses", Some(&body(vec![prompt.clone()])));
    let events = sse(&r.body);
    let item = &events
        .iter()
        .find(|(e, _)| e == "response.output_item.done")
        .unwrap()
        .1["item"];
    assert_eq!(item["type"], "function_call");
    assert_eq!(item["name"], "exec_command");
    let args: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["cmd"], "echo hi");
    assert_eq!(args["sandbox_permissions"], "require_escalated");
    let call_id = item["call_id"].clone();

    let output = "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n";
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![
            prompt,
            item.clone(),
            json!({"type": "function_call_output", "call_id": call_id, "output": output}),
        ])),
    );
    assert_eq!(streamed_text(&sse(&r.body)), "command output: hi");
}

#[test]
fn plain_exec_patch_and_ask_arguments() {
    let mock = MockModel::start().unwrap();
    let mut conn = Conn::open(mock.port());
    let call = |conn: &mut Conn, text: &str| -> Value {
        let r = conn.request("POST", "/v1/responses", Some(&body(vec![user(text)])));
        let events = sse(&r.body);
        let item = &events
            .iter()
            .find(|(e, _)| e == "response.output_item.done")
            .unwrap()
            .1["item"];
        assert_eq!(item["type"], "function_call");
        let mut args: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
        args["_name"] = item["name"].clone();
        args
    };
    let a = call(&mut conn, "MOCK_EXEC_PLAIN: ls -l");
    assert_eq!(a["cmd"], "ls -l");
    assert!(a.get("sandbox_permissions").is_none());
    let a = call(&mut conn, "MOCK_PATCH: notes.txt first line");
    assert_eq!(
        a["cmd"],
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+first line\n*** End Patch\nEOF\n"
    );
    let a = call(&mut conn, "MOCK_ASK: Which one?");
    assert_eq!(a["_name"], "request_user_input");
    assert_eq!(a["questions"][0]["question"], "Which one?");
}

#[test]
fn fail_and_unknown_paths() {
    let mock = MockModel::start().unwrap();
    let mut conn = Conn::open(mock.port());
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_FAIL")])),
    );
    assert_eq!(r.status, 500);
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_FAIL: 429")])),
    );
    assert_eq!(r.status, 429);
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_FAIL: stream")])),
    );
    assert_eq!(r.status, 200);
    let events = sse(&r.body);
    assert_eq!(events.last().unwrap().0, "response.failed");
    let r = conn.request("GET", "/v1/models", None);
    assert_eq!(r.status, 200);
    let r = conn.request("GET", "/nope", None);
    assert_eq!(r.status, 404);
    assert!(serde_json::from_str::<Value>(&r.body).unwrap()["error"].is_object());
}

#[test]
fn rate_limits_directive_sends_the_rate_limit_headers() {
    let mock = MockModel::start().unwrap();
    let mut conn = Conn::open(mock.port());
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_RATE_LIMITS: 87 12")])),
    );
    assert_eq!(r.status, 200);
    let header = |name: &str| {
        r.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    for (name, value) in [
        ("x-codex-primary-used-percent", "87"),
        ("x-codex-primary-window-minutes", "300"),
        ("x-codex-primary-reset-at", "1900000000"),
        ("x-codex-secondary-used-percent", "12"),
        ("x-codex-secondary-window-minutes", "10080"),
        ("x-codex-secondary-reset-at", "1900500000"),
    ] {
        assert_eq!(header(name), Some(value), "{name} in {:?}", r.headers);
    }
    assert_eq!(
        streamed_text(&sse(&r.body)),
        "rate limits: primary 87%, secondary 12%"
    );
    // Other replies carry no rate-limit header.
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_TEXT: hi")])),
    );
    assert!(
        !r.headers.iter().any(|(k, _)| k.starts_with("x-codex-")),
        "{:?}",
        r.headers
    );
}

#[test]
fn slow_stream_survives_client_disconnect() {
    let mock = MockModel::start().unwrap();
    {
        let mut s = TcpStream::connect(("127.0.0.1", mock.port())).unwrap();
        let b = body(vec![user("MOCK_SLOW: 100 50")]).to_string();
        write!(
            s,
            "POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{b}",
            b.len()
        )
        .unwrap();
        let mut buf = [0u8; 512];
        let n = s.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        // Drop the connection mid-stream.
    }
    std::thread::sleep(Duration::from_millis(200));
    let mut conn = Conn::open(mock.port());
    let started = Instant::now();
    let r = conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_SLOW: 3 20")])),
    );
    assert_eq!(streamed_text(&sse(&r.body)), "tick 0 tick 1 tick 2 ");
    assert!(started.elapsed() >= Duration::from_millis(40));
}

#[test]
fn drop_stops_the_server() {
    let mock = MockModel::start().unwrap();
    let port = mock.port();
    TcpStream::connect(("127.0.0.1", port)).unwrap();
    drop(mock);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[tokio::test]
async fn usable_inside_a_tokio_runtime() {
    let mock = MockModel::start().unwrap();
    let port = mock.port();
    let r = tokio::task::spawn_blocking(move || {
        Conn::open(port).request(
            "POST",
            "/v1/responses",
            Some(&body(vec![user("MOCK_TEXT: ok")])),
        )
    })
    .await
    .unwrap();
    assert_eq!(streamed_text(&sse(&r.body)), "ok");
    drop(mock);
}

#[test]
fn codex_home_config() {
    let mock = MockModel::start().unwrap();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mock-model-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    mock.write_codex_home(&dir.join("nested")).unwrap();
    let text = std::fs::read_to_string(dir.join("nested/config.toml")).unwrap();
    assert_eq!(text, codex_config_toml(mock.port()));
    assert!(text.contains(&format!("base_url = \"{}\"", mock.base_url())));
    assert!(text.contains("wire_api = \"responses\""));
    assert!(text.contains("[features]\nplugins = false"));
    assert!(text.contains("shell_snapshot = false"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binary_prints_port_serves_and_exits_on_stdin_eof() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("mock-model-bin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mock-model"))
        .arg("--codex-home")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("PORT ")
        .expect("PORT line")
        .parse()
        .unwrap();
    assert!(std::fs::read_to_string(dir.join("config.toml"))
        .unwrap()
        .contains(&format!("127.0.0.1:{port}/v1")));

    let mut conn = Conn::open(port);
    conn.request(
        "POST",
        "/v1/responses",
        Some(&body(vec![user("MOCK_TEXT: a")])),
    );
    let r = conn.request("GET", "/_mock/requests", None);
    let reqs: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(reqs.as_array().unwrap().len(), 1);
    let r = conn.request("POST", "/_mock/reset", None);
    assert_eq!(r.status, 200);
    let r = conn.request("GET", "/_mock/requests", None);
    assert_eq!(r.body, "[]");

    drop(child.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("mock-model did not exit after stdin closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "only one line on stdout");
    let _ = std::fs::remove_dir_all(&dir);
}
