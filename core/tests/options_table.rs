//! The option table: every option by name, with one meaning for every binding.

use std::time::Duration;

use codex_client::options::{cases, keys, keys_json};
use codex_client::{Delivery, OptionsBuilder, TransportKind, DEFAULT_MAX_LINE_BYTES};
use serde_json::{json, Value};

#[test]
fn every_key_is_documented_unique_and_resets_to_its_default() {
    let mut names = std::collections::HashSet::new();
    let defaults = OptionsBuilder::new();
    for k in keys() {
        assert!(names.insert(k.name), "duplicate option {}", k.name);
        assert!(k.doc.len() > 20, "{} has no real doc", k.name);
        let mut b = OptionsBuilder::new();
        b.set(k.name, Value::Null).unwrap();
        assert_eq!(
            b.get(k.name).unwrap(),
            defaults.get(k.name).unwrap(),
            "{}",
            k.name
        );
    }
    let table: Vec<Value> = serde_json::from_str(&keys_json()).unwrap();
    assert_eq!(table.len(), names.len());
    assert!(table
        .iter()
        .all(|k| k["doc"].is_string() && k["kind"].is_string()));
}

#[test]
fn zero_means_the_default_for_sizes_and_timeouts() {
    let mut b = OptionsBuilder::new();
    // `max_line_bytes=0` used to reach the reader as 0 from Python: every line, the
    // initialize answer included, was over the limit and connect timed out after 30 s.
    b.set("max_line_bytes", json!(0)).unwrap();
    b.set("event_queue_capacity", json!(0)).unwrap();
    b.set("default_timeout", json!(0)).unwrap();
    let o = b.build().unwrap();
    assert_eq!(o.get_max_line_bytes(), DEFAULT_MAX_LINE_BYTES);
    assert_eq!(o.get_event_queue_capacity(), 4096);
    assert_eq!(o.get_default_timeout(), Duration::from_secs(300));
    // ... and a line limit too small to hold any answer is refused, naming the option.
    let e = b.set("max_line_bytes", json!(10)).unwrap_err().to_string();
    assert!(e.contains("max_line_bytes") && e.contains("1024"), "{e}");
}

#[test]
fn ranges_types_and_unknown_keys_are_refused_with_the_option_named() {
    let mut b = OptionsBuilder::new();
    for (k, v) in [
        ("reply_spin", json!(0.02)),
        ("default_timeout", json!(-1)),
        ("default_timeout", json!(31_536_001)),
        ("connect_timeout", json!("30")),
        ("event_queue_capacity", json!(1.5)),
        ("clear_env", json!(1)),
        ("delivery", json!("push")),
        ("exec_sandbox_mode", json!("yolo")),
        ("env", json!(["NOEQUALS"])),
        ("reconnect", json!({"tries": 3})),
    ] {
        let e = b.set(k, v.clone()).unwrap_err();
        assert_eq!(e.kind(), codex_client::ErrorKind::InvalidArgument);
        assert!(e.to_string().contains(k), "{k}={v}: {e}");
    }
    let e = b.set("max_lines", json!(1)).unwrap_err().to_string();
    assert!(
        e.contains("unknown option `max_lines`") && e.contains("max_line_bytes"),
        "{e}"
    );
    // Nothing refused changed anything.
    assert_eq!(
        b.build().unwrap().get_reply_spin(),
        Duration::from_micros(50)
    );
}

#[test]
fn transport_rules_are_checked_at_build() {
    let mut b = OptionsBuilder::new();
    b.add("headers", json!("X-Api-Key: k")).unwrap();
    let e = b.build().unwrap_err().to_string();
    assert!(e.contains("headers") && e.contains("HTTP"), "{e}");
    b.set("transport", json!("http://127.0.0.1:1/mcp")).unwrap();
    b.set("token", json!("tok")).unwrap();
    match b.build().unwrap().get_transport() {
        TransportKind::McpHttp(h) => {
            assert_eq!(h.headers, vec![("X-Api-Key".to_owned(), "k".to_owned())]);
            assert_eq!(h.token.as_deref(), Some("tok"));
        }
        other => panic!("{other:?}"),
    }

    let mut b = OptionsBuilder::new();
    b.set("exec_model", json!("m")).unwrap();
    assert!(b.build().unwrap_err().to_string().contains("exec"));
    b.set("transport", json!("exec")).unwrap();
    b.add("exec_additional_directories", json!("/data"))
        .unwrap();
    match b.build().unwrap().get_transport() {
        TransportKind::Exec(x) => {
            assert_eq!(x.model.as_deref(), Some("m"));
            assert_eq!(
                x.additional_directories,
                vec![std::path::PathBuf::from("/data")]
            );
        }
        other => panic!("{other:?}"),
    }

    let mut b = OptionsBuilder::new();
    b.set("command", json!(["node", "server.js"])).unwrap();
    assert!(matches!(
        b.build().unwrap().get_transport(),
        TransportKind::McpStdio(_)
    ));
    b.set("transport", json!("exec")).unwrap();
    assert!(b.build().unwrap_err().to_string().contains("command"));
}

#[test]
fn policies_turn_on_and_off() {
    let mut b = OptionsBuilder::new();
    assert!(b.build().unwrap().get_reconnect().is_none());
    b.set("reconnect", json!({"max_attempts": 3, "base": 0.1}))
        .unwrap();
    let r = b.build().unwrap().get_reconnect().unwrap();
    assert_eq!((r.max_attempts, r.base), (3, Duration::from_millis(100)));
    b.set("reconnect", json!(false)).unwrap();
    assert!(b.build().unwrap().get_reconnect().is_none());
    b.set("reconnect_cap", json!(2)).unwrap();
    assert_eq!(
        b.build().unwrap().get_reconnect().unwrap().cap,
        Duration::from_secs(2)
    );

    assert!(b.build().unwrap().get_heartbeat().is_some());
    b.set("heartbeat", json!({"interval": 0})).unwrap();
    assert!(b.build().unwrap().get_heartbeat().is_none());
    b.set("heartbeat_interval", json!(2)).unwrap();
    assert_eq!(
        b.build().unwrap().get_heartbeat().unwrap().interval,
        Duration::from_secs(2)
    );
    b.set("delivery", json!("poll")).unwrap();
    assert_eq!(b.build().unwrap().get_delivery(), Delivery::Poll);
}

#[test]
fn secrets_never_show() {
    let mut b = OptionsBuilder::new();
    b.set("transport", json!("https://example.test/mcp"))
        .unwrap();
    b.set("token", json!("sk-secret-token")).unwrap();
    b.set(
        "headers",
        json!({"Authorization": "Bearer sk-secret-header"}),
    )
    .unwrap();
    let shown = format!(
        "{b:?} {} {} {:?}",
        b.get("token").unwrap(),
        b.get("headers").unwrap(),
        b.build().unwrap()
    );
    assert!(!shown.contains("sk-secret"), "{shown}");
    let e = b
        .set("token", json!(["sk-secret-list"]))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("sk-secret") && e.contains("token"), "{e}");
    let e = b
        .add("headers", json!("X-Key: sk-secret\r\nEvil: 1"))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("sk-secret"), "{e}");
}

#[test]
fn roots_paths_become_file_uris() {
    let mut b = OptionsBuilder::new();
    b.set("mcp_roots", json!(["file:///w", ["/tmp/a b", "A"]]))
        .unwrap();
    assert_eq!(
        b.get("mcp_roots").unwrap(),
        json!([["file:///w", null], ["file:///tmp/a%20b", "A"]])
    );
}

#[test]
fn the_edge_cases_exercise_every_key_both_ways() {
    let all = cases();
    for k in keys() {
        let mine: Vec<_> = all.iter().filter(|c| c.key == k.name).collect();
        assert!(mine.iter().any(|c| c.ok), "{}: no accepted case", k.name);
        assert!(mine.iter().any(|c| !c.ok), "{}: no refused case", k.name);
    }
    let json: Vec<Value> = serde_json::from_str(&codex_client::options::cases_json()).unwrap();
    assert_eq!(json.len(), all.len());
}

/// The typed Rust setters of `ClientOptions` give every edge value of the option table the
/// table's meaning: the same 0, the same range (a value the table refuses fails `validate`,
/// and so `connect`, naming the option), the same effective value; and the defaults of
/// `ClientOptions` are the table's.
#[test]
fn rust_setters_agree_with_the_table() {
    use codex_client::{ClientOptions, RetryPolicy};
    type Count = (
        &'static str,
        fn(ClientOptions, u64) -> ClientOptions,
        fn(&ClientOptions) -> Value,
    );
    let counts: [Count; 4] = [
        (
            "event_queue_capacity",
            |o, n| o.event_queue_capacity(n as usize),
            |o| json!(o.get_event_queue_capacity()),
        ),
        (
            "max_line_bytes",
            |o, n| o.max_line_bytes(n as usize),
            |o| json!(o.get_max_line_bytes()),
        ),
        (
            "read_ahead_bytes",
            |o, n| o.read_ahead_bytes(n as usize),
            |o| json!(o.get_read_ahead_bytes()),
        ),
        (
            "retry_max_attempts",
            |o, n| {
                o.retry(RetryPolicy::new(
                    n as u32,
                    RetryPolicy::DEFAULT_BASE,
                    RetryPolicy::DEFAULT_CAP,
                ))
            },
            |o| json!(o.get_retry().max_attempts),
        ),
    ];
    type Secs = (
        &'static str,
        fn(ClientOptions, Duration) -> ClientOptions,
        fn(&ClientOptions) -> Duration,
    );
    let seconds: [Secs; 4] = [
        (
            "default_timeout",
            |o, d| o.default_timeout(d),
            |o| o.get_default_timeout(),
        ),
        (
            "connect_timeout",
            |o, d| o.connect_timeout(d),
            |o| o.get_connect_timeout(),
        ),
        ("reply_spin", |o, d| o.reply_spin(d), |o| o.get_reply_spin()),
        (
            "retry_cap",
            |o, d| {
                o.retry(RetryPolicy::new(
                    RetryPolicy::DEFAULT_ATTEMPTS,
                    RetryPolicy::DEFAULT_BASE,
                    d,
                ))
            },
            |o| o.get_retry().cap,
        ),
    ];
    let mut checked = 0;
    for c in cases() {
        let agree = |o: &ClientOptions, effective: Value| {
            assert_eq!(
                o.validate().is_ok(),
                c.ok,
                "{}={}: {:?}",
                c.key,
                c.value,
                o.validate()
            );
            if let Err(e) = o.validate() {
                assert!(e.to_string().contains(c.key), "{e}");
            } else {
                assert_eq!(effective, c.effective, "{}={}", c.key, c.value);
            }
        };
        if let (Some((_, set, get)), Some(n)) =
            (counts.iter().find(|k| k.0 == c.key), c.value.as_u64())
        {
            if c.key == "retry_max_attempts" && n > u64::from(u32::MAX) {
                continue; // the typed policy's u32 cannot hold it
            }
            let o = set(ClientOptions::default(), n);
            agree(&o, get(&o));
            checked += 1;
        }
        if let (Some((_, set, get)), Some(s)) =
            (seconds.iter().find(|k| k.0 == c.key), c.value.as_f64())
        {
            if (0.0..1e12).contains(&s) {
                let o = set(ClientOptions::default(), Duration::from_secs_f64(s));
                agree(&o, json!(get(&o).as_secs_f64()));
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "only {checked} cases checked");
    // The two disagreements, now gone.
    let e = ClientOptions::default()
        .max_line_bytes(10)
        .validate()
        .unwrap_err();
    assert!(
        e.to_string().contains("max_line_bytes") && e.to_string().contains("1024"),
        "{e}"
    );
    assert_eq!(
        ClientOptions::default()
            .event_queue_capacity(0)
            .get_event_queue_capacity(),
        codex_client::DEFAULT_EVENT_QUEUE_CAPACITY
    );
    // No field can be set directly (they are private): the setter is the only way, through
    // the row, and its 0 means what the row says.
    let o = ClientOptions::default().max_line_bytes(0);
    assert!(o.validate().is_ok(), "{:?}", o.validate());
    assert_eq!(o.get_max_line_bytes(), codex_client::DEFAULT_MAX_LINE_BYTES);
    // The defaults of ClientOptions are the table's, every one.
    assert_eq!(
        format!("{:?}", OptionsBuilder::new().build().unwrap()),
        format!("{:?}", ClientOptions::default())
    );
}

/// Each row says which clients it applies to; set on another client it is refused at build,
/// naming the option and the client.
#[test]
fn an_option_for_another_client_is_refused_naming_both() {
    let table: Vec<Value> = serde_json::from_str(&keys_json()).unwrap();
    let row = |n: &str| table.iter().find(|k| k["name"] == n).unwrap().clone();
    assert_eq!(row("mcp_cache")["clients"], json!(["mcp"]));
    assert_eq!(
        row("default_timeout")["clients"],
        json!(["app-server", "exec", "codex-mcp-server", "mcp"])
    );
    assert_eq!(
        row("max_line_bytes")["range"],
        json!([1024.0, (1u64 << 40) as f64])
    );
    assert_eq!(row("max_line_bytes")["zero"], json!("the default"));
    assert_eq!(row("reply_spin")["zero"], json!("off"));
    let mut b = OptionsBuilder::new();
    b.set("mcp_cache", json!(false)).unwrap();
    let e = b.build().unwrap_err();
    assert_eq!(e.kind(), codex_client::ErrorKind::InvalidArgument);
    let m = e.to_string();
    assert!(
        m.contains("mcp_cache") && m.contains("app-server") && m.contains("mcp"),
        "{m}"
    );
    b.set("command", json!(["server"])).unwrap();
    assert!(b.build().is_ok());
    // Set to its default, an option does not count as given.
    let mut b = OptionsBuilder::new();
    b.set("mcp_cache", json!(true)).unwrap();
    assert!(b.build().is_ok());
    let mut b = OptionsBuilder::new();
    b.set("command", json!(["server"])).unwrap();
    b.set("skill_emulation", json!("always")).unwrap();
    let m = b.build().unwrap_err().to_string();
    assert!(m.contains("skill_emulation") && m.contains("mcp"), "{m}");
}
