//! The serialisable forms of issue 40 and answering a server request by reference: against
//! the fake server for what the real Codex cannot be made to do on demand (a request the
//! server resolves itself, a link that dies and comes back, the bound passing), against the
//! real Codex 0.171.0 and the mock model for the approval flow and `thread/resume` from a
//! thread reference. Its own test binary: it installs the process's log sink.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use codex_client::log::{forward_logs, LogRecord};
use codex_client::{
    Client, CodexClient, ConnectionEvent, Decision, Delivery, Error, Event, ReconnectPolicy,
    RequestRef, ServerRequest, ThreadRef,
};
use serde_json::{json, Value};
use support::*;

/// The process's one log sink (installed by the first caller; each test looks for its own
/// records).
fn capture() -> Arc<Mutex<Vec<LogRecord>>> {
    static LOGS: std::sync::OnceLock<Arc<Mutex<Vec<LogRecord>>>> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let l2 = logs.clone();
        forward_logs(tracing::Level::DEBUG, move |r| l2.lock().unwrap().push(r)).unwrap();
        logs
    })
    .clone()
}

/// A poll-mode client of the fake server (`modes`), labelled `label`, with parked requests
/// bounded by `bound`, connected.
fn fake(label: &str, modes: &[&str], bound: Duration) -> Client {
    let c = Client::new(
        fake_options(modes)
            .delivery(Delivery::Poll)
            .label(label)
            .parked_request_timeout(bound),
    );
    c.connect().expect("connect to the fake server");
    c
}

/// Pull events until `pred` takes one (10 s at most).
fn next_matching(c: &Client, mut pred: impl FnMut(&Event) -> bool) -> Event {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "the event never came");
        if let Some(ev) = c.next_event(Some(left)).expect("connection alive") {
            if pred(&ev) {
                return ev;
            }
        }
    }
}

/// The fake server's next approval request (after asking it for one).
fn approval(c: &Client) -> ServerRequest {
    c.request_blocking("test/approval", json!({})).unwrap();
    match next_matching(c, |e| matches!(e, Event::ServerRequest(_))) {
        Event::ServerRequest(r) => r,
        _ => unreachable!(),
    }
}

/// Every answer the fake server got so far.
fn answers(c: &Client) -> Vec<Value> {
    let v = c.request_blocking("test/lastAnswers", json!({})).unwrap();
    v["answers"].as_array().cloned().unwrap_or_default()
}

const LONG: Duration = Duration::from_secs(600);

#[test]
fn labels_tag_events_and_references_and_client_ids_are_random() {
    let c = fake("east", &["approval"], LONG);
    assert_eq!(c.label(), Some("east"));
    let other = fake("", &["approval"], LONG);
    assert_eq!(other.label(), None, "an empty label is none");
    for id in [c.id(), other.id()] {
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.chars().all(|ch| ch.is_ascii_hexdigit()), "{id}");
    }
    assert_ne!(c.id(), other.id());
    assert_eq!(c.clone().id(), c.id(), "clones share the id");

    c.request_blocking("thread/start", json!({})).unwrap();
    let Event::Notification(n) = next_matching(&c, |e| matches!(e, Event::Notification(_))) else {
        unreachable!()
    };
    assert_eq!(n.method, "thread/started");
    assert_eq!(n.endpoint(), Some("east"));
    // The serialised form carries it and gives it back.
    let back: Event =
        serde_json::from_str(&serde_json::to_string(&Event::Notification(n)).unwrap()).unwrap();
    assert!(matches!(&back, Event::Notification(n) if n.endpoint() == Some("east")));

    let r = approval(&c);
    assert_eq!(r.endpoint(), Some("east"));
    let reference = r.reference();
    assert_eq!(reference.owner, c.id());
    assert_eq!(reference.endpoint.as_deref(), Some("east"));
    assert_eq!(reference.thread_id().as_deref(), Some("thr_fake_1"));
    assert_eq!(reference.turn_id().as_deref(), Some("turn_1"));
    r.respond_decision(Decision::Decline).unwrap();

    other.request_blocking("thread/start", json!({})).unwrap();
    let Event::Notification(n) = next_matching(&other, |e| matches!(e, Event::Notification(_)))
    else {
        unreachable!()
    };
    assert_eq!(n.endpoint(), None);
    assert!(!n.to_json().contains("endpoint"));
}

#[test]
fn a_serialised_request_is_parked_and_answered_once_by_reference() {
    let c = fake("east", &["approval"], LONG);
    let json = serde_json::to_string(&Event::ServerRequest(approval(&c))).unwrap();
    // Every local handle is gone: parked, it is not answered fail-closed.
    assert!(answers(&c).is_empty(), "a parked request was answered");

    // Elsewhere: the event comes back holding a detached request.
    let Event::ServerRequest(detached) = Event::from_json(&json).unwrap() else {
        panic!("{json}")
    };
    assert!(detached.is_detached() && !detached.is_open());
    let e = detached.respond_decision(Decision::Accept).unwrap_err();
    assert!(matches!(e, Error::InvalidState(_)), "{e}");
    assert!(e.to_string().contains("respond_ref"), "{e}");
    let ref_json = detached.reference().to_json();

    // Back on the owning client, by its JSON form.
    c.respond_ref_json(&ref_json, r#"{"decision":"accept"}"#)
        .unwrap();
    let a = answers(&c);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["result"]["decision"], "accept");
    // Twice: refused, nothing more sent.
    let r = RequestRef::from_json(&ref_json).unwrap();
    let twice = c.respond_ref_decision(&r, Decision::Decline).unwrap_err();
    assert!(matches!(twice, Error::AlreadyResponded), "{twice}");
    assert_eq!(answers(&c).len(), 1);

    // A request kept locally and parked: answered through its own handle, the parked copy
    // goes (a reference then finds it answered).
    let live = approval(&c);
    assert!(live.park());
    let r = live.reference();
    live.respond_decision(Decision::Decline).unwrap();
    assert!(matches!(
        c.respond_ref_decision(&r, Decision::Accept),
        Err(Error::AlreadyResponded)
    ));
    let a = answers(&c);
    assert_eq!(a.len(), 2);
    assert_eq!(a[1]["result"]["decision"], "decline");

    // A reference of a request that was not parked but is still held here answers too.
    let held = approval(&c);
    c.respond_ref_error(
        &held.reference(),
        &codex_client::RpcError::new(-32000, "no", None),
    )
    .unwrap();
    assert!(!held.is_open());
    let a = answers(&c);
    assert_eq!(a[2]["error"]["code"], -32000, "{a:?}");
}

#[test]
fn another_clients_reference_and_a_resolved_request_are_clear_errors() {
    let a = fake("east", &["approval"], LONG);
    let b = fake("west", &["approval"], LONG);
    let req = approval(&a);
    let r = req.reference();
    assert!(req.park());
    drop(req);
    let e = b.respond_ref_decision(&r, Decision::Accept).unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    for part in [a.id(), b.id(), "`east`", "`west`"] {
        assert!(m.contains(part), "{m} should name {part}");
    }
    // A reference naming another method than the request of that id.
    let mut forged = r.clone();
    forged.method = "item/fileChange/requestApproval".into();
    let e = a
        .respond_ref_decision(&forged, Decision::Accept)
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(answers(&a).is_empty() && answers(&b).is_empty());

    // The server resolves it itself: a late answer is refused, nothing is sent.
    a.request_blocking("test/resolve", json!({"requestId": r.id}))
        .unwrap();
    next_matching(
        &a,
        |e| matches!(e, Event::Notification(n) if n.method == "serverRequest/resolved"),
    );
    let late = a.respond_ref_decision(&r, Decision::Accept).unwrap_err();
    assert!(matches!(late, Error::AlreadyResponded), "{late}");
    assert!(
        answers(&a).is_empty(),
        "nothing answered after the server resolved it"
    );
}

#[test]
fn a_parked_request_nobody_answers_is_declined_at_its_bound_and_says_so() {
    let logs = capture();
    let c = fake("bounded", &["approval"], Duration::from_millis(300));
    let json = approval(&c).to_json();
    assert!(answers(&c).is_empty());
    assert!(
        wait_until(Duration::from_secs(10), || answers(&c).len() == 1),
        "the parked request was never answered at its bound"
    );
    assert_eq!(answers(&c)[0]["result"]["decision"], "decline");
    let warned = wait_until(Duration::from_secs(5), || {
        logs.lock().unwrap().iter().any(|l| {
            l.level == tracing::Level::WARN
                && l.message
                    .contains("parked server request not answered within 300ms")
                && l.message.contains("endpoint=bounded")
        })
    });
    assert!(warned, "no WARNING line for the bound");
    let late = c
        .respond_ref_json(&json, r#"{"decision":"accept"}"#)
        .unwrap_err();
    assert!(matches!(late, Error::AlreadyResponded), "{late}");
    assert_eq!(answers(&c).len(), 1);

    // Parking off (0): serialising keeps nothing, the dropped request is declined at once.
    let off = fake("off", &["approval"], Duration::ZERO);
    assert_eq!(off.options().get_parked_request_timeout(), Duration::ZERO);
    let req = approval(&off);
    let _ = req.to_json();
    assert!(!req.park());
    drop(req);
    let a = answers(&off);
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["result"]["decision"], "decline");
}

#[test]
fn references_of_a_lost_or_ended_connection_are_refused_clearly() {
    let c = Client::new(
        fake_options(&["approval", "die"])
            .delivery(Delivery::Poll)
            .label("east")
            .reconnect(Some(ReconnectPolicy::new(
                5,
                Duration::from_millis(20),
                Duration::from_millis(200),
            ))),
    );
    c.connect().unwrap();
    let old = approval(&c);
    let old_ref = old.reference();
    assert!(old.park());
    drop(old);
    assert!(matches!(
        c.request_blocking("test/die", json!({})),
        Err(Error::ConnectionLost(_))
    ));
    next_matching(&c, |e| {
        matches!(e, Event::Connection(ConnectionEvent::Reconnected(_)))
    });
    let e = c
        .respond_ref_decision(&old_ref, Decision::Accept)
        .unwrap_err();
    assert!(matches!(e, Error::ConnectionLost(_)), "{e}");
    assert!(
        e.to_string().contains("was lost; the client reconnected"),
        "{e}"
    );

    // A request of the new link, then the client disconnects: its connection has ended.
    let now = approval(&c);
    assert_ne!(now.reference().connection, old_ref.connection);
    let now_ref = now.reference();
    assert!(now.park());
    drop(now);
    c.disconnect();
    let e = c
        .respond_ref_decision(&now_ref, Decision::Accept)
        .unwrap_err();
    assert!(matches!(e, Error::Disconnected(_)), "{e}");
    assert!(e.to_string().contains("not connected"), "{e}");
    // Connected again: still a reference of an ended connection.
    c.connect().unwrap();
    let e = c
        .respond_ref_decision(&now_ref, Decision::Accept)
        .unwrap_err();
    assert!(matches!(e, Error::Disconnected(_)), "{e}");
    assert!(e.to_string().contains("connected again since"), "{e}");
    assert!(answers(&c).is_empty(), "the new server got no answer");
}

#[test]
fn an_approval_answered_by_reference_from_elsewhere_runs_the_command_on_real_codex() {
    let env = RealEnv::new();
    let c = CodexClient::new(env.options().label("worker-1"));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let tx = Mutex::new(tx);
    // The handler serialises the request (parking it) and lets its handle go.
    c.on_server_request(move |r| {
        let _ = tx.lock().unwrap().send(r.to_json());
    })
    .unwrap();
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let marker = env.work.path().join("ran.txt");
    let prompt = format!("MOCK_EXEC: touch {} && echo ran-ok", marker.display());
    let running = std::thread::spawn(move || thread.run(prompt.as_str()));

    // Elsewhere: only the JSON text; a handler there decides.
    let json = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the approval came");
    let seen = ServerRequest::from_ref(RequestRef::from_json(&json).unwrap());
    assert_eq!(seen.method, "item/commandExecution/requestApproval");
    assert_eq!(seen.endpoint(), Some("worker-1"));
    assert!(seen.params_value()["command"]
        .as_str()
        .unwrap()
        .contains("echo ran-ok"));
    assert!(matches!(
        seen.respond_decision(Decision::Accept),
        Err(Error::InvalidState(_))
    ));
    // Typed as the live request would be.
    assert!(matches!(
        seen.reference().typed(),
        codex_client::protocol::ServerRequestKind::ItemCommandExecutionRequestApproval(_)
    ));
    let decision = if seen.params_value()["command"]
        .as_str()
        .unwrap()
        .contains("ran-ok")
    {
        Decision::Accept
    } else {
        Decision::Decline
    };
    // The answer comes back to the owning client.
    c.respond_ref_decision(&seen.reference(), decision).unwrap();
    let result = running.join().unwrap().expect("the turn ran");
    assert_eq!(result.status, "completed");
    assert!(marker.exists(), "the accepted command ran");
    let cmd = result
        .items
        .iter()
        .find(|i| i["type"] == "commandExecution")
        .expect("a command item");
    assert_eq!(cmd["status"], "completed", "{cmd}");
    let twice = c
        .respond_ref_decision(&seen.reference(), Decision::Decline)
        .unwrap_err();
    assert!(matches!(twice, Error::AlreadyResponded), "{twice}");
    // The turn result travels too.
    let back: codex_client::TurnResult =
        serde_json::from_str(&serde_json::to_string(&result).unwrap()).unwrap();
    assert_eq!(back, result);
    c.disconnect();
}

#[test]
fn a_thread_reference_resumes_the_thread_on_a_second_client_of_the_same_home() {
    let env = RealEnv::new();
    let a = CodexClient::new(env.options().label("a"));
    a.connect().unwrap();
    let thread = a
        .thread_start(json!({"approvalPolicy": "never", "developerInstructions": "be brief"}))
        .unwrap();
    let first = thread.run("MOCK_TEXT: first answer").unwrap();
    assert_eq!(first.final_response.as_deref(), Some("first answer"));
    let reference = thread.reference();
    assert_eq!(reference.endpoint.as_deref(), Some("a"));
    assert_eq!(reference.thread_id, thread.id());
    for k in [
        "cwd",
        "model",
        "modelProvider",
        "approvalPolicy",
        "developerInstructions",
    ] {
        assert!(
            reference.resume.contains_key(k),
            "{k} missing: {:?}",
            reference.resume
        );
    }
    assert_eq!(reference.resume["approvalPolicy"], "never");
    let json = serde_json::to_string(&reference).unwrap();
    a.disconnect();

    // Another process, another server of the same CODEX_HOME.
    let back: ThreadRef = serde_json::from_str(&json).unwrap();
    assert_eq!(back, reference);
    let b = CodexClient::new(env.options().label("b"));
    b.connect().unwrap();
    let resumed = b.thread_resume_ref(&back, Value::Null).unwrap();
    assert_eq!(resumed.id(), reference.thread_id);
    assert_eq!(resumed.reference().endpoint.as_deref(), Some("b"));
    let second = resumed.run("MOCK_TEXT: second answer").unwrap();
    assert_eq!(second.final_response.as_deref(), Some("second answer"));
    let read = resumed.read(true).unwrap();
    let turns = read["thread"]["turns"].as_array().map_or(0, Vec::len);
    assert_eq!(turns, 2, "the resumed thread holds both turns: {read}");
    // Overrides go on top; a bad one is refused before anything is sent.
    assert!(matches!(
        b.thread_resume_ref(&back, json!([1])),
        Err(Error::InvalidArgument(_))
    ));
    b.disconnect();
}
