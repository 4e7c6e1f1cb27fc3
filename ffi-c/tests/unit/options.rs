//! Unit tests of `ffi-c/src/options.rs` (a child module of it, kept out of `src`).

use super::*;
use crate::error::codex_status_t::*;
use crate::error::tests::last_message;

fn options(o: *mut codex_options_t) -> Converted {
    convert(o).expect("a live options object")
}

#[test]
fn setters_reach_the_core_options() {
    let o = codex_options_new();
    assert!(!o.is_null());
    // SAFETY: `o` is live; every string is a NUL-terminated literal.
    unsafe {
        assert_eq!(
            codex_options_set_codex_bin(o, c"/bin/codex".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(codex_options_add_arg(o, c"--x".as_ptr()), CODEX_STATUS_OK);
        assert_eq!(
            codex_options_add_config_override(o, c"a.b=1=2".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(codex_options_add_env(o, c"K=".as_ptr()), CODEX_STATUS_OK);
        assert_eq!(codex_options_set_clear_env(o, true), CODEX_STATUS_OK);
        assert_eq!(
            codex_options_set_client_info(o, c"n".as_ptr(), std::ptr::null(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            codex_options_set_delivery(o, CODEX_DELIVERY_POLL),
            CODEX_STATUS_OK
        );
        assert_eq!(
            codex_options_set_default_timeout_ms(o, 1234),
            CODEX_STATUS_OK
        );
        assert_eq!(
            codex_options_set_event_queue_capacity(o, 7),
            CODEX_STATUS_OK
        );
        assert_eq!(codex_options_set_reply_spin_us(o, 0), CODEX_STATUS_OK);
        assert_eq!(
            codex_options_set_reply_spin_us(o, 10_001),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_message().contains("reply_spin_us"));
    }
    let c = options(o);
    assert_eq!(c.options.reply_spin, std::time::Duration::ZERO);
    assert_eq!(
        c.options.codex_bin.as_deref(),
        Some(std::path::Path::new("/bin/codex"))
    );
    assert_eq!(c.options.args, vec!["--x".to_owned()]);
    assert_eq!(
        c.options.config_overrides,
        vec![("a.b".to_owned(), "1=2".to_owned())]
    );
    assert_eq!(c.options.env, vec![("K".to_owned(), String::new())]);
    assert!(c.options.clear_env);
    assert_eq!(c.options.client_name, "n");
    assert_eq!(
        c.options.client_version,
        ClientOptions::default().client_version
    );
    assert!(c.poll);
    assert_eq!(c.options.delivery, Delivery::Poll);
    assert_eq!(c.options.default_timeout, Duration::from_millis(1234));
    assert_eq!(c.options.event_queue_capacity, 7);
    // SAFETY: as above.
    unsafe {
        assert_eq!(codex_options_set_default_timeout_ms(o, 0), CODEX_STATUS_OK);
        assert_eq!(
            codex_options_set_event_queue_capacity(o, 0),
            CODEX_STATUS_OK
        );
    }
    let c = options(o);
    assert_eq!(
        c.options.default_timeout,
        ClientOptions::default().default_timeout
    );
    assert_eq!(
        c.options.event_queue_capacity,
        ClientOptions::default().event_queue_capacity
    );
    // SAFETY: `o` is live until here.
    unsafe { codex_options_free(o) };
    assert!(convert(o).is_err());
    assert!(last_message().is_empty() || !last_message().contains("ignored"));
    // SAFETY: a freed handle is looked up, never dereferenced.
    unsafe { codex_options_free(o) };
    assert!(last_message().contains("ignored"), "{}", last_message());
}

#[test]
fn transport_and_token_are_validated_by_the_setter() {
    let o = codex_options_new();
    assert_eq!(options(o).options.transport, TransportKind::Stdio);
    // SAFETY: `o` is live; every string is a NUL-terminated literal.
    unsafe {
        assert_eq!(
            codex_options_set_transport(o, c"exec".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert!(matches!(
            options(o).options.transport,
            TransportKind::Exec(_)
        ));
        assert_eq!(
            codex_options_set_transport(o, c"wss://example.com/".as_ptr(), c"sekret".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            options(o).options.transport,
            TransportKind::WebSocket {
                url: "wss://example.com/".into(),
                token: Some("sekret".into())
            }
        );
        assert!(!format!("{:?}", options(o).options).contains("sekret"));
        assert_eq!(
            codex_options_set_transport(o, c"exec".as_ptr(), c"sekret".as_ptr()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(!last_message().contains("sekret"));
        assert!(last_message().contains("token"), "{}", last_message());
        assert_eq!(
            codex_options_set_transport(o, c"gopher://x".as_ptr(), std::ptr::null()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_message().contains("gopher://x"), "{}", last_message());
        // A failed setter changes nothing.
        assert!(matches!(
            options(o).options.transport,
            TransportKind::WebSocket { .. }
        ));
        codex_options_free(o);
    }
}

#[test]
fn mcp_setters_build_the_transport_and_refuse_bad_input() {
    let o = codex_options_new();
    let argv = [
        c"/usr/bin/node".as_ptr(),
        c"server.js".as_ptr(),
        c"a b".as_ptr(),
    ];
    // SAFETY: `o` is live; `argv` holds `argv.len()` NUL-terminated literals.
    unsafe {
        assert_eq!(
            codex_options_set_mcp_command(o, argv.as_ptr(), argv.len()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            options(o).options.transport,
            TransportKind::McpStdio(McpCommand::new("/usr/bin/node").args(["server.js", "a b"]))
        );
        // Refused, nothing changed.
        assert_eq!(
            codex_options_set_mcp_command(o, argv.as_ptr(), 0),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(last_message().contains("argc is 0"), "{}", last_message());
        assert_eq!(
            codex_options_set_mcp_command(o, std::ptr::null(), 1),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        let holes = [c"node".as_ptr(), std::ptr::null()];
        assert_eq!(
            codex_options_set_mcp_command(o, holes.as_ptr(), 2),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(last_message(), "argv[1] is NULL");
        let bad = [c"node".as_ptr(), c"\xff".as_ptr()];
        assert_eq!(
            codex_options_set_mcp_command(o, bad.as_ptr(), 2),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(last_message(), "argv[1] is not valid UTF-8");
        let empty = [c"".as_ptr()];
        assert_eq!(
            codex_options_set_mcp_command(o, empty.as_ptr(), 1),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert!(matches!(
            options(o).options.transport,
            TransportKind::McpStdio(_)
        ));

        // Roots and capabilities.
        assert_eq!(
            codex_options_add_mcp_root(o, c"file:///a".as_ptr(), c"A".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            codex_options_add_mcp_root(o, c"file:///b".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            codex_options_add_mcp_root(o, c"".as_ptr(), std::ptr::null()),
            CODEX_STATUS_INVALID_ARGUMENT
        );
        assert_eq!(
            options(o).options.mcp.roots,
            Some(vec![
                Root::new("file:///a", Some("A".into())),
                Root::new("file:///b", None)
            ])
        );
        assert_eq!(
            codex_options_set_mcp_capabilities_json(o, c"{\"sampling\":{}}".as_ptr()),
            CODEX_STATUS_OK
        );
        assert_eq!(
            options(o).options.mcp.capabilities,
            Some(serde_json::json!({"sampling": {}}))
        );
        for bad in [c"[]", c"{", c"null"] {
            assert_eq!(
                codex_options_set_mcp_capabilities_json(o, bad.as_ptr()),
                CODEX_STATUS_INVALID_ARGUMENT
            );
        }
        assert!(options(o).options.mcp.capabilities.is_some());
        assert_eq!(
            codex_options_set_mcp_capabilities_json(o, std::ptr::null()),
            CODEX_STATUS_OK
        );
        assert_eq!(options(o).options.mcp.capabilities, None);
        codex_options_free(o);
    }
}

#[test]
fn headers_go_into_an_http_transport_only() {
    let o = codex_options_new();
    // SAFETY: `o` is live; every string is a NUL-terminated literal.
    unsafe {
        // Before the transport is chosen, then a transport that is not HTTP: refused at
        // client creation.
        assert_eq!(
            codex_options_add_header(o, c"X-Api-Key".as_ptr(), c"sekret".as_ptr()),
            CODEX_STATUS_OK
        );
        let Err(Fail::Status(s, m)) = convert(o) else {
            panic!("headers with the stdio transport were accepted")
        };
        assert_eq!(s, CODEX_STATUS_INVALID_ARGUMENT);
        assert!(
            m.contains("MCP HTTP transport") && !m.contains("sekret"),
            "{m}"
        );
        assert_eq!(
            codex_options_set_transport(o, c"http://127.0.0.1:9/mcp".as_ptr(), std::ptr::null()),
            CODEX_STATUS_OK
        );
        let TransportKind::McpHttp(h) = convert(o).unwrap().options.transport else {
            panic!("not an HTTP transport")
        };
        assert_eq!(
            h.headers,
            vec![("X-Api-Key".to_owned(), "sekret".to_owned())]
        );
        assert!(!format!("{h:?}").contains("sekret"));
        for (name, value) in [
            (c"X-Key\r\nEvil".as_ptr(), c"v".as_ptr()),
            (c"X Key".as_ptr(), c"v".as_ptr()),
            (c"".as_ptr(), c"v".as_ptr()),
            (c"X-Key".as_ptr(), c"sekret\r\nEvil: 1".as_ptr()),
            (std::ptr::null(), c"v".as_ptr()),
            (c"X-Key".as_ptr(), std::ptr::null()),
        ] {
            assert_eq!(
                codex_options_add_header(o, name, value),
                CODEX_STATUS_INVALID_ARGUMENT
            );
            assert!(!last_message().contains("sekret"), "{}", last_message());
        }
        let TransportKind::McpHttp(h) = convert(o).unwrap().options.transport else {
            panic!("not an HTTP transport")
        };
        assert_eq!(h.headers.len(), 1);
        codex_options_free(o);
    }
}

#[test]
fn a_pointer_that_is_not_an_options_object_is_refused_unread() {
    // An old-layout struct: all zero bytes, exactly what `codex_options_t o = {0};` was.
    let old = [0u64; 24];
    let p = old.as_ptr() as *mut codex_options_t;
    let Err(Fail::Status(s, m)) = convert(p) else {
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
    }
    assert!(old.iter().all(|&w| w == 0));
}
