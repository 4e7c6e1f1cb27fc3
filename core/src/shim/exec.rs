//! The exec transport shim (being written; every method answers "unsupported" until then).

use serde_json::Value;
use std::sync::Arc;

use super::{unsupported, Shim, ShimConn, ShimFuture};
use crate::error::Result;
use crate::options::ClientOptions;

/// Shim of the exec transport.
pub(crate) struct ExecShim;

impl ExecShim {
    pub(crate) fn create(
        _opts: &ClientOptions,
        _exec: &crate::options::ExecOptions,
    ) -> Result<Arc<dyn Shim>> {
        Ok(Arc::new(ExecShim))
    }
}

impl Shim for ExecShim {
    fn initialize(self: Arc<Self>, _conn: Arc<ShimConn>, _params: Value) -> ShimFuture {
        Box::pin(async { Err(unsupported("exec", "initialize")) })
    }
    fn handle(self: Arc<Self>, _conn: Arc<ShimConn>, method: String, _params: Value) -> ShimFuture {
        Box::pin(async move { Err(unsupported("exec", &method)) })
    }
    fn shutdown(
        self: Arc<Self>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async {})
    }
}
