//! The browser step as a blocking function ([`BlockingAuthorizer`]): what a binding's
//! callback is (a C function, a Python callable), run where it may block.

use std::sync::Arc;

use super::config::{Authorize, BoxFuture};
use crate::error::Result;

/// The blocking function of a [`BlockingAuthorizer`].
type AuthorizeFn = Arc<dyn Fn(String) -> Result<String> + Send + Sync>;

/// An [`Authorize`] over a blocking function (given the authorization URL, the redirect
/// URL): each call runs on the library's runtime's blocking pool, never on a thread that
/// serves connections, so it may take as long as the user does (a prompt, a GUI, a foreign
/// runtime's lock). The request that needs the token stays bounded by its own timeout; a call
/// still running when that request is given up finishes unseen.
///
/// ```
/// use codex_client::auth::{BlockingAuthorizer, OAuthConfig};
/// let cfg = OAuthConfig::new().authorizer(BlockingAuthorizer::new(|url: String| {
///     println!("open {url} and paste the address you were sent to:");
///     let mut line = String::new();
///     std::io::stdin().read_line(&mut line).map_err(|e| codex_client::Error::Transport(e.to_string()))?;
///     Ok(line.trim().to_owned())
/// }));
/// # drop(cfg);
/// ```
#[derive(Clone)]
pub struct BlockingAuthorizer {
    f: AuthorizeFn,
    redirect_uri: Option<String>,
}

impl BlockingAuthorizer {
    /// The browser step `f`.
    pub fn new(f: impl Fn(String) -> Result<String> + Send + Sync + 'static) -> Self {
        BlockingAuthorizer {
            f: Arc::new(f),
            redirect_uri: None,
        }
    }

    /// The redirect URI `f` receives (used when the options name none).
    pub fn with_redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = Some(uri.into());
        self
    }
}

impl Authorize for BlockingAuthorizer {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String>> {
        let f = self.f.clone();
        Box::pin(async move { crate::rt::off_runtime(move || f(authorization_url)).await? })
    }

    fn redirect_uri(&self) -> Option<String> {
        self.redirect_uri.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_off_the_runtime_thread() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let caller = std::thread::current().id();
        let a = BlockingAuthorizer::new(move |url| {
            assert_ne!(
                std::thread::current().id(),
                caller,
                "ran on the runtime thread"
            );
            Ok(format!("{url}#done"))
        })
        .with_redirect_uri("http://127.0.0.1:1/cb");
        assert_eq!(a.redirect_uri().as_deref(), Some("http://127.0.0.1:1/cb"));
        let got = rt
            .block_on(a.authorize("https://as/authorize".into()))
            .unwrap();
        assert_eq!(got, "https://as/authorize#done");
        let failing = BlockingAuthorizer::new(|_| Err(crate::Error::Transport("no".into())));
        let err = rt.block_on(failing.authorize("x".into())).unwrap_err();
        assert!(err.to_string().contains("no"), "{err}");
    }
}
