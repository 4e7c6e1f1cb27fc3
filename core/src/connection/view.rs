//! [`protocol_view!`]: what makes a protocol's client a view of one connection ([`Client`]):
//! `new`, `from_connection` (borrowed, no clone), `connection`, `into_connection`, `From`
//! both ways, `AsRef<Client>` and the connection's own methods forwarded one by one ([`forward!`]). There is
//! no `Deref` to the connection: a view offers its protocol's calls and the connection's,
//! never the other protocol's (`codex_client.list_tools()` does not compile).
//! `CodexClient` and `McpClient` are each a `#[repr(transparent)]` struct holding a
//! `conn: Client` and nothing else.
//!
//! [`Client`]: super::Client

/// Implements the view methods for `$ty` (a `#[derive(Clone, RefCast)]
/// #[repr(transparent)]` struct with one field `conn: Client`); `$what` names the protocol in
/// the docs ("a Codex client", "an MCP client").
macro_rules! protocol_view {
    ($ty:ident, $what:literal) => {
        impl $ty {
            #[doc = concat!(
                                "A new connection, seen as ", $what,
                                ". Nothing is started until [`connect`](crate::Client::connect)."
                            )]
            pub fn new(options: crate::options::ClientOptions) -> $ty {
                $ty {
                    conn: crate::connection::Client::new(options),
                }
            }

            #[doc = concat!("`conn` seen as ", $what, ", borrowed (no clone).")]
            pub fn from_connection(conn: &crate::connection::Client) -> &$ty {
                <$ty as ref_cast::RefCast>::ref_cast(conn)
            }

            /// The connection this client speaks on.
            pub fn connection(&self) -> &crate::connection::Client {
                &self.conn
            }

            /// The connection, owned.
            pub fn into_connection(self) -> crate::connection::Client {
                self.conn
            }
        }

        impl From<crate::connection::Client> for $ty {
            fn from(conn: crate::connection::Client) -> $ty {
                $ty { conn }
            }
        }

        impl From<$ty> for crate::connection::Client {
            fn from(c: $ty) -> crate::connection::Client {
                c.conn
            }
        }

        impl AsRef<crate::connection::Client> for $ty {
            fn as_ref(&self) -> &crate::connection::Client {
                &self.conn
            }
        }

        impl $ty {
            crate::connection::forward! {
                fn options(&self) -> &crate::options::ClientOptions;
                fn id(&self) -> &str;
                fn label(&self) -> Option<&str>;
                fn connect(&self) -> crate::error::Result<crate::InitializeResult>;
                async fn connect_async(&self) -> crate::error::Result<crate::InitializeResult>;
                fn disconnect(&self);
                fn end_connection(&self) -> bool;
                async fn disconnect_async(&self);
                fn is_connected(&self) -> bool;
                fn is_reconnecting(&self) -> bool;
                fn initialize_result(&self) -> Option<crate::InitializeResult>;
                fn stderr_tail(&self) -> String;
                fn server_pid(&self) -> Option<u32>;
                fn on_notification(&self, f: impl Fn(&crate::event::Notification) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn on_server_request(&self, f: impl Fn(crate::event::ServerRequest) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn on_method_request(&self, method: &str, f: impl Fn(crate::event::ServerRequest) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn on_method_notification(&self, method: &str, f: impl Fn(&crate::event::Notification) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn clear_method_handlers(&self, method: &str);
                fn on_event(&self, f: impl Fn(crate::event::Event) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn on_connection_event(&self, f: impl Fn(&crate::event::ConnectionEvent) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn on_response(&self, f: impl Fn(crate::event::Response) + Send + Sync + 'static) -> crate::error::Result<()>;
                fn clear_handler(&self, slot: crate::HandlerSlot) -> crate::error::Result<()>;
                fn handle_request(&self, req: crate::event::ServerRequest);
                fn dispatch_events(&self) -> crate::error::Result<usize>;
                fn queue_notifications(&self, on: bool);
                fn next_event(&self, timeout: Option<std::time::Duration>) -> crate::error::Result<Option<crate::event::Event>>;
                fn next_events(&self, out: &mut Vec<crate::event::Event>, max: usize, timeout: Option<std::time::Duration>) -> crate::error::Result<bool>;
                fn event_fd(&self) -> crate::error::Result<std::os::fd::RawFd>;
                fn events(&self) -> crate::error::Result<crate::EventReceiver>;
                fn subscribe(&self) -> crate::error::Result<crate::EventReceiver>;
                async fn request_raw(&self, method: &str, params: &serde_json::value::RawValue, opts: crate::options::RequestOptions) -> crate::error::Result<Box<serde_json::value::RawValue>>;
                fn request_raw_blocking(&self, method: &str, params: &serde_json::value::RawValue, opts: crate::options::RequestOptions) -> crate::error::Result<Box<serde_json::value::RawValue>>;
                async fn request(&self, method: &str, params: serde_json::Value) -> crate::error::Result<serde_json::Value>;
                async fn request_with(&self, method: &str, params: serde_json::Value, opts: crate::options::RequestOptions) -> crate::error::Result<serde_json::Value>;
                fn request_blocking(&self, method: &str, params: serde_json::Value) -> crate::error::Result<serde_json::Value>;
                fn request_blocking_with(&self, method: &str, params: serde_json::Value, opts: crate::options::RequestOptions) -> crate::error::Result<serde_json::Value>;
                fn notify(&self, method: &str, params: serde_json::Value) -> crate::error::Result<()>;
                fn send_request(&self, method: &str, params: &serde_json::value::RawValue, opts: crate::options::RequestOptions, token: u64) -> crate::error::Result<()>;
                fn send_request_with(&self, method: &str, params: &serde_json::value::RawValue, opts: crate::options::RequestOptions, attachment: crate::event::Attachment) -> crate::error::Result<u64>;
                fn cancel_request(&self, token: u64) -> bool;
                fn request_by_ref(&self, r: &crate::RequestRef) -> crate::error::Result<crate::event::ServerRequest>;
                fn respond_ref(&self, r: &crate::RequestRef, result: &serde_json::Value) -> crate::error::Result<()>;
                fn respond_ref_json(&self, ref_json: &str, result_json: &str) -> crate::error::Result<()>;
                fn respond_ref_error(&self, r: &crate::RequestRef, error: &crate::RpcError) -> crate::error::Result<()>;
                fn respond_ref_decision(&self, r: &crate::RequestRef, decision: crate::Decision) -> crate::error::Result<()>;
            }
        }
    };
}
pub(crate) use protocol_view;

/// Methods of the connection ([`Client`](super::Client)) offered on a view, one by one, each
/// documented as a forward: `fn name(&self, arg: Type, ...) -> Ret;` or `async fn ...;`.
macro_rules! forward {
    () => {};
    (fn $name:ident(&self $(, $arg:ident : $t:ty)* $(,)?) $(-> $ret:ty)?; $($rest:tt)*) => {
        #[doc = concat!("Forwards to [`Client::", stringify!($name), "`](crate::Client::", stringify!($name), ").")]
        #[inline]
        pub fn $name(&self $(, $arg: $t)*) $(-> $ret)? {
            self.conn.$name($($arg),*)
        }
        crate::connection::forward! { $($rest)* }
    };
    (async fn $name:ident(&self $(, $arg:ident : $t:ty)* $(,)?) $(-> $ret:ty)?; $($rest:tt)*) => {
        #[doc = concat!("Forwards to [`Client::", stringify!($name), "`](crate::Client::", stringify!($name), ").")]
        pub async fn $name(&self $(, $arg: $t)*) $(-> $ret)? {
            self.conn.$name($($arg),*).await
        }
        crate::connection::forward! { $($rest)* }
    };
}
pub(crate) use forward;
