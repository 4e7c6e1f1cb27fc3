//! The MCP client against servers written with the official SDKs (`testkit/sdk-servers`:
//! Python `mcp` 2.3.0 and TypeScript `@modelcontextprotocol/server` 2.4.0), from the scenario
//! table `testkit/sdk-servers/scenarios.json` that the C and Python tests run too: every row
//! (SDK × stdio/Streamable HTTP × era mode: `legacy`, `auto`, the pinned `2026-07-28`) connects,
//! checks the era it got, and runs the steps — tools with structured output, progress (and the
//! timeout it restarts), elicitation and sampling (server requests in the handshake era,
//! input-required rounds in 2026-07-28, answered by the same handlers), resources and templates,
//! prompts, completion, logging (`logging/setLevel` or the envelope's level), a task, and a
//! server restart mid-use (a new session in the handshake era; nothing to renew in the
//! stateless one). The Rust runner uses the typed helpers and compares their results in the
//! wire's shape. Plus: a renewal shared by requests in flight at once.

mod support;

use codex_client::mcp::TaskCall;
use codex_client::protocol::mcp::era::EraMode;
use codex_client::{ClientOptions, Error, McpClient, RequestOptions};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use support::sdk::{Sdk, SdkHttp};
use support::*;

use futures_executor::block_on as b;

const WAIT: Duration = Duration::from_secs(30);

fn table() -> Value {
    let path = repo_root().join("testkit/sdk-servers/scenarios.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Server requests handled, counted by method.
type Handled = Arc<Mutex<HashMap<String, usize>>>;

/// A client with handlers: sampling answers with a fixed model and text, elicitation accepts
/// with `name: Ada` (each counted by method); every notification goes to the returned channel.
fn client(
    opts: ClientOptions,
    mode: EraMode,
) -> (McpClient, mpsc::Receiver<(String, Value)>, Handled) {
    init_tracing();
    let c = McpClient::new(opts.default_timeout(WAIT).mcp_protocol(mode));
    let (tx, rx) = mpsc::channel();
    c.on_notification(move |n| {
        let _ = tx.send((n.method.clone(), n.params_value()));
    })
    .unwrap();
    let handled = Arc::new(Mutex::new(HashMap::new()));
    let h = handled.clone();
    c.on_server_request(move |req| {
        *h.lock().unwrap().entry(req.method.clone()).or_insert(0) += 1;
        match req.method.as_str() {
            "sampling/createMessage" => {
                let asked = req.params_value()["messages"][0]["content"]["text"].clone();
                req.respond(&json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": format!("short ({})", asked.as_str().unwrap_or(""))},
                    "model": "test-model",
                    "stopReason": "endTurn"
                }))
                .unwrap();
            }
            "elicitation/create" => req
                .respond(&json!({"action": "accept", "content": {"name": "Ada"}}))
                .unwrap(),
            _ => drop(req),
        }
    })
    .unwrap();
    (c, rx, handled)
}

/// `$word` replaced by its variable (a string), anything else as it is.
fn subst(v: &Value, vars: &HashMap<String, String>) -> Value {
    match v.as_str().and_then(|s| s.strip_prefix('$')) {
        Some(name) => Value::String(
            vars.get(name)
                .unwrap_or_else(|| panic!("no variable ${name}"))
                .clone(),
        ),
        None => v.clone(),
    }
}

/// JSON equality with numbers compared as numbers (`3` = `3.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The values at `pointer`; a `*` segment stands for every element of the array there.
fn values_at<'a>(v: &'a Value, pointer: &str) -> Vec<&'a Value> {
    match pointer.split_once("/*") {
        None => v.pointer(pointer).into_iter().collect(),
        Some((head, rest)) => v
            .pointer(head)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .flat_map(|e| values_at(e, rest))
            .collect(),
    }
}

/// One check `[pointer, op, value]` on `v`.
fn check(v: &Value, c: &Value, vars: &HashMap<String, String>) -> bool {
    let (pointer, op) = (c[0].as_str().unwrap(), c[1].as_str().unwrap());
    let want = subst(&c[2], vars);
    let got = values_at(v, pointer);
    match op {
        "=" => got.len() == 1 && same(got[0], &want),
        "!=" => !got.iter().any(|g| same(g, &want)),
        "has" => got.iter().any(|g| same(g, &want)),
        "contains" => got
            .first()
            .and_then(|g| g.as_str())
            .is_some_and(|s| s.contains(want.as_str().unwrap())),
        "len" => got
            .first()
            .and_then(|g| g.as_array())
            .is_some_and(|a| a.len() as u64 == want.as_u64().unwrap()),
        other => panic!("unknown check op {other}"),
    }
}

fn check_all(what: &str, v: &Value, step: &Value, vars: &HashMap<String, String>) {
    for c in step["expect"].as_array().into_iter().flatten() {
        assert!(check(v, c, vars), "{what}: {c} does not hold for {v}");
    }
}

/// The typed helper of request `name`, its result in the wire's shape.
fn typed(
    c: &McpClient,
    step: &Value,
    vars: &HashMap<String, String>,
) -> codex_client::Result<Value> {
    let subject = step.get("subject").map(|s| subst(s, vars));
    let subject = subject.as_ref().and_then(Value::as_str).unwrap_or("");
    let args = step.get("arguments").cloned().unwrap_or(Value::Null);
    let opts = match step["timeout_ms"].as_u64() {
        Some(ms) => RequestOptions::timeout(Duration::from_millis(ms)),
        None => RequestOptions::default(),
    };
    let m = c.mcp_with(opts);
    let v = |x: &dyn erased::Ser| x.value();
    Ok(match step["request"].as_str().unwrap() {
        "list_tools" => json!({"tools": v(&b(m.list_all_tools())?)}),
        "call_tool" => v(&b(m.call_tool(subject, args))?),
        "list_resources" => json!({"resources": v(&b(m.list_all_resources())?)}),
        "list_resource_templates" => {
            json!({"resourceTemplates": v(&b(m.list_all_resource_templates())?)})
        }
        "read_resource" => json!({"contents": v(&b(m.read_resource(subject))?)}),
        "list_prompts" => json!({"prompts": v(&b(m.list_all_prompts())?)}),
        "get_prompt" => v(&b(m.get_prompt(subject, args))?),
        "complete" => {
            let arg = &args["argument"];
            let done = b(m.complete(
                args["ref"].clone(),
                arg["name"].as_str().unwrap(),
                arg["value"].as_str().unwrap(),
            ))?;
            json!({"completion": v(&done)})
        }
        "set_logging_level" => {
            b(m.set_logging_level(subject))?;
            json!({})
        }
        "ping" => {
            b(m.ping())?;
            json!({})
        }
        "call_tool_as_task" => match b(c.call_tool_as_task(subject, args, None))? {
            TaskCall::Task(t) => json!({"task": v(&t)}),
            other => panic!("not run as a task: {other:?}"),
        },
        "get_task" => v(&b(c.get_task(subject))?),
        "list_tasks" => {
            json!({"tasks": v(&b(c.list_tasks(None))?.items)})
        }
        "cancel_task" => v(&b(c.cancel_task(subject))?),
        "task_result" => b(c.task_result(subject))?,
        other => panic!("no typed helper for {other}"),
    })
}

/// Serialising the typed results without naming each type.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}

/// Whether `step` applies to the row (its `transport` and `era` filters).
fn applies(step: &Value, row: &Value) -> bool {
    ["transport", "era"]
        .iter()
        .all(|k| step.get(*k).is_none_or(|want| *want == row[*k]))
}

/// Connect the row's client, check the era it got, run every step.
fn run_row(index: usize) {
    let t = table();
    let row = &t["rows"][index];
    let sdk = match row["sdk"].as_str().unwrap() {
        "python" => Sdk::Python,
        _ => Sdk::TypeScript,
    };
    let label = row.to_string();
    let server = t["servers"][row["sdk"].as_str().unwrap()].clone();
    let mut vars: HashMap<String, String> = HashMap::new();
    for k in ["name", "greeting"] {
        vars.insert(k.into(), server[k].as_str().unwrap().into());
    }
    let mut http = (row["transport"] == "http").then(|| SdkHttp::start(sdk));
    let opts = http.as_ref().map_or_else(|| sdk.stdio(), SdkHttp::options);
    let mode = EraMode::parse(row["mode"].as_str().unwrap()).unwrap();
    let (c, notes, handled) = client(opts, mode);

    let init = c.connect().unwrap();
    let era = &t["eras"][row["era"].as_str().unwrap()];
    assert_eq!(init.mcp_era(), era["era"], "{label}: the era negotiated");
    assert_eq!(
        init.protocol_version(),
        era["protocolVersion"].as_str(),
        "{label}"
    );
    assert_eq!(
        init.server_info().unwrap()["name"],
        server["name"],
        "{label}"
    );
    let caps = init.mcp_capabilities().unwrap();
    assert!(
        caps.tools.is_some() && caps.prompts.is_some() && caps.resources.is_some(),
        "{label}: {caps:?}"
    );
    assert!(caps.completions.is_some(), "{label}: {caps:?}");

    for (i, step) in t["steps"].as_array().unwrap().iter().enumerate() {
        if !applies(step, row) {
            continue;
        }
        let what = format!("{label} step {i} {step}");
        let before = |m: &str| handled.lock().unwrap().get(m).copied().unwrap_or(0);
        let handled_before = step["handled"].as_str().map(before);
        match step["do"].as_str().unwrap() {
            "request" => {
                let got = typed(&c, step, &vars);
                let answered = match (&step["error"], got) {
                    (Value::Null, Ok(v)) => v,
                    (Value::Null, Err(e)) => panic!("{what}: {e:?}"),
                    (want, Ok(v)) if *want == "any" => {
                        assert_eq!(v["isError"], true, "{what}");
                        v
                    }
                    (want, Ok(v)) => panic!("{what}: answered {v}, not error {want}"),
                    (want, Err(e)) => match (want.as_str(), e) {
                        (Some("any"), _) | (Some("timeout"), Error::Timeout { .. }) => Value::Null,
                        (None, Error::Rpc(r)) if want.as_i64() == Some(r.code) => Value::Null,
                        (_, e) => panic!("{what}: {e:?}, not error {want}"),
                    },
                };
                check_all(&what, &answered, step, &vars);
                for (name, pointer) in step["save"].as_object().into_iter().flatten() {
                    let got = answered.pointer(pointer.as_str().unwrap());
                    let got = got
                        .and_then(Value::as_str)
                        .unwrap_or_else(|| panic!("{what}: no {pointer}"));
                    vars.insert(name.clone(), got.to_owned());
                }
            }
            "progress" => {
                let opts = match step["timeout_ms"].as_u64() {
                    Some(ms) => RequestOptions::timeout(Duration::from_millis(ms)),
                    None => RequestOptions::default(),
                };
                let mut seen = Vec::new();
                let done = b(c.call_tool_with_progress(
                    step["subject"].as_str().unwrap(),
                    step["arguments"].clone(),
                    opts,
                    |p| seen.push(json!([p.progress, p.total, p.message])),
                ))
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
                check_all(&what, &serde_json::to_value(&done).unwrap(), step, &vars);
                if let Some(want) = step["progress"].as_array() {
                    assert_eq!(want.len(), seen.len(), "{what}: {seen:?}");
                    for (w, s) in want.iter().zip(&seen) {
                        for k in 0..3 {
                            assert!(same(&w[k], &s[k]), "{what}: {seen:?}");
                        }
                    }
                }
                if let Some(n) = step["progress_count"].as_u64() {
                    assert_eq!(seen.len() as u64, n, "{what}");
                }
            }
            "notification" => {
                let method = step["method"].as_str().unwrap();
                let params = wait_note(&notes, method, WAIT, |_| true);
                check_all(&what, &params, step, &vars);
            }
            "poll" => {
                let end = Instant::now() + WAIT;
                loop {
                    let v = typed(&c, step, &vars).unwrap();
                    if check(&v, &step["until"], &vars) {
                        break;
                    }
                    assert!(Instant::now() < end, "{what}: still {v}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            "restart" => http.as_mut().expect("an HTTP row").restart(),
            other => panic!("unknown step {other}"),
        }
        if let (Some(m), Some(n)) = (step["handled"].as_str(), handled_before) {
            assert_eq!(before(m), n + 1, "{what}: the handler answered {m} once");
        }
    }
    c.disconnect();
}

/// One test per row of the table (rows run in parallel); `rows_are_the_table` keeps the count.
macro_rules! rows {
    ($($name:ident = $i:expr;)*) => {
        $(#[test]
        fn $name() {
            run_row($i);
        })*
        #[test]
        fn rows_are_the_table() {
            let t = table();
            assert_eq!(t["rows"].as_array().unwrap().len(), [$($i),*].len());
        }
    };
}

rows! {
    row0_python_stdio_legacy = 0;
    row1_python_stdio_auto = 1;
    row2_python_http_legacy = 2;
    row3_python_http_pinned_2026_07_28 = 3;
    row4_typescript_stdio_legacy = 4;
    row5_typescript_stdio_auto = 5;
    row6_typescript_http_legacy = 6;
    row7_typescript_http_auto = 7;
}

/// The server restarts (so it forgets the session) while requests are in flight at once: one
/// renewal serves them all, and the caller sees only the answers.
fn renewal_shared_by_requests_in_flight(sdk: Sdk) {
    let mut server = SdkHttp::start(sdk);
    let (c, _notes, _handled) = client(server.options(), EraMode::Legacy);
    c.connect().unwrap();
    let sum = b(c.call_tool("add", json!({"a": 1, "b": 2}))).unwrap();
    assert_eq!(sum.structured_content.unwrap()["sum"], 3.0);
    server.restart();
    let calls: Vec<_> = (0..4)
        .map(|i| c.call_tool("add", json!({"a": i, "b": 1})))
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let r = b(call).unwrap();
        assert_eq!(r.structured_content.unwrap()["sum"], i as f64 + 1.0);
    }
    b(c.ping()).unwrap();
    c.disconnect();
}

#[test]
fn python_sdk_renewal_shared_by_requests_in_flight() {
    renewal_shared_by_requests_in_flight(Sdk::Python);
}

#[test]
fn typescript_sdk_renewal_shared_by_requests_in_flight() {
    renewal_shared_by_requests_in_flight(Sdk::TypeScript);
}

/// 2026-07-28 `subscriptions/listen` against both SDKs' servers over stdio: the server
/// acknowledges the filter; the handshake era refuses it (it has `resources/subscribe`).
#[test]
fn listen_is_acknowledged_in_the_stateless_era() {
    for sdk in Sdk::ALL {
        let (c, _notes, _handled) = client(sdk.stdio(), EraMode::Auto);
        assert_eq!(c.connect().unwrap().mcp_era(), "stateless");
        let filter =
            json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://greeting"]});
        let listen = b(c.listen(filter, WAIT)).unwrap_or_else(|e| panic!("{sdk:?}: {e:?}"));
        assert_eq!(
            listen.acknowledged()["toolsListChanged"],
            true,
            "{sdk:?}: {listen:?}"
        );
        drop(listen);
        // The connection goes on after the stream closed.
        let sum = b(c.call_tool("add", json!({"a": 1, "b": 0.5}))).unwrap();
        assert_eq!(sum.structured_content.unwrap()["sum"], 1.5);
        c.disconnect();

        let (c, _notes, _handled) = client(sdk.stdio(), EraMode::Legacy);
        c.connect().unwrap();
        assert!(matches!(
            b(c.listen(json!({}), WAIT)),
            Err(Error::Unsupported(_))
        ));
        c.disconnect();
    }
}
