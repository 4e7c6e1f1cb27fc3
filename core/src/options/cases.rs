//! The edge values of every option and what the core makes of them: the table the bindings'
//! tests walk to prove that C and Python give every option the meaning the core gives it.

use serde_json::{json, Value};

use super::keys::{ValueKind, KEYS};
use super::value::MAX_SECONDS;
use super::OptionsBuilder;

/// One edge value of one option and its outcome in the core.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OptionCase {
    /// The option.
    pub key: &'static str,
    /// The value set (JSON).
    pub value: Value,
    /// Whether [`OptionsBuilder::set`] takes it (on a builder with every default).
    pub ok: bool,
    /// The option's value afterwards ([`OptionsBuilder::get`]; unchanged when refused).
    pub effective: Value,
    /// Whether [`OptionsBuilder::build`] then succeeds (some options need others: headers an
    /// MCP HTTP transport, the `exec_*` options the exec transport).
    pub builds: bool,
}

/// Values worth trying for an option of `kind`.
fn edge_values(name: &str, kind: ValueKind) -> Vec<Value> {
    let mut v = vec![Value::Null, json!({"not": "this"})];
    v.extend(match kind {
        ValueKind::Bool => vec![json!(true), json!(false), json!(1), json!("yes")],
        ValueKind::String | ValueKind::Word => match name {
            "transport" => vec![
                json!("stdio"),
                json!("exec"),
                json!("mcp"),
                json!("ws://127.0.0.1:9/"),
                json!("mcp+stdio:server --flag"),
                json!("http://127.0.0.1:9/mcp"),
                json!("unix:///tmp/x.sock"),
                json!("ftp://nope"),
                json!(""),
            ],
            "delivery" => vec![json!("poll"), json!("callbacks"), json!("push")],
            "skill_emulation" => vec![
                json!("never"),
                json!("when_needed"),
                json!("always"),
                json!("sometimes"),
            ],
            "exec_sandbox_mode" => vec![json!("read-only"), json!("sandbox-ish")],
            "mcp_proxy" => vec![
                json!("none"),
                json!("http://127.0.0.1:3128"),
                json!("socks5://127.0.0.1:1080"),
                json!("x"),
                json!(""),
            ],
            "oauth_grant" => vec![
                json!("authorization_code"),
                json!("client_credentials"),
                json!("password"),
            ],
            "exec_approval_policy" => vec![json!("never"), json!("sometimes")],
            _ => vec![json!("x"), json!(""), json!(5)],
        },
        ValueKind::Path => vec![json!("/tmp/x y"), json!(""), json!(5)],
        ValueKind::Strings => vec![
            json!(["a", "b"]),
            json!([]),
            json!("a"),
            json!([1]),
            json!(["", "k"]),
        ],
        ValueKind::Pairs => vec![
            json!(["K=v", ["K2", "v 2"], ["N", 3]]),
            json!({"K": "v"}),
            json!(["Name: value"]),
            json!(["novalue"]),
            json!([["", "v"]]),
            json!("K=v"),
        ],
        ValueKind::Seconds => vec![
            json!(0),
            json!(0.001),
            json!(1.5),
            json!(0.01),
            json!(0.02),
            json!(MAX_SECONDS),
            json!(MAX_SECONDS + 1),
            json!(-1),
            json!("1"),
        ],
        ValueKind::Count => vec![
            json!(0),
            json!(1),
            json!(100),
            json!(1000),
            json!(1024),
            json!(1u64 << 40),
            json!((1u64 << 40) + 1),
            json!(-1),
            json!(1.5),
            json!("8"),
        ],
        ValueKind::Object => match name {
            "mcp_prior" => vec![
                json!({"kind": "legacy"}),
                json!({"kind": "modern", "discover": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}),
                json!({"kind": "modern", "discover": {"supportedVersions": ["2099-01-01"]}}),
                json!({"kind": "modern"}),
                json!({"kind": "stateless"}),
                json!("legacy"),
            ],
            _ => vec![json!({"roots": {}}), json!([]), json!("{}")],
        },
        ValueKind::Policy => vec![
            json!(true),
            json!(false),
            json!({"max_attempts": 3, "base": 0.1, "cap": 1, "interval": 2, "timeout": 3}),
            json!({"max_attempts": 3}),
            json!({"interval": 0}),
            json!({"bogus": 1}),
            json!(1),
        ],
        ValueKind::Roots => vec![
            json!(["file:///work", ["/tmp/a b", "A"], {"uri": "https://x/y", "name": null}]),
            json!(["/srv/dir"]),
            json!([5]),
            json!("file:///work"),
        ],
    });
    v
}

/// Every option's edge values with the outcome the core gives them (see [`OptionCase`]).
pub fn cases() -> Vec<OptionCase> {
    let mut out = Vec::new();
    for e in KEYS {
        for value in edge_values(e.key.name, e.key.kind) {
            let mut b = OptionsBuilder::new();
            let ok = b.set(e.key.name, value.clone()).is_ok();
            out.push(OptionCase {
                key: e.key.name,
                effective: (e.get)(&b),
                builds: b.build().is_ok(),
                value,
                ok,
            });
        }
    }
    out
}

/// [`cases`] as JSON: `[{"key", "value", "ok", "effective", "builds"}…]`.
pub fn cases_json() -> String {
    Value::from(
        cases()
            .into_iter()
            .map(|c| {
                json!({"key": c.key, "value": c.value, "ok": c.ok,
                       "effective": c.effective, "builds": c.builds})
            })
            .collect::<Vec<_>>(),
    )
    .to_string()
}
