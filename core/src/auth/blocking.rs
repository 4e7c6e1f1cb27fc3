//! The browser step as a plain blocking function ([`BlockingAuthorizer`]): what a binding's
//! callback is (a C function, a Python callable), run where it may block.

use std::sync::Arc;

use super::config::{Authorize, BoxFuture};
use crate::error::{Error, Result};

/// A blocking browser step.
type Step = Arc<dyn Fn(&str) -> Result<String> + Send + Sync>;

/// The browser step as a blocking function: given the authorization URL, the redirect URL.
/// Each call runs on a blocking thread of the library's runtime (named `codex-client-rt`,
/// started for the call and ended a second after it), never on a thread that serves
/// connections, so the function may block (open a browser and wait for the user, ask
/// another program); the flow waits for it at most
/// [`OAuthConfig::authorize_timeout`](super::OAuthConfig::authorize_timeout) (after that its
/// late answer is dropped). A panic in it fails the authorization.
///
/// ```
/// use codex_client::auth::{BlockingAuthorizer, OAuthConfig};
///
/// let step = BlockingAuthorizer::new(|url: &str| {
///     eprintln!("Open {url} and paste the address you end up at:");
///     let mut line = String::new();
///     std::io::stdin().read_line(&mut line).map_err(|e| {
///         codex_client::Error::InvalidArgument(format!("stdin: {e}"))
///     })?;
///     Ok(line.trim().to_owned())
/// });
/// let config = OAuthConfig::new().authorizer(step);
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct BlockingAuthorizer {
    step: Step,
    redirect_uri: Option<String>,
}

impl BlockingAuthorizer {
    /// The browser step `step`.
    pub fn new(step: impl Fn(&str) -> Result<String> + Send + Sync + 'static) -> Self {
        BlockingAuthorizer {
            step: Arc::new(step),
            redirect_uri: None,
        }
    }

    /// The redirect URI this step receives (used when the configuration names none).
    pub fn with_redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = Some(uri.into());
        self
    }
}

impl std::fmt::Debug for BlockingAuthorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingAuthorizer")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

impl Authorize for BlockingAuthorizer {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'static, Result<String>> {
        let step = self.step.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || step(&authorization_url))
                .await
                .unwrap_or_else(|_| {
                    Err(Error::Transport(
                        "the authorize callback panicked".to_owned(),
                    ))
                })
        })
    }

    fn redirect_uri(&self) -> Option<String> {
        self.redirect_uri.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_off_the_calling_thread_and_reports_a_panic() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let caller = std::thread::current().id();
        let step = BlockingAuthorizer::new(move |url: &str| {
            assert_ne!(std::thread::current().id(), caller, "a blocking thread");
            // Blocking here does not stop the runtime's other tasks.
            std::thread::sleep(std::time::Duration::from_millis(50));
            Ok(format!("{url}#back"))
        })
        .with_redirect_uri("http://127.0.0.1:1/cb");
        assert_eq!(
            step.redirect_uri().as_deref(),
            Some("http://127.0.0.1:1/cb")
        );
        let ticks = rt.block_on(async {
            let ticker = tokio::spawn(async {
                let mut n = 0;
                for _ in 0..5 {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                    n += 1;
                }
                n
            });
            let got = step.authorize("https://as/authorize".into()).await.unwrap();
            assert_eq!(got, "https://as/authorize#back");
            ticker.await.unwrap()
        });
        assert_eq!(ticks, 5);
        let bad = BlockingAuthorizer::new(|_: &str| -> Result<String> { panic!("boom") });
        let err = rt.block_on(bad.authorize("u".into())).unwrap_err();
        assert!(err.to_string().contains("panicked"), "{err}");
    }
}
