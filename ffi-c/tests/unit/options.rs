//! Unit tests of `ffi-c/src/options/` (a child module of `mod.rs`, kept out of `src`): the C
//! exports agree with the core's option table on every key and edge value, and each typed
//! setter agrees with the generic one.

use std::ffi::{CStr, CString};

use serde_json::{json, Value};

use super::setters::*;
use super::*;
use crate::connection::client::{codex_client_free, codex_client_new, codex_client_t};
use crate::error::codex_status_t::*;
use crate::error::tests::last_message;
use crate::strings::codex_string_free;

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// `codex_options_get` as a JSON value (`None`: refused).
fn get(o: *mut codex_options_t, key: &str) -> Option<Value> {
    // SAFETY: `key` is NUL-terminated; the returned string is freed once.
    unsafe {
        let p = codex_options_get(o, c(key).as_ptr());
        if p.is_null() {
            return None;
        }
        let v = serde_json::from_str(CStr::from_ptr(p).to_str().unwrap()).unwrap();
        codex_string_free(p);
        Some(v)
    }
}

fn set(o: *mut codex_options_t, key: &str, value: &Value) -> codex_status_t {
    // SAFETY: NUL-terminated strings.
    unsafe { codex_options_set(o, c(key).as_ptr(), c(&value.to_string()).as_ptr()) }
}

fn add(o: *mut codex_options_t, key: &str, value: &Value) -> codex_status_t {
    // SAFETY: NUL-terminated strings.
    unsafe { codex_options_add(o, c(key).as_ptr(), c(&value.to_string()).as_ptr()) }
}

/// Whether `codex_client_new` takes the options (the core's `build`).
fn builds(o: *mut codex_options_t) -> bool {
    let mut client: *mut codex_client_t = std::ptr::null_mut();
    // SAFETY: `o` is live; `client` is freed when made.
    unsafe {
        let ok = codex_client_new(o, &mut client) == CODEX_STATUS_OK;
        codex_client_free(client);
        ok
    }
}

#[test]
fn every_key_and_edge_value_means_what_the_core_says() {
    let cases = codex_client::options::cases();
    assert!(cases.len() > 300, "only {} cases", cases.len());
    let mut keys = std::collections::HashSet::new();
    for case in cases {
        keys.insert(case.key);
        let o = codex_options_new();
        let status = set(o, case.key, &case.value);
        let what = format!("{} = {}", case.key, case.value);
        assert_eq!(
            status == CODEX_STATUS_OK,
            case.ok,
            "{what}: {}",
            last_message()
        );
        if !case.ok {
            assert_eq!(status, CODEX_STATUS_INVALID_ARGUMENT, "{what}");
            assert!(
                last_message().contains(case.key),
                "{what}: {}",
                last_message()
            );
        }
        assert_eq!(get(o, case.key), Some(case.effective.clone()), "{what}");
        assert_eq!(builds(o), case.builds, "{what}: {}", last_message());
        // SAFETY: `o` is live.
        unsafe { codex_options_free(o) };
    }
    // Every key of the core's table was tried, and keys_json lists the same keys.
    // SAFETY: a static string.
    let listed = unsafe { CStr::from_ptr(codex_options_keys_json()) };
    let listed: Vec<Value> = serde_json::from_str(listed.to_str().unwrap()).unwrap();
    assert_eq!(listed.len(), codex_client::options::keys().count());
    let fresh = codex_options_new();
    for k in codex_client::options::keys() {
        assert!(keys.contains(k.name), "no case for {}", k.name);
        let row = listed.iter().find(|l| l["name"] == k.name);
        let row = row.unwrap_or_else(|| panic!("{} not listed", k.name));
        // The row C lists is the core's: default (what a new options object has), range,
        // unit, what 0 means and the clients.
        assert_eq!(
            get(fresh, k.name).as_ref(),
            Some(&row["default"]),
            "{}",
            k.name
        );
        assert_eq!(
            row["range"],
            serde_json::json!(k.range.map(|(a, b)| [a, b])),
            "{}",
            k.name
        );
        assert_eq!(row["zero"], serde_json::json!(k.zero), "{}", k.name);
        assert_eq!(row["unit"], serde_json::json!(k.unit), "{}", k.name);
        assert_eq!(
            row["clients"],
            serde_json::json!(k.clients.names()),
            "{}",
            k.name
        );
    }
    // SAFETY: `fresh` is live.
    unsafe { codex_options_free(fresh) };
}

#[test]
fn the_generic_exports_refuse_what_they_cannot_take() {
    let o = codex_options_new();
    // SAFETY: NUL-terminated literals; `o` is live until freed.
    unsafe {
        assert_eq!(
            codex_options_set(o, c"no_such_key".as_ptr(), c"1".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(
            last_message().contains("known: transport"),
            "{}",
            last_message()
        );
        assert_eq!(
            codex_options_set(o, c"default_timeout".as_ptr(), c"{".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(
            codex_options_set(o, std::ptr::null(), c"1".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(
            codex_options_add(o, c"default_timeout".as_ptr(), c"1".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(
            codex_options_add(o, c"args".as_ptr(), std::ptr::null()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        // A secret is never shown.
        assert_eq!(
            codex_options_set(o, c"token".as_ptr(), c"5".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(
            codex_options_set(o, c"token".as_ptr(), c"\"sekret\"".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(get(o, "token"), Some(json!("<redacted>")));
        assert_eq!(
            codex_options_add(
                o,
                c"headers".as_ptr(),
                c"[\"X-K\",\"sekret\\r\\n\"]".as_ptr()
            ),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(!last_message().contains("sekret"), "{}", last_message());
        // NULL restores the default.
        assert_eq!(set(o, "default_timeout", &json!(2)), CODEX_STATUS_OK);
        assert_eq!(
            codex_options_set(o, c"default_timeout".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert_eq!(get(o, "default_timeout"), Some(json!(300.0)));
        assert!(codex_options_get(o, c"nope".as_ptr()).is_null());
        assert!(last_message().contains("nope"));
        assert!(codex_options_get(o, std::ptr::null()).is_null());
        codex_options_free(o);
        assert!(codex_options_get(o, c"args".as_ptr()).is_null());
        assert!(
            last_message().contains("already freed"),
            "{}",
            last_message()
        );
    }
}

/// One change of the options through the generic exports.
enum G {
    Set(&'static str, Value),
    Add(&'static str, Value),
}

/// The typed setter `typed` and the generic changes `generic` agree: both succeed or both
/// fail, and the options `keys` then read the same (a refused typed call changes nothing).
fn agree(
    what: &str,
    typed: impl FnOnce(*mut codex_options_t) -> codex_status_t,
    generic: &[G],
    keys: &[&str],
) {
    let (a, b, fresh) = (
        codex_options_new(),
        codex_options_new(),
        codex_options_new(),
    );
    let typed_ok = typed(a) == CODEX_STATUS_OK;
    let typed_message = last_message();
    let generic_ok = generic.iter().all(|g| {
        let s = match g {
            G::Set(k, v) => set(b, k, v),
            G::Add(k, v) => add(b, k, v),
        };
        s == CODEX_STATUS_OK
    });
    assert_eq!(
        typed_ok,
        generic_ok,
        "{what}: {typed_message} / {}",
        last_message()
    );
    for k in keys {
        let want = if typed_ok { get(b, k) } else { get(fresh, k) };
        assert_eq!(get(a, k), want, "{what}: option {k}");
    }
    // SAFETY: the three objects are live.
    unsafe {
        codex_options_free(a);
        codex_options_free(b);
        codex_options_free(fresh);
    }
}

#[test]
fn each_typed_setter_agrees_with_the_generic_one_on_edge_values() {
    use G::*;
    let max_ms = CODEX_OPTIONS_MAX_TIMEOUT_MS;
    assert_eq!(max_ms, codex_client::options::MAX_SECONDS * 1000);
    for v in [0, 1, 1234, max_ms, max_ms + 1, u64::MAX] {
        let secs = json!(v as f64 / 1000.0);
        // SAFETY (every unsafe block of this test): `o` is live; strings are NUL-terminated.
        agree(
            &format!("default_timeout_ms {v}"),
            |o| unsafe { codex_options_set_default_timeout_ms(o, v) },
            &[Set("default_timeout", secs.clone())],
            &["default_timeout"],
        );
        agree(
            &format!("connect_timeout_ms {v}"),
            |o| unsafe { codex_options_set_connect_timeout_ms(o, v) },
            &[Set("connect_timeout", secs.clone())],
            &["connect_timeout"],
        );
        for (attempts, other) in [(0u32, 0u64), (3, v), (1000, v), (1001, 0)] {
            let on = attempts > 0;
            let mut g = vec![Set("reconnect", json!(on))];
            if on {
                g.push(Set("reconnect_max_attempts", json!(attempts)));
                g.push(Set("reconnect_base", secs.clone()));
                g.push(Set("reconnect_cap", json!(other as f64 / 1000.0)));
            }
            agree(
                &format!("reconnect {attempts} {v} {other}"),
                |o| unsafe { codex_options_set_reconnect(o, attempts, v, other) },
                &g,
                &[
                    "reconnect",
                    "reconnect_max_attempts",
                    "reconnect_base",
                    "reconnect_cap",
                ],
            );
            agree(
                &format!("retry {attempts} {v} {other}"),
                |o| unsafe { codex_options_set_retry(o, attempts, v, other) },
                &[
                    Set("retry_max_attempts", json!(attempts)),
                    Set("retry_base", secs.clone()),
                    Set("retry_cap", json!(other as f64 / 1000.0)),
                ],
                &["retry_max_attempts", "retry_base", "retry_cap"],
            );
        }
        agree(
            &format!("heartbeat {v}"),
            |o| unsafe { codex_options_set_heartbeat(o, v, 0) },
            &[
                Set("heartbeat_interval", secs.clone()),
                Set("heartbeat_timeout", json!(0)),
            ],
            &["heartbeat", "heartbeat_interval", "heartbeat_timeout"],
        );
    }
    for us in [0u32, 1, 50, 10_000, 10_001, u32::MAX] {
        agree(
            &format!("reply_spin_us {us}"),
            |o| unsafe { codex_options_set_reply_spin_us(o, us) },
            &[Set("reply_spin", json!(f64::from(us) / 1e6))],
            &["reply_spin"],
        );
    }
    type SizeSetter = unsafe extern "C" fn(*mut codex_options_t, usize) -> codex_status_t;
    let sizes: [(SizeSetter, &str); 3] = [
        (
            codex_options_set_event_queue_capacity,
            "event_queue_capacity",
        ),
        (codex_options_set_read_ahead_bytes, "read_ahead_bytes"),
        (codex_options_set_max_line_bytes, "max_line_bytes"),
    ];
    for (f, key) in sizes {
        for n in [0usize, 1, 1023, 1024, 1 << 40, (1 << 40) + 1, usize::MAX] {
            agree(
                &format!("{key} {n}"),
                |o| unsafe { f(o, n) },
                &[Set(key, json!(n))],
                &[key],
            );
        }
    }
    type BoolSetter = unsafe extern "C" fn(*mut codex_options_t, bool) -> codex_status_t;
    let bools: [(BoolSetter, &str); 3] = [
        (codex_options_set_clear_env, "clear_env"),
        (codex_options_set_experimental_api, "experimental_api"),
        (
            codex_options_set_dedicated_dispatch_thread,
            "dedicated_dispatch_thread",
        ),
    ];
    for (f, key) in bools {
        for b in [true, false] {
            agree(key, |o| unsafe { f(o, b) }, &[Set(key, json!(b))], &[key]);
        }
    }
    type TextSetter = unsafe extern "C" fn(*mut codex_options_t, *const c_char) -> codex_status_t;
    let texts: [(TextSetter, &str, bool); 9] = [
        (codex_options_set_codex_bin, "codex_bin", false),
        (codex_options_set_cwd, "cwd", false),
        (codex_options_set_codex_home, "codex_home", false),
        (codex_options_set_tls_ca_file, "tls_ca_file", false),
        (codex_options_add_arg, "args", true),
        (codex_options_add_env, "env", true),
        (codex_options_add_config_override, "config_overrides", true),
        (
            codex_options_add_opt_out_notification_method,
            "opt_out_notification_methods",
            true,
        ),
        (
            codex_options_set_mcp_capabilities_json,
            "mcp_capabilities",
            false,
        ),
    ];
    for (f, key, list) in texts {
        for t in ["/tmp/x", "", "K=v", "=v", "{\"roots\":{}}", "[]"] {
            let v = if key == "mcp_capabilities" {
                match serde_json::from_str(t) {
                    Ok(v) => v,
                    Err(_) => continue,
                }
            } else {
                json!(t)
            };
            let g = if list { Add(key, v) } else { Set(key, v) };
            agree(
                &format!("{key} {t:?}"),
                |o| unsafe { f(o, c(t).as_ptr()) },
                &[g],
                &[key],
            );
        }
    }
    for spec in [
        "stdio",
        "exec",
        "mcp",
        "ws://127.0.0.1:9/",
        "unix",
        "ftp://x",
        "mcp+stdio:a b",
    ] {
        agree(
            &format!("transport {spec}"),
            |o| unsafe { codex_options_set_transport(o, c(spec).as_ptr(), std::ptr::null()) },
            &[Set("transport", json!(spec))],
            &["transport", "token", "command"],
        );
    }
    for (name, value) in [("X-Key", "v"), ("X Key", "v"), ("", "v"), ("K", "a\r\nb")] {
        agree(
            &format!("header {name:?}"),
            |o| unsafe { codex_options_add_header(o, c(name).as_ptr(), c(value).as_ptr()) },
            &[Add("headers", json!([name, value]))],
            &["headers"],
        );
    }
    for uri in ["file:///a", "", "/srv/x"] {
        agree(
            &format!("root {uri:?}"),
            |o| unsafe { codex_options_add_mcp_root(o, c(uri).as_ptr(), c"A".as_ptr()) },
            &[Add("mcp_roots", json!([uri, "A"]))],
            &["mcp_roots"],
        );
    }
    agree(
        "client_info",
        |o| unsafe {
            codex_options_set_client_info(o, c"n".as_ptr(), std::ptr::null(), c"".as_ptr())
        },
        &[
            Set("client_name", json!("n")),
            Set("client_title", Value::Null),
            Set("client_version", json!("")),
        ],
        &["client_name", "client_title", "client_version"],
    );
    agree(
        "delivery",
        |o| unsafe { codex_options_set_delivery(o, CODEX_DELIVERY_POLL) },
        &[Set("delivery", json!("poll"))],
        &["delivery"],
    );
    let argv = [c"node".as_ptr(), c"s.js".as_ptr()];
    agree(
        "mcp_command",
        |o| unsafe { codex_options_set_mcp_command(o, argv.as_ptr(), 2) },
        &[Set("command", json!(["node", "s.js"]))],
        &["command", "transport"],
    );
    agree(
        "mcp_command of nothing",
        |o| unsafe { codex_options_set_mcp_command(o, argv.as_ptr(), 0) },
        &[Set("command", json!([]))],
        &["command"],
    );
    agree(
        "client cert",
        |o| unsafe { codex_options_set_tls_client_cert(o, c"c".as_ptr(), std::ptr::null()) },
        &[Set("tls_client_cert", json!(["c", null]))],
        &["tls_client_cert"],
    );
}

#[test]
fn typed_setters_keep_their_c_conventions() {
    let o = codex_options_new();
    // SAFETY: `o` is live; every string is a NUL-terminated literal.
    unsafe {
        // A token the transport cannot carry is refused by the setter, not at client creation,
        // and never shown.
        assert_eq!(
            codex_options_set_transport(o, c"exec".as_ptr(), c"sekret".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_message().contains("token") && !last_message().contains("sekret"));
        // set_transport and set_mcp_command replace each other.
        let argv = [c"node".as_ptr()];
        assert_eq!(
            codex_options_set_mcp_command(o, argv.as_ptr(), 1),
            CODEX_STATUS_OK
        );
        assert!(builds(o));
        assert_eq!(
            codex_options_set_transport(o, c"exec".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert_eq!(get(o, "command"), Some(Value::Null));
        assert!(builds(o));
        assert_eq!(
            codex_options_set_mcp_command(o, argv.as_ptr(), 1),
            CODEX_STATUS_OK
        );
        assert_eq!(get(o, "transport"), Some(json!("stdio")));
        assert!(builds(o));
        // Headers before an HTTP transport: refused at client creation only.
        assert_eq!(
            codex_options_add_header(o, c"X-Api-Key".as_ptr(), c"sekret".as_ptr()),
            CODEX_STATUS_OK
        );
        assert!(!builds(o));
        assert!(last_message().contains("headers") && !last_message().contains("sekret"));
        assert_eq!(
            codex_options_set_transport(o, c"http://127.0.0.1:9/mcp".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert!(builds(o));
        assert_eq!(
            codex_options_set_mcp_command(o, std::ptr::null(), 1),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(last_message(), "argv is NULL");
        assert_eq!(
            codex_options_set_delivery(o, 7),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_message().contains("unknown delivery"));
        // A refused call changes nothing.
        assert_eq!(get(o, "transport"), Some(json!("http://127.0.0.1:9/mcp")));
        codex_options_free(o);
    }
}

#[test]
fn a_pointer_that_is_not_an_options_object_is_refused_unread() {
    // An old-layout struct: all zero bytes, exactly what `codex_options_t o = {0};` was.
    let old = [0u64; 24];
    let p = old.as_ptr() as *mut codex_options_t;
    let Err(Fail::Status(s, m)) = build(p) else {
        panic!("an old struct was accepted")
    };
    assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
    assert!(m.contains("built against an older header"), "{m}");
    // SAFETY: the pointer is looked up in the registry, never dereferenced.
    unsafe {
        assert_eq!(
            codex_options_set_clear_env(p, true),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(
            last_message().contains("older header"),
            "{}",
            last_message()
        );
        assert_eq!(
            codex_options_set_clear_env(std::ptr::null_mut(), true),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(last_message(), "options is NULL");
        codex_options_free(p);
        assert!(last_message().contains("ignored"), "{}", last_message());
    }
    assert!(old.iter().all(|&w| w == 0));
}
