//! `account/rateLimits/updated` received as its typed notification (the fake app-server's
//! `rate-limits` mode, and the real `codex app-server` after a model reply that carries
//! rate-limit headers: the mock model's `MOCK_RATE_LIMITS`), and the server requests
//! `item/permissions/requestApproval` and `attestation/generate` answered through typed
//! handlers (the fake's `permissions` and `attestation` modes answer their `test/*` request
//! with what the client's answer held, checked against the vendored schema).

mod support;

use codex_client::protocol::{
    server_requests, AdditionalFileSystemPermissions, AdditionalNetworkPermissions,
    AttestationGenerateResponse, FileSystemAccessMode, FileSystemPath, GrantedPermissionProfile,
    PermissionGrantScope, PermissionsRequestApprovalParams, PermissionsRequestApprovalResponse,
    PlanType, RateLimitSnapshot, ServerNotification,
};
use codex_client::{CodexClient, Delivery, Notification};
use serde_json::json;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::*;

/// The first notification of `method` that arrives on `rx` within `within`.
fn first_of(rx: &mpsc::Receiver<Notification>, method: &str, within: Duration) -> Notification {
    let end = Instant::now() + within;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(n) if n.method == method => return n,
            Ok(_) => {}
            Err(e) => panic!("no `{method}` notification within {within:?}: {e}"),
        }
    }
}

/// The typed params of an `account/rateLimits/updated` notification (the test fails on any
/// other variant, `Unknown` included).
fn rate_limits_of(n: &Notification) -> RateLimitSnapshot {
    match n.typed() {
        ServerNotification::AccountRateLimitsUpdated(p) => {
            assert!(
                p.extra.is_empty(),
                "members the schema lacks: {:?}",
                p.extra
            );
            p.rate_limits
        }
        other => panic!("`{}` decoded as {other:?}", n.method),
    }
}

#[test]
fn rate_limits_updated_arrives_as_its_typed_notification() {
    let c = CodexClient::new(fake_options(&["rate-limits"]));
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    c.on_notification(move |n| {
        let _ = tx.lock().unwrap().send(n.clone());
    })
    .unwrap();
    c.connect().unwrap();
    c.request_blocking("test/rateLimitsUpdated", json!({}))
        .unwrap();
    let n = first_of(&rx, "account/rateLimits/updated", Duration::from_secs(10));
    let r = rate_limits_of(&n);
    assert!(r.extra.is_empty(), "{:?}", r.extra);
    assert_eq!(r.limit_id.as_deref(), Some("codex"));
    assert_eq!(r.limit_name.as_deref(), Some("Codex"));
    assert_eq!(r.plan_type, Some(PlanType::Pro));
    let primary = r.primary.expect("primary window");
    assert_eq!(
        (
            primary.used_percent,
            primary.window_duration_mins,
            primary.resets_at
        ),
        (87, Some(300), Some(1_900_000_300))
    );
    let secondary = r.secondary.expect("secondary window");
    assert_eq!(
        (
            secondary.used_percent,
            secondary.window_duration_mins,
            secondary.resets_at
        ),
        (12, Some(10_080), Some(1_900_600_000))
    );
    let credits = r.credits.expect("credits");
    assert!(credits.has_credits && !credits.unlimited);
    assert_eq!(credits.balance.as_deref(), Some("12.50"));
    assert_eq!(r.rate_limit_reached_type, None);
    assert_eq!(r.spend_control_reached, Some(false));
    // Not a thread's notification.
    assert_eq!(n.thread_id(), None);
    c.disconnect();
}

/// Real Codex sends `account/rateLimits/updated` when the model's reply carries the
/// `x-codex-primary-*` / `x-codex-secondary-*` headers (the mock model's `MOCK_RATE_LIMITS`).
#[test]
fn real_codex_sends_rate_limits_updated_from_the_model_reply_headers() {
    let env = RealEnv::new();
    let c = codex_connected(env.options().delivery(Delivery::Poll));
    let thread = start_thread(c.connection(), json!({}));
    let log = run_turn(c.connection(), &thread, "MOCK_RATE_LIMITS: 87 12", |r| {
        panic!("unexpected server request {}", r.method)
    });
    assert_eq!(
        log.status(),
        "completed",
        "the turn did not complete: {}",
        log.completed
    );
    let n = log
        .notifications
        .iter()
        .find(|n| n.method == "account/rateLimits/updated")
        .unwrap_or_else(|| {
            panic!(
                "no account/rateLimits/updated during the turn; got {:?}",
                log.notifications
                    .iter()
                    .map(|n| &n.method)
                    .collect::<Vec<_>>()
            )
        });
    let r = rate_limits_of(n);
    assert_eq!(r.limit_id.as_deref(), Some("codex"));
    let primary = r.primary.expect("primary window");
    assert_eq!(
        (
            primary.used_percent,
            primary.window_duration_mins,
            primary.resets_at
        ),
        (87, Some(300), Some(1_900_000_000))
    );
    let secondary = r.secondary.expect("secondary window");
    assert_eq!(
        (
            secondary.used_percent,
            secondary.window_duration_mins,
            secondary.resets_at
        ),
        (12, Some(10_080), Some(1_900_500_000))
    );
    log.assert_every_event_typed();
    c.disconnect();
}

#[test]
fn permissions_request_is_answered_by_a_typed_handler() {
    let c = CodexClient::new(fake_options(&["permissions"]));
    let seen: Arc<Mutex<Option<PermissionsRequestApprovalParams>>> = Arc::default();
    let slot = seen.clone();
    c.on_request::<server_requests::ItemPermissionsRequestApproval>(move |req| {
        *slot.lock().unwrap() = Some(req.params.clone());
        // Grant the folder asked for, not the network, for the session.
        let write = req
            .params
            .permissions
            .file_system
            .as_ref()
            .and_then(|f| f.write.clone());
        req.respond(PermissionsRequestApprovalResponse {
            permissions: GrantedPermissionProfile {
                file_system: Some(AdditionalFileSystemPermissions {
                    write,
                    ..Default::default()
                }),
                network: Some(AdditionalNetworkPermissions {
                    enabled: Some(false),
                    ..Default::default()
                }),
                ..Default::default()
            },
            scope: Some(PermissionGrantScope::Session),
            strict_auto_review: Some(true),
            extra: Default::default(),
        })
        .unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let r = c
        .request_blocking("test/requestPermissions", json!({}))
        .expect("the fake accepted the answer");
    assert_eq!(
        r["granted"],
        json!({
            "permissions": { "fileSystem": { "write": ["/tmp/proj/out"] }, "network": { "enabled": false } },
            "scope": "session",
            "strictAutoReview": true,
        }),
        "{r}"
    );
    // The handler got the request's params, typed.
    let p = seen.lock().unwrap().clone().expect("the handler ran");
    assert_eq!(
        (p.thread_id.as_str(), p.turn_id.as_str(), p.item_id.as_str()),
        ("thr_fake_1", "turn_1", "item_perm_1")
    );
    assert_eq!(p.cwd, "/tmp/proj");
    assert_eq!(
        p.reason.as_deref(),
        Some("write the build output and fetch dependencies")
    );
    assert_eq!(p.started_at_ms, 1_900_000_000_000);
    assert_eq!(p.permissions.network.and_then(|n| n.enabled), Some(true));
    let fs = p.permissions.file_system.expect("fileSystem");
    let entry = &fs.entries.as_ref().expect("entries")[0];
    assert_eq!(entry.access, FileSystemAccessMode::Write);
    match &entry.path {
        FileSystemPath::Path(path) => assert_eq!(path.path, "/tmp/proj/out"),
        other => panic!("entry path decoded as {other:?}"),
    }
    c.disconnect();

    // Without the handler the request gets the fail-closed answer: nothing granted.
    let c = fake_client(&[], fake_options(&["permissions"]));
    let r = c
        .request_blocking("test/requestPermissions", json!({}))
        .unwrap();
    assert_eq!(
        r["granted"],
        json!({"permissions": {}, "scope": "turn"}),
        "{r}"
    );
}

#[test]
fn attestation_is_answered_by_a_typed_handler() {
    let c = CodexClient::new(fake_options(&["attestation"]));
    let asked = Arc::new(Mutex::new(None));
    let slot = asked.clone();
    c.on_request::<server_requests::AttestationGenerate>(move |req| {
        *slot.lock().unwrap() = Some(req.raw().params_value());
        req.respond(AttestationGenerateResponse {
            token: "att.v1.eyJkZXZpY2UiOiJ0ZXN0In0.c2ln".into(),
            extra: Default::default(),
        })
        .unwrap();
    })
    .unwrap();
    c.connect().unwrap();
    let r = c
        .request_blocking("test/attest", json!({}))
        .expect("the fake accepted the answer");
    assert_eq!(r, json!({"token": "att.v1.eyJkZXZpY2UiOiJ0ZXN0In0.c2ln"}));
    assert_eq!(*asked.lock().unwrap(), Some(json!({})));
    c.disconnect();

    // Without the handler the request is refused with a JSON-RPC error, never answered empty.
    let c = fake_client(&[], fake_options(&["attestation"]));
    let e = c.request_blocking("test/attest", json!({})).unwrap_err();
    assert_eq!(e.rpc().map(|r| r.code), Some(-32600), "{e}");
    assert!(e.to_string().contains("attestation refused"), "{e}");
}
