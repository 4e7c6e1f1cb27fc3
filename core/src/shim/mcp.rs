//! The mcp transport shim (being written; every method answers "unsupported" until then).

use serde_json::Value;
use std::sync::Arc;

use super::{unsupported, Shim, ShimConn, ShimFuture};
use crate::error::Result;
use crate::options::ClientOptions;

/// Shim of the mcp transport.
pub(crate) struct McpShim;

impl McpShim {
    pub(crate) fn create(_opts: &ClientOptions) -> Result<Arc<dyn Shim>> {
        Ok(Arc::new(McpShim))
    }
}

impl Shim for McpShim {
    fn initialize(self: Arc<Self>, _conn: Arc<ShimConn>, _params: Value) -> ShimFuture {
        Box::pin(async { Err(unsupported("mcp", "initialize")) })
    }
    fn handle(self: Arc<Self>, _conn: Arc<ShimConn>, method: String, _params: Value) -> ShimFuture {
        Box::pin(async move { Err(unsupported("mcp", &method)) })
    }
    fn shutdown(
        self: Arc<Self>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async {})
    }
}
