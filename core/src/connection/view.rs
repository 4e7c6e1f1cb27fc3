//! [`protocol_view!`]: what makes a protocol's client a view of one connection ([`Client`]):
//! `new`, `from_connection` (borrowed, no clone), `connection`, `into_connection`, `From`
//! both ways and `Deref` to the connection. `CodexClient` and `McpClient` are each a
//! `#[repr(transparent)]` struct holding a `conn: Client` and nothing else.
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

        impl std::ops::Deref for $ty {
            type Target = crate::connection::Client;
            fn deref(&self) -> &crate::connection::Client {
                &self.conn
            }
        }
    };
}
pub(crate) use protocol_view;
