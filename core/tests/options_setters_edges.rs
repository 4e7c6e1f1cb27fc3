//! The typed Rust setters of `ClientOptions` (its fields are private) at the edge values of every
//! option of the table that has a range: min, max, min-1, max+1, 0 and the default, each taken
//! or refused (`validate`, naming the option) and read back as the table's row says: a value
//! inside the range is taken as is, 0 means what the row's `zero` says ("the default"; "off":
//! taken, reads 0 or the default), anything else is refused. The same edges as the C and C++
//! agreement tests (`tests/c/option_edges.h`). `oauth_authorize_timeout` is not a field of
//! `ClientOptions` (it belongs to the HTTP transport's `OAuthConfig`): the C, C++ and Python
//! tests cover it.
//!
//! Each value is read back through the typed getters (`get_…`). The first run of this test (2026-11-28) found 9 disagreements
//! (0 given to `ReconnectPolicy::new` / `Heartbeat::new` or set on a field was refused or kept
//! as 0); the setters now go through the table, and none is left.

use std::time::Duration;

use codex_client::options::keys_json;
use codex_client::{
    ClientOptions, Heartbeat, ReconnectPolicy, RetryPolicy, SignedBearerToken, WsAuth,
};
use serde_json::Value;

/// Set option `key` to `v` (seconds or a count) through its typed setter; the value then read
/// back through its getter (seconds as f64, counts as f64).
fn typed(key: &str, v: f64) -> Option<(ClientOptions, f64)> {
    let d = || Duration::from_secs_f64(v);
    let n = v as u64;
    let o = ClientOptions::default();
    let rp = RetryPolicy::default();
    let rc = ReconnectPolicy::default();
    let hb = Heartbeat::default();
    let (o, read): (ClientOptions, fn(&ClientOptions) -> f64) = match key {
        "default_timeout" => (o.default_timeout(d()), |o| {
            o.get_default_timeout().as_secs_f64()
        }),
        "connect_timeout" => (o.connect_timeout(d()), |o| {
            o.get_connect_timeout().as_secs_f64()
        }),
        "reply_spin" => (o.reply_spin(d()), |o| o.get_reply_spin().as_secs_f64()),
        "parked_request_timeout" => (o.parked_request_timeout(d()), |o| {
            o.get_parked_request_timeout().as_secs_f64()
        }),
        "retry_max_attempts" => (
            o.retry(RetryPolicy::new(u32::try_from(n).ok()?, rp.base, rp.cap)),
            |o| f64::from(o.get_retry().max_attempts),
        ),
        "retry_base" => (
            o.retry(RetryPolicy::new(rp.max_attempts, d(), rp.cap)),
            |o| o.get_retry().base.as_secs_f64(),
        ),
        "retry_cap" => (
            o.retry(RetryPolicy::new(rp.max_attempts, rp.base, d())),
            |o| o.get_retry().cap.as_secs_f64(),
        ),
        "reconnect_max_attempts" => (
            o.reconnect(Some(ReconnectPolicy::new(
                u32::try_from(n).ok()?,
                rc.base,
                rc.cap,
            ))),
            |o| f64::from(o.get_reconnect().unwrap().max_attempts),
        ),
        "reconnect_base" => (
            o.reconnect(Some(ReconnectPolicy::new(rc.max_attempts, d(), rc.cap))),
            |o| o.get_reconnect().unwrap().base.as_secs_f64(),
        ),
        "reconnect_cap" => (
            o.reconnect(Some(ReconnectPolicy::new(rc.max_attempts, rc.base, d()))),
            |o| o.get_reconnect().unwrap().cap.as_secs_f64(),
        ),
        "heartbeat_interval" => (o.heartbeat(Some(Heartbeat::new(d(), hb.timeout))), |o| {
            o.get_heartbeat().map_or(0.0, |h| h.interval.as_secs_f64())
        }),
        "heartbeat_timeout" => (o.heartbeat(Some(Heartbeat::new(hb.interval, d()))), |o| {
            o.get_heartbeat().map_or(0.0, |h| h.timeout.as_secs_f64())
        }),
        "event_queue_capacity" => (o.event_queue_capacity(n as usize), |o| {
            o.get_event_queue_capacity() as f64
        }),
        "read_ahead_bytes" => (o.read_ahead_bytes(n as usize), |o| {
            o.get_read_ahead_bytes() as f64
        }),
        "max_line_bytes" => (o.max_line_bytes(n as usize), |o| {
            o.get_max_line_bytes() as f64
        }),
        "stderr_tail_bytes" => (o.stderr_tail_bytes(n as usize), |o| {
            o.get_stderr_tail_bytes() as f64
        }),
        "mcp_input_rounds" => (o.mcp_input_rounds(n as usize), |o| {
            o.get_mcp().input_rounds() as f64
        }),
        "ws_token_lifetime" => (
            o.websocket("ws://127.0.0.1:9/", None)
                .signed_bearer_token(SignedBearerToken::new("/no/secret").lifetime(d())),
            |o| match o.get_ws_auth() {
                WsAuth::SignedBearerToken(s) => s.lifetime.as_secs_f64(),
                other => panic!("{other:?}"),
            },
        ),
        _ => panic!("option {key} has a range but no typed setter in this test: add it"),
    };
    let got = read(&o);
    Some((o, got))
}

#[test]
fn typed_setters_agree_with_the_table_on_every_ranged_key() {
    let rows: Vec<Value> = serde_json::from_str(&keys_json()).unwrap();
    let (mut keys, mut checked) = (0, 0);
    let mut disagree = Vec::new();
    for r in &rows {
        let name = r["name"].as_str().unwrap();
        let Some(range) = r["range"].as_array() else {
            continue;
        };
        if name == "oauth_authorize_timeout" {
            continue; // OAuthConfig's, see the module doc
        }
        keys += 1;
        let (lo, hi) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
        let def = r["default"].as_f64().unwrap();
        let zero = r["zero"].as_str().unwrap_or("");
        let mut edges = vec![
            ("default", def),
            ("max", hi),
            ("max+1", hi + 1.0),
            ("0", 0.0),
        ];
        if lo != 0.0 {
            edges.push(("min", lo));
        }
        if lo - 1.0 >= 0.0 {
            edges.push(("min-1", lo - 1.0)); // a negative Duration or count cannot be made
        }
        for (label, v) in edges {
            let Some((o, got)) = typed(name, v) else {
                continue; // the typed field's integer cannot hold it
            };
            let (ok, want, off) = if v == 0.0 && (zero == "the default" || zero == "off") {
                (true, def, zero == "off")
            } else if (lo..=hi).contains(&v) {
                (true, v, false)
            } else {
                (false, def, false)
            };
            let valid = o.validate();
            let at = format!("{name} = {v} ({label})");
            if valid.is_ok() != ok {
                disagree.push(format!(
                    "{at}: {valid:?}, the table says {}",
                    if ok { "taken" } else { "refused" }
                ));
            } else if let Err(e) = valid {
                assert!(e.to_string().contains(name), "{name}: {e}");
            } else if !((got - want).abs() < 1e-9 || (off && got == 0.0)) {
                disagree.push(format!("{at}: reads {got}, the table says {want}"));
            }
            checked += 1;
        }
    }
    assert!(
        disagree.is_empty(),
        "typed setters disagree with the table:\n{}",
        disagree.join("\n")
    );
    assert!(keys >= 16, "{keys} ranged keys");
    assert!(checked >= 4 * keys, "{checked} values checked");
}

/// A 0 given to a setter, or inside a policy given to one, means what the table's row says,
/// and the client keeps it so (`Client::new`); out-of-range values are kept for `validate` and
/// `connect` to refuse, naming the option.
#[test]
fn a_client_uses_each_zero_as_the_table_says() {
    use codex_client::options::{DEFAULT_INPUT_ROUNDS, DEFAULT_STDERR_TAIL_BYTES};
    let mut r = ReconnectPolicy::default();
    (r.max_attempts, r.base, r.cap) = (0, Duration::ZERO, Duration::from_secs(3));
    let mut h = Heartbeat::default();
    h.timeout = Duration::ZERO;
    let o = ClientOptions::default()
        .stderr_tail_bytes(0)
        .mcp_input_rounds(0)
        .max_line_bytes(0)
        .reconnect(Some(r))
        .heartbeat(Some(h));
    assert!(o.validate().is_ok(), "{:?}", o.validate());
    let client = codex_client::Client::new(o.clone());
    let e = client.options();
    assert_eq!(e.get_stderr_tail_bytes(), DEFAULT_STDERR_TAIL_BYTES);
    assert_eq!(e.get_mcp().input_rounds(), DEFAULT_INPUT_ROUNDS);
    assert_eq!(e.get_max_line_bytes(), codex_client::DEFAULT_MAX_LINE_BYTES);
    assert_eq!(
        e.get_reconnect(),
        Some(ReconnectPolicy::new(
            ReconnectPolicy::DEFAULT_ATTEMPTS,
            ReconnectPolicy::DEFAULT_BASE,
            Duration::from_secs(3)
        ))
    );
    assert_eq!(e.get_heartbeat(), Some(Heartbeat::default()));
    // A heartbeat interval of 0 is "off"; reply_spin 0 stays 0 (off); other values are kept.
    let o = o
        .heartbeat(Some(Heartbeat::new(Duration::ZERO, Duration::from_secs(1))))
        .reply_spin(Duration::ZERO)
        .stderr_tail_bytes(7);
    assert_eq!(o.get_heartbeat(), None);
    assert_eq!(o.get_reply_spin(), Duration::ZERO);
    assert_eq!(o.get_stderr_tail_bytes(), 7);
    // An out-of-range value is refused, naming the option, and the value before is kept.
    let o = o.mcp_input_rounds((1 << 40) + 1);
    assert_eq!(o.get_mcp().input_rounds(), DEFAULT_INPUT_ROUNDS);
    assert!(o
        .validate()
        .unwrap_err()
        .to_string()
        .contains("mcp_input_rounds"));
    assert!(codex_client::Client::new(o)
        .connect()
        .unwrap_err()
        .to_string()
        .contains("mcp_input_rounds"));
}
