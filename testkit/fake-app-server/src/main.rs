//! `fake-app-server`: a tiny, synchronous FAKE of `codex app-server`.
//!
//! It speaks the same stdio protocol as the real server (newline-delimited
//! JSON objects on stdin/stdout, no `"jsonrpc"` field) and exists only to
//! inject faults the real server cannot be made to produce on demand.
//!
//! # Default behaviour (always on)
//! - `initialize` → `{"userAgent":"fake/<newest window version>","codexHome":"/fake",...}`;
//!   any other request before it → error `-32600 "Not initialized"`, a
//!   second one → `-32600 "Already initialized"`; any request after it but before the
//!   client's `initialized` notification (MCP modes: `notifications/initialized`) →
//!   `-32600 "Not initialized: no `initialized` notification before <method>"`. Notifications whose method
//!   is in `capabilities.optOutNotificationMethods` are never sent.
//! - `thread/start` → `{"thread":{"id":"thr_fake_1","status":{"type":"idle"}}}`
//!   plus a `thread/started` notification.
//! - `test/lastAnswers` → `{"answers":[...]}`: every client answer to a
//!   server-to-client request so far, in order, as raw JSON objects.
//! - `account/rateLimits/read` → a ChatGPT account's rate limits (`GetAccountRateLimitsResponse`:
//!   `rateLimits.primary.usedPercent` 42, account `acc_fake_1`).
//! - `feedback/upload` → `{"threadId":…}` when the params pass the vendored schema's
//!   `FeedbackUploadParams` (required members, known members only, their JSON types), else
//!   `-32602 "Invalid params: …"` naming what is wrong.
//! - `test/refreshTokens` → sends the server request `account/chatgptAuthTokens/refresh`
//!   `{"reason":"unauthorized","previousAccountId":"acc_fake_1"}` and, once the client answers,
//!   answers with `{"usingAccountId","accessTokenLen","planType"}` taken from that answer
//!   (checked against `ChatgptAuthTokensRefreshResponse`; an error answer or a bad one fails it).
//! - Any other request → echo: `{"method":<method>,"params":<params>}`.
//! - Malformed input lines are reported on stderr and skipped.
//! - stdin EOF → exit 0.
//!
//! # Modes (`--mode NAME`, repeatable; or `FAKE_MODE=a,b,c`; `all` = every mode but `ignore-eof`)
//! - `hang`: never answer `test/hang` (writes `fake-app-server: hanging on
//!   test/hang` to stderr when it receives one).
//! - `slow`: answer `test/slow` `{"ms":N}` after N ms, on another thread.
//! - `die`: on `test/die`, write `fatal: fake server dying on purpose` (and
//!   two more lines) to stderr and exit with code 3 without answering.
//! - `overload`: `test/overload` `{"failures":K}` fails the first K attempts
//!   with `-32001 "Server overloaded; retry later."`, then answers
//!   `{"attempts":<total attempts>}`.
//! - `garbage`: `test/garbage` first writes `this is not json {{{`, then
//!   `[1,2,3]`, then answers `{"ok":true}`.
//! - `bigline`: `test/bigline` `{"bytes":N}` sends a `test/big` notification
//!   with `{"data":"xxx…"}` (N `x`s), then answers `{"len":N}`.
//! - `unknown`: `test/unknown` sends notification `brand/newThing`, server
//!   request `brand/newRequest` `{"x":1}`, then answers `{}`.
//! - `approval`: `test/approval` `{"method":M}` sends server request M with
//!   command-approval params, then answers `{}`; `test/resolve` `{"requestId":N}` sends
//!   `serverRequest/resolved` for server request N (the server withdrew it), then answers
//!   `{}`.
//! - `flood`: `test/flood` `{"count":N,"method":M}` writes N notifications M
//!   as fast as possible (blocking when the client stops reading), then
//!   answers `{"sent":N}`.
//! - `exit-on-eof`: accepted for clarity; exiting 0 on stdin EOF is the
//!   default anyway.
//! - `ignore-eof`: on stdin EOF, write `fake-app-server: ignoring stdin EOF`
//!   to stderr and keep running (until killed), like a server that does not
//!   notice its client went away.
//! - `close-stdout`: `test/close` closes stdout but keeps reading stdin
//!   until EOF.
//! - `no-init`: never answer `initialize` (not part of `all`).
//! - `turns`: `thread/start` answers ids unique across processes (`thr_<pid>_<n>`);
//!   `turn/start` answers a turn, then streams `turn/started`, `deltas=N` agent-message deltas
//!   (default 3) spelling `echo: <input text>`, the completed message and `turn/completed`,
//!   after `sleep=MS` (words of the input text). Not in `all`.
//! - `overload-start`: every `thread/start` is answered `-32001`; `test/attempts`
//!   `{"method"}` says how many requests of a method came. Not in `all`.
//! - `rate-limits`: `test/rateLimitsUpdated` sends the notification
//!   `account/rateLimits/updated` (a full `RateLimitSnapshot`: limit `codex` "Codex", plan
//!   `pro`, primary 87 % of 300 min, secondary 12 % of 10080 min, credits balance "12.50"),
//!   then answers `{}`.
//! - `permissions`: `test/requestPermissions` sends the server request
//!   `item/permissions/requestApproval` (thread `thr_fake_1`, item `item_perm_1`, cwd
//!   `/tmp/proj`, write access to `/tmp/proj/out`, network) and, once the client answers,
//!   answers `{"granted": <the client's result>}` (checked against
//!   `PermissionsRequestApprovalResponse`; an error answer: `-32600 "permissions refused: …"`,
//!   a bad one: `-32602 "bad permissions answer: …"`).
//! - `attestation`: `test/attest` sends the server request `attestation/generate` `{}` and,
//!   once the client answers, answers `{"token": <the client's token>}` (checked against
//!   `AttestationGenerateResponse`; errors as for `permissions`, named `attestation`).
//! - `orphan`: `test/orphanDie` starts `sleep 30` (inheriting stdout and
//!   stderr, its pid on stderr as `orphan pid N`) and exits with code 4
//!   without answering.
//! - `stray`: `test/stray` answers twice, then sends responses with the ids
//!   987654321 and "nobody".
//! - `mcp`: speak MCP's handshake (`initialize` answers `protocolVersion`,
//!   `capabilities`, `serverInfo`); every `notifications/cancelled` the client sends is
//!   echoed back as a `test/sawCancelled` notification; `test/ping` sends the client a
//!   `ping` request; `test/elicitThenCancel` sends `elicitation/create` and at once
//!   `notifications/cancelled` for it. `mcp-future`: the same, answering protocol version
//!   2099-01-01. Neither is in `all`.
//!
//! Client answers to server requests are printed to stderr as
//! `client answered <method>: <json>`.
//!
//! Flag `--stderr-lines N` writes `fake stderr line i` (i = 0..N) to stderr
//! at start-up.

mod schema;
mod server;

use std::process::ExitCode;

use server::{Mode, Server};

const USAGE: &str = "usage: fake-app-server [--mode NAME]... [--stderr-lines N]\n\
modes: hang slow die overload garbage bigline unknown approval flood exit-on-eof ignore-eof turns overload-start
\
       rate-limits permissions attestation
\
       close-stdout no-init orphan stray mcp mcp-future all
\
(env FAKE_MODE=comma,separated,modes also works)";

/// Parsed command-line / environment configuration.
struct Config {
    /// Enabled fault-injection modes.
    modes: Vec<Mode>,
    /// Number of `fake stderr line i` lines to print at start-up.
    stderr_lines: u64,
}

/// Adds the modes named in a comma-separated list to `modes`.
fn add_modes(modes: &mut Vec<Mode>, list: &str) -> Result<(), String> {
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if name == "all" {
            modes.extend_from_slice(Mode::ALL);
        } else {
            modes.push(Mode::parse(name).ok_or_else(|| format!("unknown mode `{name}`"))?);
        }
    }
    Ok(())
}

/// Parses the process arguments and `FAKE_MODE`.
fn parse_config() -> Result<Config, String> {
    let mut cfg = Config {
        modes: Vec::new(),
        stderr_lines: 0,
    };
    if let Ok(env) = std::env::var("FAKE_MODE") {
        add_modes(&mut cfg.modes, &env)?;
    }
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--mode" => add_modes(&mut cfg.modes, &value("--mode")?)?,
            "--stderr-lines" => {
                let v = value("--stderr-lines")?;
                cfg.stderr_lines = v.parse().map_err(|_| format!("bad --stderr-lines `{v}`"))?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            // Accept the real server's command line (`[-c k=v]... app-server`) so the client
            // can launch this fake exactly as it launches `codex`.
            "app-server" => {}
            "-c" => {
                value("-c")?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(cfg)
}

fn main() -> ExitCode {
    let cfg = match parse_config() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("fake-app-server: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    for i in 0..cfg.stderr_lines {
        eprintln!("fake stderr line {i}");
    }
    let ignore_eof = cfg.modes.contains(&Mode::IgnoreEof);
    let stdin = std::io::stdin().lock();
    Server::new(cfg.modes).run(stdin);
    if ignore_eof {
        eprintln!("fake-app-server: ignoring stdin EOF");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    ExitCode::SUCCESS
}
