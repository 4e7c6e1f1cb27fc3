//! Logging in to Codex: API key, the ChatGPT browser flow and the device-code flow
//! (`account/login/start`, `account/login/completed`, `account/login/cancel`), logout, the
//! account and its rate limits. The app-server does the work; these helpers send the right
//! requests and follow the completion notification.
//!
//! ```no_run
//! # fn main() -> codex_client::Result<()> {
//! use std::time::Duration;
//! let client = codex_client::CodexClient::new(codex_client::ClientOptions::default());
//! client.connect()?;
//! let login = client.login_chatgpt_blocking()?;
//! println!("open {} in a browser", login.auth_url().unwrap_or_default());
//! let outcome = login.wait_blocking(Duration::from_secs(300))?;
//! assert!(outcome.success, "{:?}", outcome.error);
//! # Ok(()) }
//! ```

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{oneshot, watch};

use crate::codex::CodexClient;
use crate::connection::Client;
use crate::delivery::block_on_within;
use crate::error::{Error, Result};
use crate::event::Event;
use crate::protocol::{methods, ClientMethod};

/// The notification that ends a login.
const COMPLETED: &str = "account/login/completed";

/// How a login ended (`account/login/completed`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoginOutcome {
    /// Whether the login succeeded.
    pub success: bool,
    /// Why it failed (the server's words), when it did.
    pub error: Option<String>,
}

/// A ChatGPT login in progress (browser or device-code flow): what to show the user, and
/// its outcome once the server reports it. Dropping it stops watching (the server's login
/// goes on until it completes, times out or is cancelled with [`cancel`](Self::cancel)).
pub struct Login {
    client: Client,
    start: Value,
    outcome: watch::Receiver<Option<LoginOutcome>>,
    _stop: oneshot::Sender<()>,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("login_id", &self.login_id())
            .field("auth_url", &self.auth_url().map(|_| "<url>"))
            .field("user_code", &self.user_code().map(|_| "<code>"))
            .finish()
    }
}

impl Login {
    /// The login's id (`loginId`).
    pub fn login_id(&self) -> Option<&str> {
        self.start["loginId"].as_str()
    }
    /// Browser flow: the URL the user opens to log in.
    pub fn auth_url(&self) -> Option<&str> {
        self.start["authUrl"].as_str()
    }
    /// Device-code flow: the page where the user enters [`user_code`](Self::user_code).
    pub fn verification_url(&self) -> Option<&str> {
        self.start["verificationUrl"].as_str()
    }
    /// Device-code flow: the code the user enters.
    pub fn user_code(&self) -> Option<&str> {
        self.start["userCode"].as_str()
    }
    /// The whole `account/login/start` result.
    pub fn start_result(&self) -> &Value {
        &self.start
    }

    /// The outcome, if the server reported it already.
    pub fn outcome(&self) -> Option<LoginOutcome> {
        self.outcome.borrow().clone()
    }

    /// Wait for the outcome. Fails with [`Error::Disconnected`] when the connection ends
    /// first. Bound it with a timeout of your own (or use [`wait_blocking`](Self::wait_blocking)).
    pub async fn wait(&self) -> Result<LoginOutcome> {
        let mut rx = self.outcome.clone();
        let got = rx.wait_for(Option::is_some).await.map(|v| v.clone());
        match got {
            Ok(v) => Ok(v.expect("is_some")),
            Err(_) => Err(Error::Disconnected(crate::error::DisconnectInfo {
                reason: "the connection ended before the login completed".into(),
                stderr_tail: String::new(),
            })),
        }
    }

    /// Block until the outcome, at most `timeout` ([`Error::Timeout`] past it; the login goes
    /// on: wait again or [`cancel`](Self::cancel) it).
    pub fn wait_blocking(&self, timeout: Duration) -> Result<LoginOutcome> {
        // A wait for the user, not a reply: no spin.
        block_on_within(self.wait(), timeout, COMPLETED)?
    }

    /// [`wait`](Self::wait), at most `timeout` when given ([`Error::Timeout`] past it; the
    /// login goes on: wait again or [`cancel`](Self::cancel) it). The timer runs on the
    /// library's runtime: this works on any executor.
    pub async fn wait_within(&self, timeout: Option<Duration>) -> Result<LoginOutcome> {
        let Some(t) = timeout else {
            return self.wait().await;
        };
        crate::rt::within(self.wait(), t).await?.unwrap_or_else(|| {
            Err(Error::Timeout {
                method: COMPLETED.to_owned(),
                after: t,
            })
        })
    }

    /// Cancel the login (`account/login/cancel`); its outcome then arrives as a failure.
    pub async fn cancel(&self) -> Result<()> {
        let id = self
            .login_id()
            .ok_or_else(|| Error::InvalidState("this login has no id to cancel".into()))?;
        self.client
            .request(methods::AccountLoginCancel::NAME, json!({ "loginId": id }))
            .await
            .map(drop)
    }

    /// Blocking form of [`cancel`](Self::cancel) (bounded by the request timeout).
    pub fn cancel_blocking(&self) -> Result<()> {
        self.client.block_on(self.cancel())
    }
}

impl CodexClient {
    /// Log in with an OpenAI API key (`account/login/start` `{"type": "apiKey"}`). The key
    /// is stored by the server in its `CODEX_HOME`; it is never logged by this library.
    pub async fn login_api_key(&self, api_key: &str) -> Result<()> {
        if api_key.trim().is_empty() {
            return Err(Error::InvalidArgument("the API key is empty".into()));
        }
        let params = json!({"type": "apiKey", "apiKey": api_key});
        self.request(methods::AccountLoginStart::NAME, params)
            .await
            .map(drop)
    }

    /// Blocking form of [`login_api_key`](Self::login_api_key).
    pub fn login_api_key_blocking(&self, api_key: &str) -> Result<()> {
        self.connection().block_on(self.login_api_key(api_key))
    }

    /// Start the ChatGPT browser login: the server listens on a loopback port for the
    /// browser's redirect; show the user [`Login::auth_url`] and [`Login::wait`] for the
    /// outcome.
    pub async fn login_chatgpt(&self) -> Result<Login> {
        self.start_login(json!({"type": "chatgpt"})).await
    }

    /// Blocking form of [`login_chatgpt`](Self::login_chatgpt).
    pub fn login_chatgpt_blocking(&self) -> Result<Login> {
        let timeout = self.options().default_timeout;
        block_on_within(
            self.login_chatgpt(),
            timeout,
            methods::AccountLoginStart::NAME,
        )?
    }

    /// Start the ChatGPT device-code login (for machines without a browser): show the user
    /// [`Login::user_code`] and [`Login::verification_url`], then [`Login::wait`].
    pub async fn login_device_code(&self) -> Result<Login> {
        self.start_login(json!({"type": "chatgptDeviceCode"})).await
    }

    /// Blocking form of [`login_device_code`](Self::login_device_code).
    pub fn login_device_code_blocking(&self) -> Result<Login> {
        let timeout = self.options().default_timeout;
        block_on_within(
            self.login_device_code(),
            timeout,
            methods::AccountLoginStart::NAME,
        )?
    }

    /// Log out (`account/logout`): the server forgets the stored credentials.
    pub async fn logout(&self) -> Result<()> {
        self.request(methods::AccountLogout::NAME, json!({}))
            .await
            .map(drop)
    }

    /// Blocking form of [`logout`](Self::logout).
    pub fn logout_blocking(&self) -> Result<()> {
        self.connection().block_on(self.logout())
    }

    /// The account's rate limits (`account/rateLimits/read`; ChatGPT accounts only: with an
    /// API key the server answers with an error).
    pub async fn rate_limits(&self) -> Result<Value> {
        self.request(methods::AccountRateLimitsRead::NAME, json!({}))
            .await
    }

    /// Blocking form of [`rate_limits`](Self::rate_limits).
    pub fn rate_limits_blocking(&self) -> Result<Value> {
        self.connection().block_on(self.rate_limits())
    }

    /// Send `account/login/start` and follow its `account/login/completed` (the
    /// subscription is made before the request, so the outcome cannot be missed).
    async fn start_login(&self, params: Value) -> Result<Login> {
        let mut events = self.subscribe()?;
        let start = self
            .request(methods::AccountLoginStart::NAME, params)
            .await?;
        let id = start["loginId"].as_str().map(str::to_owned);
        let (tx, rx) = watch::channel(None);
        let (stop, mut stopped) = oneshot::channel::<()>();
        crate::rt::spawn_root(async move {
            loop {
                let ev = tokio::select! {
                    ev = events.next() => ev,
                    _ = &mut stopped => return,
                };
                let Some(ev) = ev else { return };
                let Event::Notification(n) = ev else { continue };
                if n.method != COMPLETED {
                    continue;
                }
                let p = n.params_value();
                if p["loginId"].as_str() != id.as_deref() {
                    continue;
                }
                let _ = tx.send(Some(LoginOutcome {
                    success: p["success"].as_bool().unwrap_or(false),
                    error: p["error"].as_str().map(str::to_owned),
                }));
                return;
            }
        })?;
        Ok(Login {
            client: self.connection().clone(),
            start,
            outcome: rx,
            _stop: stop,
        })
    }
}
