//! The supported window, proven: for every vendored Codex version (`schema/codex-*/`, so a
//! new version is covered as soon as its schema is vendored) and every server notification's
//! params, every server request's params and every client method's response type, random
//! schema-valid instances decode with the generated types
//! - without an error,
//! - without any `Unknown` fallback at any depth (every tag in a schema-valid value is known),
//! - without fields in `extra` other than the unknown members the test adds on purpose,
//! - and re-serialise without losing anything (the added unknown members included).
//!
//! Fallbacks are seen through [`drift::watch`](super::drift::watch); for notifications and
//! server requests the `Debug` form of the decoded value is also searched for `Unknown(`, so a
//! fallback the generated code forgot to report is caught too.
//!
//! A failing instance is shrunk (members and elements removed, strings and numbers zeroed,
//! keeping it schema-valid: checked with the `jsonschema` crate against the bundle) before it is
//! reported with the version, the type and the JSON path. `CODEX_WINDOW_SEED` changes the seed,
//! `CODEX_WINDOW_INSTANCES` raises the number of instances per type (never below 200).

mod instances;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde_json::{json, Map, Value};

use super::drift::{self, Fallback, FallbackKind};
use super::generated::ROUNDTRIP;
use super::{ServerNotification, ServerRequestKind};
use instances::{Bundle, Gen, Instance, UNKNOWN_PREFIX};

/// Instances per type per version: the floor the window's promise is measured by.
const INSTANCES: usize = 200;
/// Nesting below which every alternative is drawn at random.
const MAX_DEPTH: u32 = 5;
/// Chance (percent) that an object with declared properties gets an unknown member.
const INJECT_PERCENT: u8 = 30;
/// Instances per type whose schema-validity is checked with `jsonschema` (the generator's own
/// test; every shrunk candidate is checked too).
const VALIDATED: usize = 3;
/// Decodes one shrink may try.
const SHRINK_BUDGET: usize = 4000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Notification,
    ServerRequest,
    Response,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Notification => "notification",
            Kind::ServerRequest => "server request",
            Kind::Response => "response of",
        }
    }
}

/// One type to draw: the params of a notification or server request, or a method's response.
struct Root {
    kind: Kind,
    method: String,
    /// The schema definition's name (the generated type's name), if the schema names one.
    type_name: Option<String>,
    schema: Value,
    /// A hash of the schema and every definition it reaches: equal in two versions, the
    /// instances (drawn from a seed that does not depend on the version) are the same values.
    fingerprint: u64,
}

impl Root {
    fn key(&self) -> String {
        format!("{:?} {}", self.kind, self.method)
    }

    fn describe(&self) -> String {
        format!(
            "{} {} ({})",
            self.kind.label(),
            self.method,
            self.type_name.as_deref().unwrap_or("inline schema")
        )
    }
}

struct Version {
    name: String,
    bundle: Bundle,
    roots: Vec<Root>,
    /// Client methods whose response type the schema does not name (nothing to draw).
    unnamed_responses: Vec<String>,
    validator: OnceLock<jsonschema::Validator>,
}

impl Version {
    /// One validator per version: each root is a property of a wrapper object.
    fn validator(&self) -> &jsonschema::Validator {
        self.validator.get_or_init(|| {
            let props: Map<String, Value> = self
                .roots
                .iter()
                .map(|r| (r.key(), r.schema.clone()))
                .collect();
            let schema = json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": self.bundle.root()["definitions"],
                "type": "object",
                "properties": props,
            });
            jsonschema::draft7::new(&schema).expect("the vendored bundle compiles as draft-07")
        })
    }

    /// Whether `value` (unknown members the test added left out) is a valid instance of `root`.
    fn valid(&self, root: &Root, value: &Value) -> Result<(), String> {
        let wrapped = json!({ root.key(): without_unknown(value) });
        self.validator()
            .validate(&wrapped)
            .map_err(|e| format!("{e} at {}", e.instance_path()))
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `schema/codex-<version>/`, oldest first.
fn version_dirs() -> Vec<(String, PathBuf)> {
    let dir = repo_root().join("schema");
    let mut out: Vec<(Vec<u64>, String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_str()?.strip_prefix("codex-")?.to_owned();
            let key = name.split('.').map(|p| p.parse().unwrap_or(0)).collect();
            Some((key, name, e.path()))
        })
        .collect();
    out.sort();
    out.into_iter().map(|(_, n, p)| (n, p)).collect()
}

/// Client methods whose response type does not follow `XxxParams` -> `XxxResponse`: the
/// generator's table, as it writes it into `core/src/compat/vendored-schema.json`.
fn response_overrides() -> Map<String, Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/compat/vendored-schema.json");
    let table: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    table["response_overrides"]
        .as_object()
        .cloned()
        .unwrap_or_default()
}

/// Where definition `name` is in the bundle (`#/definitions/X` or `#/definitions/v2/X`).
fn definition_ref(bundle: &Value, name: &str) -> Option<String> {
    let defs = &bundle["definitions"];
    if name != "v2" && defs.get(name).is_some() {
        Some(format!("#/definitions/{name}"))
    } else if defs["v2"].get(name).is_some() {
        Some(format!("#/definitions/v2/{name}"))
    } else {
        None
    }
}

/// The definition name a params schema refers to (directly, or as the one non-null
/// alternative of a nullable union).
fn params_name(p: &Value) -> Option<String> {
    if let Some(r) = p.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().map(str::to_owned);
    }
    let alts = p.get("anyOf").or_else(|| p.get("oneOf"))?.as_array()?;
    let non_null: Vec<&Value> = alts.iter().filter(|a| a["type"] != "null").collect();
    match non_null.as_slice() {
        [one] => params_name(one),
        _ => None,
    }
}

/// `(method, params schema)` of each member of envelope `name`.
fn envelope(bundle: &Value, name: &str) -> Vec<(String, Value)> {
    let alts = bundle["definitions"][name]["oneOf"]
        .as_array()
        .unwrap_or_else(|| panic!("no {name} envelope"));
    alts.iter()
        .map(|a| {
            let m = &a["properties"]["method"];
            let method = m["enum"][0]
                .as_str()
                .or_else(|| m["const"].as_str())
                .unwrap_or_else(|| panic!("{name} member without a method: {a}"));
            let params = a["properties"]
                .get("params")
                .cloned()
                .unwrap_or(json!({"type": "null"}));
            (method.to_owned(), params)
        })
        .collect()
}

/// A version's `--experimental` bundle.
fn read_bundle(dir: &Path) -> Value {
    let path = dir.join("experimental/codex_app_server_protocol.schemas.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The response type the schema names for each client method of `doc` (the generator's
/// `response_overrides`, else `XxxParams` -> `XxxResponse`).
fn named_responses(doc: &Value, overrides: &Map<String, Value>) -> BTreeMap<String, String> {
    envelope(doc, "ClientRequest")
        .into_iter()
        .filter_map(|(method, params)| {
            let by_convention = params_name(&params)
                .and_then(|p| p.strip_suffix("Params").map(|s| format!("{s}Response")));
            let name = overrides
                .get(&method)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or(by_convention)
                .filter(|n| definition_ref(doc, n).is_some())?;
            Some((method, name))
        })
        .collect()
}

/// The roots of version `name`. `responses`: the response type of each client method as any
/// version of the window names it (one generated type serves the method in every version; a
/// version whose method takes no params names none itself).
fn load(name: String, doc: Value, responses: &BTreeMap<String, String>) -> Version {
    let mut roots = Vec::new();
    for (kind, env) in [
        (Kind::Notification, "ServerNotification"),
        (Kind::ServerRequest, "ServerRequest"),
    ] {
        for (method, params) in envelope(&doc, env) {
            roots.push(Root {
                kind,
                type_name: params_name(&params),
                method,
                schema: params,
                fingerprint: 0,
            });
        }
    }
    let mut unnamed_responses = Vec::new();
    for (method, _) in envelope(&doc, "ClientRequest") {
        let response = responses
            .get(&method)
            .and_then(|n| definition_ref(&doc, n).map(|r| (n.clone(), r)));
        match response {
            Some((type_name, r)) => roots.push(Root {
                kind: Kind::Response,
                method,
                type_name: Some(type_name),
                schema: json!({ "$ref": r }),
                fingerprint: 0,
            }),
            None => unnamed_responses.push(method),
        }
    }
    fingerprint(&doc, &mut roots);
    Version {
        name,
        bundle: Bundle::new(doc),
        roots,
        unnamed_responses,
        validator: OnceLock::new(),
    }
}

/// Sets each root's [`Root::fingerprint`]: its schema and the text of every definition it
/// reaches through `$ref`s.
fn fingerprint(doc: &Value, roots: &mut [Root]) {
    let mut defs: HashMap<String, (u64, Vec<String>)> = HashMap::new();
    for root in roots {
        let mut reached = BTreeMap::new();
        let mut todo = refs_in(&root.schema);
        while let Some(r) = todo.pop() {
            if reached.contains_key(&r) {
                continue;
            }
            let (h, out) = defs.entry(r.clone()).or_insert_with(|| {
                let def = doc
                    .pointer(r.trim_start_matches('#'))
                    .unwrap_or_else(|| panic!("$ref {r} points nowhere"));
                (hash(&[&def.to_string()]), refs_in(def))
            });
            todo.extend(out.iter().cloned());
            reached.insert(r, *h);
        }
        let mut parts = vec![root.schema.to_string()];
        parts.extend(reached.iter().map(|(r, h)| format!("{r}={h}")));
        root.fingerprint = hash(&parts.iter().map(String::as_str).collect::<Vec<_>>());
    }
}

fn refs_in(v: &Value) -> Vec<String> {
    match v {
        Value::Object(o) => o
            .iter()
            .flat_map(|(k, x)| match (k.as_str(), x) {
                ("$ref", Value::String(r)) => vec![r.clone()],
                _ => refs_in(x),
            })
            .collect(),
        Value::Array(a) => a.iter().flat_map(refs_in).collect(),
        _ => Vec::new(),
    }
}

/// What went wrong with one instance.
#[derive(Debug, Clone)]
enum Problem {
    /// The value did not decode (the error, when the type's own decoder tells it).
    Decode(String),
    /// A value fell back to `Unknown(raw)`.
    Unknown { type_name: String, raw: Value },
    /// A struct kept declared-or-unexpected fields in `extra`.
    Extra {
        type_name: String,
        keys: Vec<String>,
    },
    /// The decoded value's `Debug` shows an `Unknown(..)` no drift report accounted for.
    UnreportedUnknown(String),
    /// The decoded value's `Debug` shows member `.0` in an `extra` map, and no drift report
    /// names it.
    UnreportedExtra(String, String),
    /// Re-serialising lost (or changed) part of the value.
    Lost {
        path: String,
        sent: Value,
        back: Option<Value>,
    },
}

impl Problem {
    /// What a shrunk candidate must still show to count as the same failure.
    fn signature(&self) -> String {
        match self {
            Problem::Decode(_) => "decode".into(),
            Problem::Unknown { type_name, .. } => format!("unknown {type_name}"),
            Problem::Extra { type_name, .. } => format!("extra {type_name}"),
            Problem::UnreportedUnknown(_) => "unreported".into(),
            Problem::UnreportedExtra(key, _) => format!("unreported extra {key}"),
            Problem::Lost { .. } => "lost".into(),
        }
    }

    fn render(&self, value: &Value) -> String {
        match self {
            Problem::Decode(err) => format!("does not decode: {err}"),
            Problem::Unknown { type_name, raw } => format!(
                "{type_name} fell back to Unknown at {}: {raw}",
                find(value, raw).unwrap_or_else(|| "?".into())
            ),
            Problem::Extra { type_name, keys } => {
                let at = find_object_with(value, keys).unwrap_or_else(|| "?".into());
                let obj = value.pointer(&at).map(Value::to_string).unwrap_or_default();
                format!("{type_name} kept {keys:?} in `extra` at {at}: {obj}")
            }
            Problem::UnreportedUnknown(debug) => {
                format!("decoded with an Unknown no drift report names: {debug}")
            }
            Problem::UnreportedExtra(key, debug) => format!(
                "decoded with {key:?} in an `extra` map (not declared?), no drift report names it at {}: {debug}",
                find_object_with(value, std::slice::from_ref(key)).unwrap_or_else(|| "?".into())
            ),
            Problem::Lost { path, sent, back } => match back {
                Some(b) => format!("re-serialised {path} as {b}, sent {sent}"),
                None => format!("re-serialising dropped {path} (sent {sent})"),
            },
        }
    }
}

/// Decodes `value` as `root` and checks it (`injected`: pointers of the unknown members the
/// test added, which must come back as they were sent); empty when all is well.
fn check(root: &Root, value: &Value, injected: &[String]) -> Vec<Problem> {
    let (decoded, fallbacks) = drift::watch(|| decode(root, value));
    let mut problems = Vec::new();
    let reported_unknown = fallbacks
        .iter()
        .any(|f| matches!(f.kind, FallbackKind::Unknown { .. }));
    let reported_extra: Vec<String> = fallbacks
        .iter()
        .flat_map(|f| match &f.kind {
            FallbackKind::ExtraFields { keys } => keys.clone(),
            _ => Vec::new(),
        })
        .collect();
    for Fallback {
        type_name, kind, ..
    } in fallbacks
    {
        match kind {
            FallbackKind::Unknown { raw } => problems.push(Problem::Unknown {
                type_name: type_name.to_owned(),
                raw,
            }),
            FallbackKind::ExtraFields { keys }
                if keys.iter().any(|k| !k.starts_with(UNKNOWN_PREFIX)) =>
            {
                problems.push(Problem::Extra {
                    type_name: type_name.to_owned(),
                    keys,
                })
            }
            _ => {}
        }
    }
    match decoded {
        Err(err) => problems.push(Problem::Decode(err)),
        Ok((back, debug)) => {
            if let Some(debug) = &debug {
                if debug.contains("Unknown(") && !reported_unknown {
                    problems.push(Problem::UnreportedUnknown(excerpt(debug, "Unknown(")));
                }
                if let Some(key) = extra_keys(debug)
                    .find(|k| !k.starts_with(UNKNOWN_PREFIX) && !reported_extra.contains(k))
                {
                    let at = format!("extra: {{{key:?}");
                    problems.push(Problem::UnreportedExtra(key, excerpt(debug, &at)));
                }
            }
            for p in injected {
                if let Some(sent) = value.pointer(p) {
                    if back.pointer(p) != Some(sent) {
                        problems.push(Problem::Lost {
                            path: p.clone(),
                            sent: sent.clone(),
                            back: back.pointer(p).cloned(),
                        });
                    }
                }
            }
            if let Some((path, sent, back)) = lost(value, &back, &mut String::new()) {
                problems.push(Problem::Lost { path, sent, back });
            }
        }
    }
    problems
}

/// Decodes `value` with the generated types: the value written back, and the decoded value's
/// `Debug` form when there is one.
fn decode(root: &Root, value: &Value) -> Result<(Value, Option<String>), String> {
    match root.kind {
        Kind::Notification => {
            let n = ServerNotification::from_value(&root.method, value.clone());
            if let ServerNotification::Unknown { .. } = n {
                return Err(type_error(root, value));
            }
            Ok((n.params_value(), Some(format!("{n:?}"))))
        }
        Kind::ServerRequest => {
            let r = ServerRequestKind::from_value(&root.method, value.clone());
            if let ServerRequestKind::Unknown { .. } = r {
                return Err(type_error(root, value));
            }
            Ok((r.params_value(), Some(format!("{r:?}"))))
        }
        Kind::Response => {
            let name = root.type_name.as_deref().expect("a named response type");
            let roundtrip = roundtrip_fn(name)
                .ok_or_else(|| format!("no generated type {name} (ROUNDTRIP has none)"))?;
            let back = roundtrip(&value.to_string())?;
            Ok((
                serde_json::from_str(&back).map_err(|e| e.to_string())?,
                None,
            ))
        }
    }
}

/// A generated type's round trip: JSON text in, the type's JSON text out.
type RoundTrip = fn(&str) -> Result<String, String>;

fn roundtrip_fn(name: &str) -> Option<RoundTrip> {
    ROUNDTRIP.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// Why a notification's or server request's params became `Unknown { .. }`: the error of the
/// params type's own decoder, when the schema names the type.
fn type_error(root: &Root, value: &Value) -> String {
    let why =
        root.type_name
            .as_deref()
            .and_then(roundtrip_fn)
            .map(|f| match f(&value.to_string()) {
                Err(e) => e,
                Ok(_) => "the type decodes it, the method table does not".into(),
            });
    format!(
        "parsed as Unknown {{ method, params }}: {}",
        why.unwrap_or_else(|| "no named params type".into())
    )
}

/// The member names shown in the `extra: {..}` maps of a generated value's `Debug` form (the
/// first of each map, enough to see that one is not empty).
fn extra_keys(debug: &str) -> impl Iterator<Item = String> + '_ {
    debug
        .match_indices("extra: {\"")
        .filter_map(move |(at, m)| {
            let rest = &debug[at + m.len()..];
            rest.find('"').map(|end| rest[..end].to_owned())
        })
}

/// The first place where `back` does not keep what `sent` had (a `null` may be absent; extra
/// members in `back` are fine; numbers compare by value).
fn lost(sent: &Value, back: &Value, path: &mut String) -> Option<(String, Value, Option<Value>)> {
    let differ = || Some((path.clone(), sent.clone(), Some(back.clone())));
    match (sent, back) {
        (Value::Null, _) => None,
        (Value::Object(s), Value::Object(b)) => {
            for (k, v) in s {
                if v.is_null() {
                    continue;
                }
                let len = path.len();
                path.push('/');
                path.push_str(&instances::escape(k));
                let r = match b.get(k) {
                    None => Some((path.clone(), v.clone(), None)),
                    Some(bv) => lost(v, bv, path),
                };
                path.truncate(len);
                if r.is_some() {
                    return r;
                }
            }
            None
        }
        (Value::Array(s), Value::Array(b)) if s.len() == b.len() => {
            for (i, (sv, bv)) in s.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                let r = lost(sv, bv, path);
                path.truncate(len);
                if r.is_some() {
                    return r;
                }
            }
            None
        }
        (Value::Number(s), Value::Number(b)) => {
            let same = match (s.as_i64(), b.as_i64(), s.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => s.as_f64() == b.as_f64(),
            };
            if same {
                None
            } else {
                differ()
            }
        }
        _ if sent == back => None,
        _ => differ(),
    }
}

/// The JSON pointer of the first sub-value of `v` equal to `target`.
fn find(v: &Value, target: &Value) -> Option<String> {
    if v == target {
        return Some(String::new());
    }
    children(v).find_map(|(token, child)| find(child, target).map(|p| format!("/{token}{p}")))
}

/// The JSON pointer of the first object in `v` that has all of `keys`.
fn find_object_with(v: &Value, keys: &[String]) -> Option<String> {
    if let Value::Object(m) = v {
        if keys.iter().all(|k| m.contains_key(k)) {
            return Some(String::new());
        }
    }
    children(v)
        .find_map(|(token, child)| find_object_with(child, keys).map(|p| format!("/{token}{p}")))
}

fn children(v: &Value) -> Box<dyn Iterator<Item = (String, &Value)> + '_> {
    match v {
        Value::Object(m) => Box::new(m.iter().map(|(k, c)| (instances::escape(k), c))),
        Value::Array(a) => Box::new(a.iter().enumerate().map(|(i, c)| (i.to_string(), c))),
        _ => Box::new(std::iter::empty()),
    }
}

/// `v` without the members the test added.
fn without_unknown(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with(UNKNOWN_PREFIX))
                .map(|(k, x)| (k.clone(), without_unknown(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_unknown).collect()),
        other => other.clone(),
    }
}

/// Up to 300 characters of `text` around the first `needle`.
fn excerpt(text: &str, needle: &str) -> String {
    let at = text.find(needle).unwrap_or(0);
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(150)
        .map_or(0, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(150)
        .map_or(text.len(), |(i, _)| at + i);
    format!("…{}…", &text[start..end])
}

/// Every smaller variant of `v` one step away: a member or element removed, an array emptied,
/// a string or number zeroed.
fn smaller(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Object(m) => {
            for k in m.keys() {
                let mut c = m.clone();
                c.remove(k);
                out.push(Value::Object(c));
            }
            for (k, x) in m {
                for s in smaller(x) {
                    let mut c = m.clone();
                    c.insert(k.clone(), s);
                    out.push(Value::Object(c));
                }
            }
        }
        Value::Array(a) => {
            if a.len() > 1 {
                out.push(Value::Array(Vec::new()));
            }
            for i in 0..a.len() {
                let mut c = a.clone();
                c.remove(i);
                out.push(Value::Array(c));
            }
            for (i, x) in a.iter().enumerate() {
                for s in smaller(x) {
                    let mut c = a.clone();
                    c[i] = s;
                    out.push(Value::Array(c));
                }
            }
        }
        Value::String(s) if !s.is_empty() => out.push(Value::String(String::new())),
        Value::Number(n) if n.as_f64() != Some(0.0) => out.push(Value::from(0)),
        _ => {}
    }
    out
}

/// `value` made as small as it gets while still schema-valid and still failing with `problem`'s
/// signature; with the problem seen on the result.
fn shrink(version: &Version, root: &Root, inst: &Instance, problem: &Problem) -> (Value, Problem) {
    let value = &inst.value;
    let want = problem.signature();
    let mut best = (value.clone(), problem.clone());
    let mut budget = SHRINK_BUDGET;
    'outer: loop {
        for candidate in smaller(&best.0) {
            if budget == 0 {
                break 'outer;
            }
            budget -= 1;
            if version.valid(root, &candidate).is_err() {
                continue;
            }
            if let Some(p) = check(root, &candidate, &inst.injected)
                .into_iter()
                .find(|p| p.signature() == want)
            {
                best = (candidate, p);
                continue 'outer;
            }
        }
        break;
    }
    best
}

/// A failing type: how many of its instances failed, and the first, shrunk.
struct Failure {
    version: String,
    /// Later versions with the same schema for the type (the same instances, not run again).
    same_in: Vec<String>,
    root: String,
    failed: usize,
    first: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let same = if self.same_in.is_empty() {
            String::new()
        } else {
            format!(" (same schema in {})", self.same_in.join(", "))
        };
        write!(
            f,
            "codex {}{same} · {}: {}/{} instances fail; first (shrunk): {}",
            self.version, self.root, self.failed, INSTANCES, self.first
        )
    }
}

fn seed() -> u64 {
    std::env::var("CODEX_WINDOW_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x005e_ed34)
}

/// `CODEX_WINDOW_NO_DEDUPE=1`: decode every (version, type) pair, even when an earlier version
/// has the same schema for it.
fn no_dedupe() -> bool {
    std::env::var_os("CODEX_WINDOW_NO_DEDUPE").is_some_and(|v| v == "1")
}

fn instance_count() -> usize {
    std::env::var("CODEX_WINDOW_INSTANCES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(INSTANCES)
        .max(INSTANCES)
}

/// FNV-1a: a seed per (version, type) that does not depend on the order they are run in.
fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Draws and checks `count` instances of `root`; a failure for the first failing one.
fn run_root(version: &Version, root: &Root, count: usize, seed: u64) -> Option<Failure> {
    let mut gen = Gen::new(
        &version.bundle,
        seed ^ hash(&[&root.key()]),
        MAX_DEPTH,
        INJECT_PERCENT,
    );
    let mut first: Option<(Instance, Problem)> = None;
    let mut failed = 0;
    for i in 0..count {
        let inst: Instance = gen.instance(&root.schema);
        if i < VALIDATED {
            if let Err(e) = version.valid(root, &inst.declared()) {
                panic!(
                    "instance generator bug: codex {} {}: drew a schema-invalid value ({e}): {}",
                    version.name,
                    root.describe(),
                    inst.value
                );
            }
        }
        let mut problems = check(root, &inst.value, &inst.injected);
        if !problems.is_empty() {
            failed += 1;
            if first.is_none() {
                first = Some((inst, problems.swap_remove(0)));
            }
        }
    }
    let (inst, problem) = first?;
    let (small, problem) = if version.valid(root, &inst.value).is_ok() {
        shrink(version, root, &inst, &problem)
    } else {
        (inst.value, problem)
    };
    Some(Failure {
        version: version.name.clone(),
        same_in: Vec::new(),
        root: root.describe(),
        failed,
        first: format!("{}\n    value: {}", problem.render(&small), small),
    })
}

#[test]
fn every_vendored_version_decodes_schema_valid_instances_of_every_type() {
    let started = Instant::now();
    let docs: Vec<(String, Value)> = version_dirs()
        .into_iter()
        .map(|(name, dir)| (name, read_bundle(&dir)))
        .collect();
    let overrides = response_overrides();
    let mut responses = BTreeMap::new();
    for (_, doc) in &docs {
        responses.extend(named_responses(doc, &overrides));
    }
    let versions: Vec<Version> = docs
        .into_iter()
        .map(|(name, doc)| load(name, doc, &responses))
        .collect();
    assert!(!versions.is_empty(), "no schema/codex-*/ vendored");
    for v in &versions {
        for kind in [Kind::Notification, Kind::ServerRequest, Kind::Response] {
            assert!(
                v.roots.iter().any(|r| r.kind == kind),
                "codex {}: no {kind:?} types found in the schema",
                v.name
            );
        }
    }
    let count = instance_count();
    let seed = seed();
    // (version, type) pairs with the schema of an earlier version's pair draw the same values:
    // they are decoded once, and a failure names every version it applies to.
    let mut work: Vec<(&Version, &Root, Vec<String>)> = Vec::new();
    let mut first_of: HashMap<(String, u64), usize> = HashMap::new();
    let mut pairs = 0;
    for v in &versions {
        for r in &v.roots {
            pairs += 1;
            match first_of.get(&(r.key(), r.fingerprint)) {
                Some(&i) if !no_dedupe() => work[i].2.push(v.name.clone()),
                _ => {
                    first_of.insert((r.key(), r.fingerprint), work.len());
                    work.push((v, r, Vec::new()));
                }
            }
        }
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let checked = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((v, r, same_in)) = work.get(i) else {
                    break;
                };
                if let Some(mut f) = run_root(v, r, count, seed) {
                    f.same_in = same_in.clone();
                    failures.lock().unwrap().push(f);
                }
                checked.fetch_add(count, Ordering::Relaxed);
            });
        }
    });
    let mut per_kind: BTreeMap<Kind, usize> = BTreeMap::new();
    for r in versions.iter().flat_map(|v| &v.roots) {
        *per_kind.entry(r.kind).or_default() += 1;
    }
    let unnamed: usize = versions.iter().map(|v| v.unnamed_responses.len()).sum();
    eprintln!(
        "protocol window: {} versions ({}) × their types = {pairs} (version, type) pairs ({} notifications, {} server requests, {} responses; {} responses unnamed in the schema, not drawn) × {count} instances = {} checked; {} pairs with a schema of their own, decoded: {} instances, in {:.1}s (seed {seed})",
        versions.len(),
        versions.iter().map(|v| v.name.as_str()).collect::<Vec<_>>().join(", "),
        per_kind.get(&Kind::Notification).unwrap_or(&0),
        per_kind.get(&Kind::ServerRequest).unwrap_or(&0),
        per_kind.get(&Kind::Response).unwrap_or(&0),
        unnamed,
        pairs * count,
        work.len(),
        checked.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
    );
    let mut failures = failures.into_inner().unwrap();
    failures.sort_by(|a, b| (&a.version, &a.root).cmp(&(&b.version, &b.root)));
    assert!(
        failures.is_empty(),
        "{} (version, type) pairs fail (seed {seed}):\n{}",
        failures.len(),
        failures
            .iter()
            .map(|f| format!("  {f}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_generator_draws_valid_instances_and_takes_the_smallest_when_deep() {
    let bundle = Bundle::new(json!({
        "definitions": {
            "Tree": {"type": "object", "required": ["kids", "tag"], "properties": {
                "tag": {"enum": ["a", 1, true]},
                "kids": {"type": "array", "items": {"$ref": "#/definitions/Tree"}},
                "next": {"anyOf": [{"$ref": "#/definitions/Tree"}, {"type": "null"}]}
            }},
            "Rec": {"oneOf": [
                {"type": "object", "required": ["r"], "properties": {"r": {"$ref": "#/definitions/Rec"}}},
                {"const": 7}
            ]}
        }
    }));
    let mut gen = Gen::new(&bundle, 1, 3, 50);
    let validator = jsonschema::draft7::new(&json!({
        "definitions": bundle.root()["definitions"],
        "properties": {"t": {"$ref": "#/definitions/Tree"}, "r": {"$ref": "#/definitions/Rec"}}
    }))
    .unwrap();
    let mut injected = 0;
    for _ in 0..200 {
        let t = gen.instance(&json!({"$ref": "#/definitions/Tree"}));
        let r = gen.instance(&json!({"$ref": "#/definitions/Rec"}));
        injected += t.injected.len();
        let declared = json!({"t": t.declared(), "r": r.declared()});
        assert!(validator.is_valid(&declared), "{declared}");
        for p in &t.injected {
            assert!(t.value.pointer(p).is_some(), "{p} in {}", t.value);
        }
    }
    assert!(injected > 0, "no unknown member was ever added");
}
