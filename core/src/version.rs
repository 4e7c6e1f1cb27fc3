//! The connected server's Codex version against the supported window
//! ([`CODEX_WINDOW`]): where it stands ([`WindowPosition`]),
//! which methods it has ([`ServerVersion::supports`]) and the error for a method it lacks
//! ([`UnsupportedByVersion`]). See `docs/compat.md` ("Version awareness").

use std::fmt;

pub use crate::error::UnsupportedByVersion;
use crate::protocol::{client_method_versions, CODEX_WINDOW};

/// Where a Codex version stands in the supported window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WindowPosition {
    /// Between the window's oldest and newest version (inclusive).
    Inside,
    /// Older than the window's oldest version.
    Older,
    /// Newer than the window's newest version.
    Newer,
    /// The server did not say its version (or said something that is not one).
    Unknown,
}

impl WindowPosition {
    /// `"inside"`, `"older"`, `"newer"` or `"unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowPosition::Inside => "inside",
            WindowPosition::Older => "older",
            WindowPosition::Newer => "newer",
            WindowPosition::Unknown => "unknown",
        }
    }
}

impl fmt::Display for WindowPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which server a [`ServerVersion`] is the version of: the transport decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VersionSource {
    /// The `codex app-server` the client spawned (stdio): the CLI the options name.
    Spawned,
    /// A server reached over `ws://`/`wss://`, perhaps on another machine.
    Remote,
    /// The app-server behind the local control socket (the unix transport):
    /// `codex app-server daemon`'s (or a `codex app-server --listen unix://`). It runs its own
    /// copy of Codex, which can be another version than the installed CLI
    /// ([`ServerVersion::cli_version`]).
    ControlSocket,
}

impl VersionSource {
    /// `"spawned"`, `"remote"` or `"control_socket"`.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionSource::Spawned => "spawned",
            VersionSource::Remote => "remote",
            VersionSource::ControlSocket => "control_socket",
        }
    }
}

/// A Codex version (as an app-server's user agent says it) placed in the window.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerVersion {
    /// The version the server reported (`None`: it reported none): the server's own, from its
    /// `initialize` result (through the control socket: the daemon's, not the installed CLI's).
    pub version: Option<String>,
    /// Where it stands in the window.
    pub position: WindowPosition,
    /// The window version it is exactly (`None`: not one of them, for example an unreleased
    /// or a pre-release build inside the window, or a version outside it).
    pub matches: Option<&'static str>,
    /// Which server it is the version of (`None`: placed by [`ServerVersion::of`], not
    /// learned from a connection).
    pub source: Option<VersionSource>,
    /// Through the control socket ([`VersionSource::ControlSocket`]): the installed CLI's
    /// version (`codex --version` of the binary the options name) next to the server's;
    /// `None` elsewhere, or when it could not be learned (no binary found, no answer in
    /// time). When the two differ the connection warns ([`differs_from_cli`](Self::differs_from_cli)).
    pub cli_version: Option<String>,
}

impl ServerVersion {
    /// Place `version` (`0.171.0`, `0.171.0-alpha.2`, or `None` when unknown) in the window.
    pub fn of(version: Option<&str>) -> ServerVersion {
        let matches = version.and_then(|v| CODEX_WINDOW.iter().copied().find(|w| *w == v));
        let position = match version.and_then(parse) {
            None => WindowPosition::Unknown,
            Some(v) if v < parse(oldest()).expect("window version") => WindowPosition::Older,
            Some(v) if v > parse(newest()).expect("window version") => WindowPosition::Newer,
            Some(_) => WindowPosition::Inside,
        };
        ServerVersion {
            version: version.map(str::to_owned),
            position,
            matches,
            source: None,
            cli_version: None,
        }
    }

    /// Whether the server runs another Codex version than the installed CLI (both known):
    /// a daemon left on an older (or newer) version, say.
    pub fn differs_from_cli(&self) -> bool {
        matches!((&self.version, &self.cli_version), (Some(s), Some(c)) if s != c)
    }

    /// The warning when the server behind the control socket is another version than the
    /// installed CLI (`None` when they agree or one is unknown).
    pub fn cli_mismatch(&self) -> Option<String> {
        if !self.differs_from_cli() {
            return None;
        }
        Some(format!(
            "the app-server behind the control socket is Codex {} but the installed CLI is \
             Codex {}: the daemon runs its own copy (`codex app-server daemon version` shows \
             both; `codex app-server daemon update` updates it, restarting it does not); the \
             library speaks to the server's version",
            self.version.as_deref().unwrap_or_default(),
            self.cli_version.as_deref().unwrap_or_default()
        ))
    }

    /// Whether the version is inside the window.
    pub fn in_window(&self) -> bool {
        self.position == WindowPosition::Inside
    }

    /// Whether the server has client method `method`, by the window's method table: for a
    /// server that is exactly a window version, whether that version has it; for any other
    /// (outside the window, unreleased, unknown), whether some window version has it (a best
    /// guess: such a server is never refused a call). A method of no window version: `false`.
    pub fn supports(&self, method: &str) -> bool {
        match (client_method_versions(method), self.matches) {
            (None, _) => false,
            (Some(versions), Some(v)) => versions.contains(&v),
            (Some(_), None) => true,
        }
    }

    /// The error for calling `method` on this server, when the window's table says its
    /// version (a window version) lacks it; `None` when the call may go (the version has it,
    /// the version is not exactly a window version, or the method is in no table: sent as-is).
    pub fn refusal(&self, method: &str) -> Option<UnsupportedByVersion> {
        let v = self.matches?;
        let versions = client_method_versions(method)?;
        (!versions.contains(&v)).then(|| UnsupportedByVersion {
            method: method.to_owned(),
            server_version: v.to_owned(),
            versions: versions.iter().map(|s| (*s).to_owned()).collect(),
        })
    }
}

impl ServerVersion {
    /// `{"version", "position", "matches", "window", "source", "cli_version"}` (`window`:
    /// every window version; `source`: [`VersionSource::as_str`] or `null`; `cli_version`:
    /// the installed CLI's, through the control socket).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "version": self.version,
            "position": self.position.as_str(),
            "matches": self.matches,
            "window": CODEX_WINDOW,
            "source": self.source.map(VersionSource::as_str),
            "cli_version": self.cli_version,
        })
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let window = format!("the supported window is Codex {}..{}", oldest(), newest());
        match (&self.version, self.position) {
            (None, _) | (Some(_), WindowPosition::Unknown) => write!(
                f,
                "the server did not say its Codex version; {window}: what the library does not \
                 know is kept raw, no call is refused by version"
            ),
            (Some(v), WindowPosition::Inside) => match self.matches {
                Some(_) => write!(f, "the server is Codex {v}, inside the window ({window})"),
                None => write!(
                    f,
                    "the server is Codex {v}, inside the window but none of its versions \
                     ({window}): no call is refused by version"
                ),
            },
            (Some(v), p) => write!(
                f,
                "the server is Codex {v}, {p} than the window ({window}): what the library does \
                 not know is kept raw (typed accessors give Unknown), no call is refused by \
                 version; `codex-client compat` lists the differences"
            ),
        }
    }
}

/// The window's oldest version.
pub fn oldest() -> &'static str {
    CODEX_WINDOW
        .first()
        .copied()
        .expect("the window is not empty")
}

/// The window's newest version.
pub fn newest() -> &'static str {
    CODEX_WINDOW
        .last()
        .copied()
        .expect("the window is not empty")
}

/// The Codex version in an app-server user agent (`codex_cli_rs/0.171.0 (Debian …) …`: the
/// text after the first `/` up to the first space).
pub(crate) fn user_agent_version(user_agent: &str) -> Option<&str> {
    let rest = user_agent.split_once('/')?.1;
    Some(rest.split(' ').next().unwrap_or(rest)).filter(|v| !v.is_empty())
}

/// Place a real app-server's Codex version (from its user agent) in the supported window, and
/// log one warning when it is outside (or unknown): the connection goes on, what the library
/// does not know is kept raw and no call is refused by version. `source` says which server it
/// is; `cli_version` is the installed CLI's (the control socket only): one more warning when
/// the two differ.
pub(crate) fn check_server_version(
    user_agent: Option<&str>,
    source: Option<VersionSource>,
    cli_version: Option<String>,
) -> ServerVersion {
    let mut version = ServerVersion::of(user_agent.and_then(user_agent_version));
    version.source = source;
    version.cli_version = cli_version;
    if let Some(m) = version.cli_mismatch() {
        tracing::warn!(
            server = version.version.as_deref().unwrap_or("unknown"),
            cli = version.cli_version.as_deref().unwrap_or("unknown"),
            "{m}"
        );
    }
    if !version.in_window() {
        tracing::warn!(
            server = version.version.as_deref().unwrap_or("unknown"),
            position = version.position.as_str(),
            window_oldest = oldest(),
            window_newest = newest(),
            "{version}"
        );
    }
    version
}

/// `0.171.0` (or `0.171.0-alpha.2`) as numbers (also the skills' version gate).
pub(crate) fn parse(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.split(['-', '+']).next()?;
    let mut it = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next().unwrap_or(Some(0))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_matches_and_refusals() {
        let sv = |v: Option<&str>| ServerVersion::of(v);
        assert_eq!(sv(Some(oldest())).position, WindowPosition::Inside);
        assert_eq!(sv(Some(oldest())).matches, Some(oldest()));
        assert_eq!(sv(Some(newest())).position, WindowPosition::Inside);
        assert_eq!(sv(Some("0.92.0")).position, WindowPosition::Older);
        assert_eq!(sv(Some("9.0.0")).position, WindowPosition::Newer);
        assert_eq!(sv(Some("0.0.0")).position, WindowPosition::Older);
        assert_eq!(sv(None).position, WindowPosition::Unknown);
        assert_eq!(sv(Some("garbage")).position, WindowPosition::Unknown);
        // A pre-release inside the window is inside, but matches no window version.
        let pre = sv(Some("0.170.0-alpha.1"));
        assert!(pre.in_window());
        assert_eq!(pre.matches, None);

        // thread/search/stream: 0.171.0 only (the table h/gen generates; the stand-in too).
        let search = "thread/search/stream";
        let have = client_method_versions(search).expect("in the table");
        assert!(!have.contains(&oldest()) && have.contains(&newest()));
        let old = sv(Some(oldest()));
        assert!(!old.supports(search));
        let e = old.refusal(search).expect("refused");
        assert_eq!(e.server_version, oldest());
        assert!(e.versions.iter().any(|v| v == newest()));
        assert!(e.to_string().contains(search) && e.to_string().contains(oldest()));
        assert!(sv(Some(newest())).supports(search));
        assert!(sv(Some(newest())).refusal(search).is_none());
        // Every version has thread/start; unknown methods are never refused (sent as-is),
        // and no server outside the window (or of no known version) is refused anything.
        assert!(old.supports("thread/start") && old.refusal("thread/start").is_none());
        assert!(!old.supports("no/such/method") && old.refusal("no/such/method").is_none());
        assert!(sv(Some("0.92.0")).refusal(search).is_none());
        assert!(sv(Some("0.92.0")).supports(search));
        assert!(pre.refusal(search).is_none() && sv(None).refusal(search).is_none());
    }
}
