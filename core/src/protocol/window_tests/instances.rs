//! Random instances of a JSON Schema bundle as Codex writes it (draft-07: `definitions`,
//! `$ref`, `oneOf`/`anyOf`/`allOf`, `enum` of strings, integers and booleans, `const`, `type`
//! lists with `"null"`, `required`, `additionalProperties`, `items`, integer `format`s,
//! `minimum`/`maximum`, `minItems`/`maxItems`, `minLength`/`maxLength`).
//!
//! Deterministic for a seed (fastrand). Below `max_depth` nested objects and arrays every
//! alternative is drawn at random; from `max_depth` on the generator takes the smallest
//! instance (the union alternative, type and members with the smallest minimal instance;
//! optional members left out, arrays and maps empty), so recursive types stay finite.
//! Objects with declared properties may get one unknown member `zz_unknown_<n>` (the only
//! deliberately schema-invalid part: a newer server adds fields); [`Instance::injected`] lists
//! where, and [`Instance::declared`] is the value without them, which the bundle validates.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use serde_json::{Map, Value};

/// Prefix of the unknown members added to objects.
pub(super) const UNKNOWN_PREFIX: &str = "zz_unknown_";

/// "No finite instance" (a size, saturating).
const INF: u32 = u32::MAX / 4;

/// A schema bundle: the document `$ref`s resolve in, and the size of the smallest instance of
/// every referenced schema.
pub(super) struct Bundle {
    root: Value,
    min_size: HashMap<String, u32>,
}

impl Bundle {
    /// Takes the bundle document and works out the smallest-instance sizes (a fixpoint over
    /// the referenced definitions; recursion without a way out stays [`INF`]).
    pub(super) fn new(root: Value) -> Bundle {
        let mut refs = BTreeSet::new();
        collect_refs(&root, &mut refs);
        let mut b = Bundle {
            min_size: refs.iter().map(|r| (r.clone(), INF)).collect(),
            root,
        };
        loop {
            let mut changed = false;
            for r in &refs {
                let size = b.size(b.resolve(r));
                if size < b.min_size[r] {
                    b.min_size.insert(r.clone(), size);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        b
    }

    /// The bundle document.
    pub(super) fn root(&self) -> &Value {
        &self.root
    }

    /// The schema a local `$ref` (`#/definitions/...`) points to.
    pub(super) fn resolve(&self, r: &str) -> &Value {
        let pointer = r
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("non-local $ref {r}"));
        self.root
            .pointer(pointer)
            .unwrap_or_else(|| panic!("$ref {r} points nowhere"))
    }

    /// Size (number of JSON values) of the smallest instance of `s`, [`INF`] if none is known.
    fn size(&self, s: &Value) -> u32 {
        let o = match s {
            Value::Bool(true) => return 1,
            Value::Object(o) => o,
            _ => return INF,
        };
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            return self.min_size.get(r).copied().unwrap_or(INF);
        }
        if o.contains_key("const") || o.contains_key("enum") {
            return 1;
        }
        if let Some(parts) = o.get("allOf").and_then(Value::as_array) {
            return parts
                .iter()
                .map(|p| self.size(p))
                .fold(0, |a, b| a.saturating_add(b).min(INF));
        }
        let base = self.typed_size(o);
        match alternatives(o) {
            Some(alts) => {
                let alt = alts.iter().map(|a| self.size(a)).min().unwrap_or(INF);
                if has_structure(o) {
                    base.saturating_add(alt).min(INF)
                } else {
                    alt
                }
            }
            None => base,
        }
    }

    fn typed_size(&self, o: &Map<String, Value>) -> u32 {
        types(o)
            .iter()
            .map(|t| match *t {
                "object" => {
                    let props = o.get("properties").and_then(Value::as_object);
                    required(o)
                        .iter()
                        .map(|k| props.and_then(|p| p.get(*k)).map_or(1, |s| self.size(s)))
                        .fold(1, |a: u32, b| a.saturating_add(b).min(INF))
                }
                "array" => {
                    let min = o.get("minItems").and_then(Value::as_u64).unwrap_or(0) as u32;
                    let item = o.get("items").map_or(1, |s| self.size(s));
                    1u32.saturating_add(min.saturating_mul(item)).min(INF)
                }
                _ => 1,
            })
            .min()
            .unwrap_or(INF)
    }
}

/// A generated instance.
pub(super) struct Instance {
    /// The value, unknown members included.
    pub(super) value: Value,
    /// JSON pointers of the unknown members that were added.
    pub(super) injected: Vec<String>,
}

impl Instance {
    /// The value without the added unknown members (what the schema validates).
    pub(super) fn declared(&self) -> Value {
        let mut v = self.value.clone();
        for p in &self.injected {
            let (parent, key) = p.rsplit_once('/').expect("a member pointer");
            if let Some(Value::Object(m)) = v.pointer_mut(parent) {
                m.remove(&unescape(key));
            }
        }
        v
    }
}

/// Draws instances of schemas of one [`Bundle`].
pub(super) struct Gen<'b> {
    bundle: &'b Bundle,
    rng: fastrand::Rng,
    max_depth: u32,
    /// Chance in percent that an object with declared properties gets an unknown member.
    inject_percent: u8,
    next_unknown: u32,
    /// Merged schemas (`allOf`, and a union's alternative with its shared members), by the
    /// address of the schema object in the bundle and the alternative's index.
    merged: HashMap<(usize, usize), Rc<Value>>,
}

impl<'b> Gen<'b> {
    /// A generator from `seed`; nesting deeper than `max_depth` takes the smallest instances.
    pub(super) fn new(bundle: &'b Bundle, seed: u64, max_depth: u32, inject_percent: u8) -> Self {
        Gen {
            bundle,
            rng: fastrand::Rng::with_seed(seed),
            max_depth,
            inject_percent,
            next_unknown: 0,
            merged: HashMap::new(),
        }
    }

    /// One instance of `schema`.
    pub(super) fn instance(&mut self, schema: &Value) -> Instance {
        let value = self.value(schema, 0);
        let mut injected = Vec::new();
        unknown_members(&value, &mut String::new(), &mut injected);
        Instance { value, injected }
    }

    fn value(&mut self, s: &Value, depth: u32) -> Value {
        let bundle = self.bundle;
        let o = match s {
            Value::Bool(true) => return self.any(depth),
            Value::Object(o) => o,
            other => panic!("schema {other} has no instance"),
        };
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            let target = self.bundle.resolve(r);
            return self.value(target, depth);
        }
        if let Some(c) = o.get("const") {
            return c.clone();
        }
        if let Some(values) = o.get("enum").and_then(Value::as_array) {
            let allowed: Vec<&Value> = values.iter().filter(|v| type_allows(o, v)).collect();
            assert!(!allowed.is_empty(), "enum without a value of its type: {s}");
            return allowed[self.rng.usize(0..allowed.len())].clone();
        }
        if let Some(parts) = o.get("allOf").and_then(Value::as_array) {
            if parts.len() == 1 && !has_structure(o) {
                return self.value(&parts[0], depth);
            }
            let merged = self.merged(o, usize::MAX, || {
                let mut merged = without(o, "allOf");
                for p in parts {
                    merged = merge(merged, deref(bundle, p));
                }
                merged
            });
            return self.value(&merged, depth);
        }
        if let Some(alts) = alternatives(o) {
            let known: Vec<&Value> = alts.iter().filter(|a| !is_catch_all(a)).collect();
            let known = if known.is_empty() {
                alts.iter().collect()
            } else {
                known
            };
            let i = if depth >= self.max_depth {
                self.smallest(&known)
            } else {
                self.rng.usize(0..known.len())
            };
            let alt = known[i];
            if !has_structure(o) {
                return self.value(alt, depth);
            }
            let key = if o.contains_key("oneOf") {
                "oneOf"
            } else {
                "anyOf"
            };
            let merged = self.merged(o, i, || merge(without(o, key), deref(bundle, alt)));
            return self.value(&merged, depth);
        }
        self.typed(o, depth)
    }

    /// The index of an alternative with the smallest instance (the first of equals).
    fn smallest(&self, alts: &[&Value]) -> usize {
        (0..alts.len())
            .min_by_key(|i| self.bundle.size(alts[*i]))
            .unwrap_or(0)
    }

    /// The merged schema for alternative `alt` of `o` (`usize::MAX`: its `allOf`), made once.
    fn merged(
        &mut self,
        o: &Map<String, Value>,
        alt: usize,
        make: impl FnOnce() -> Map<String, Value>,
    ) -> Rc<Value> {
        let key = (o as *const Map<String, Value> as usize, alt);
        self.merged
            .entry(key)
            .or_insert_with(|| Rc::new(Value::Object(make())))
            .clone()
    }

    fn typed(&mut self, o: &Map<String, Value>, depth: u32) -> Value {
        let tys = types(o);
        let ty = if tys.is_empty() {
            return self.any(depth);
        } else if tys.len() == 1 {
            tys[0]
        } else if depth >= self.max_depth {
            // The type with the smallest instance: null if allowed, else a scalar.
            let order = [
                "null", "boolean", "integer", "number", "string", "array", "object",
            ];
            *order.iter().find(|t| tys.contains(t)).unwrap_or(&tys[0])
        } else if tys.contains(&"null") && self.rng.u8(0..4) == 0 {
            "null"
        } else {
            let non_null: Vec<&str> = tys.iter().copied().filter(|t| *t != "null").collect();
            non_null[self.rng.usize(0..non_null.len())]
        };
        match ty {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.bool()),
            "integer" => self.integer(o),
            "number" => self.number(o),
            "string" => Value::String(self.string(o)),
            "array" => self.array(o, depth),
            "object" => self.object(o, depth),
            other => panic!("schema type {other}"),
        }
    }

    fn integer(&mut self, o: &Map<String, Value>) -> Value {
        let (mut lo, mut hi): (i128, i128) = match o.get("format").and_then(Value::as_str) {
            Some("uint8") => (0, u8::MAX.into()),
            Some("uint16") => (0, u16::MAX.into()),
            Some("uint32") => (0, u32::MAX.into()),
            Some("uint64" | "uint") => (0, u64::MAX.into()),
            Some("int8") => (i8::MIN.into(), i8::MAX.into()),
            Some("int16") => (i16::MIN.into(), i16::MAX.into()),
            Some("int32") => (i32::MIN.into(), i32::MAX.into()),
            _ => (i64::MIN.into(), i64::MAX.into()),
        };
        if let Some(m) = o.get("minimum").and_then(Value::as_f64) {
            lo = lo.max(m.ceil() as i128);
        }
        if let Some(m) = o.get("maximum").and_then(Value::as_f64) {
            hi = hi.min(m.floor() as i128);
        }
        assert!(lo <= hi, "integer schema without a value: {o:?}");
        let small_lo = lo.max(0).min(hi);
        let n = match self.rng.u8(0..10) {
            0 => lo,
            1 => hi,
            2..=6 => self.rng.i128(small_lo..=hi.min(small_lo + 20)),
            _ => self.rng.i128(lo..=hi),
        };
        match i64::try_from(n) {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(u64::try_from(n).expect("an integer in u64 range")),
        }
    }

    fn number(&mut self, o: &Map<String, Value>) -> Value {
        let lo = o.get("minimum").and_then(Value::as_f64);
        let hi = o.get("maximum").and_then(Value::as_f64);
        let x = match self.rng.u8(0..5) {
            0 => 0.0,
            1 => f64::from(self.rng.i32(-1000..1000)),
            2 => f64::from(self.rng.i32(-1000..1000)) + 0.25,
            3 => self.rng.f64() * 1e12,
            _ => -self.rng.f64(),
        };
        let x = lo.map_or(x, |lo| x.max(lo));
        Value::from(hi.map_or(x, |hi| x.min(hi)))
    }

    fn string(&mut self, o: &Map<String, Value>) -> String {
        let min = o.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = o
            .get("maxLength")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let mut s = match self.rng.u8(0..8) {
            0 => String::new(),
            1 => "é日本🙂".to_owned(),
            2 => "a \"quoted\" \\ line\nbreak".to_owned(),
            _ => {
                let n = self.rng.usize(1..9);
                (0..n).map(|_| self.rng.alphanumeric()).collect()
            }
        };
        while s.chars().count() < min {
            s.push('x');
        }
        if let Some(max) = max {
            s = s.chars().take(max).collect();
        }
        s
    }

    fn array(&mut self, o: &Map<String, Value>, depth: u32) -> Value {
        let min = o.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = o
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |m| m as usize);
        let n = if depth >= self.max_depth {
            min
        } else {
            self.rng.usize(min..=max.min(min + 2))
        };
        let any = Value::Bool(true);
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let item = match o.get("items") {
                Some(Value::Array(tuple)) => tuple
                    .get(i)
                    .or_else(|| o.get("additionalItems"))
                    .unwrap_or(&any),
                Some(s) => s,
                None => &any,
            };
            out.push(self.value(item, depth + 1));
        }
        Value::Array(out)
    }

    fn object(&mut self, o: &Map<String, Value>, depth: u32) -> Value {
        let deep = depth >= self.max_depth;
        let empty = Map::new();
        let props = o
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let req = required(o);
        let mut out = Map::new();
        for (k, s) in props {
            if req.contains(&k.as_str()) || (!deep && self.rng.bool()) {
                let v = self.value(s, depth + 1);
                out.insert(k.clone(), v);
            }
        }
        for k in req {
            assert!(out.contains_key(k), "required {k} is not declared: {o:?}");
        }
        let additional = o.get("additionalProperties");
        match additional {
            Some(add @ Value::Object(_)) if !deep => {
                for _ in 0..self.rng.usize(0..3) {
                    let key = format!("k{}", self.rng.u16(..));
                    if props.contains_key(&key) {
                        continue;
                    }
                    let v = self.value(add, depth + 1);
                    out.insert(key, v);
                }
            }
            // Nothing declared: every member is unknown (and must be kept as such).
            Some(Value::Bool(true)) | None if props.is_empty() && !deep => {
                for _ in 0..self.rng.usize(0..3) {
                    self.add_unknown(&mut out);
                }
            }
            _ => {}
        }
        let map_like = matches!(additional, Some(Value::Object(_)));
        if !props.is_empty()
            && !map_like
            && !is_external_wrapper(o)
            && self.rng.u8(0..100) < self.inject_percent
        {
            self.add_unknown(&mut out);
        }
        Value::Object(out)
    }

    /// Adds a member `zz_unknown_<n>` with a small value to `out`.
    fn add_unknown(&mut self, out: &mut Map<String, Value>) {
        self.next_unknown += 1;
        let key = format!("{UNKNOWN_PREFIX}{}", self.next_unknown);
        let v = self.any(self.max_depth);
        out.insert(key, v);
    }

    /// Any JSON value (small).
    fn any(&mut self, depth: u32) -> Value {
        let deep = depth >= self.max_depth;
        match self.rng.u8(0..if deep { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.rng.bool()),
            2 => Value::from(self.rng.i64(-1000..1000)),
            3 => Value::from(f64::from(self.rng.i32(-1000..1000)) + 0.5),
            4 => Value::String(self.string(&Map::new())),
            5 => {
                let n = self.rng.usize(0..3);
                Value::Array((0..n).map(|_| self.any(depth + 1)).collect())
            }
            _ => {
                let n = self.rng.usize(0..3);
                Value::Object(
                    (0..n)
                        .map(|i| (format!("a{i}"), self.any(depth + 1)))
                        .collect(),
                )
            }
        }
    }
}

/// `s` with `$ref` chains followed, as an object schema.
fn deref<'a>(bundle: &'a Bundle, mut s: &'a Value) -> Map<String, Value> {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        s = bundle.resolve(r);
    }
    match s {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    }
}

/// JSON pointers of the members of `v` named `zz_unknown_<n>`.
fn unknown_members(v: &Value, path: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                path.push('/');
                path.push_str(&escape(k));
                if k.starts_with(UNKNOWN_PREFIX) {
                    out.push(path.clone());
                } else {
                    unknown_members(x, path, out);
                }
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("/{i}"));
                unknown_members(x, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

fn collect_refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if let Some(r) = o.get("$ref").and_then(Value::as_str) {
                out.insert(r.to_owned());
            }
            o.values().for_each(|x| collect_refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

/// An alternative that admits every value of two or more types (`{"type": ["string",
/// "object"]}`): the schema's own slot for values a newer version adds (serde's untagged
/// `Other`), which decode to `Unknown` by design. Not drawn while the union has others.
fn is_catch_all(a: &Value) -> bool {
    let Some(o) = a.as_object() else { return false };
    let non_null = o
        .get("type")
        .and_then(Value::as_array)
        .map_or(0, |ts| ts.iter().filter(|t| *t != "null").count());
    non_null >= 2
        && o.keys()
            .all(|k| matches!(k.as_str(), "type" | "description" | "title"))
}

/// `{"<variant>": {...}}` of an externally tagged union (one required member, nothing else
/// allowed): a member beside the tag is not a field a newer version could add, so none is added.
fn is_external_wrapper(o: &Map<String, Value>) -> bool {
    let one_prop = o
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.len() == 1);
    one_prop && required(o).len() == 1 && o.get("additionalProperties") == Some(&Value::Bool(false))
}

fn alternatives(o: &Map<String, Value>) -> Option<&[Value]> {
    o.get("oneOf")
        .or_else(|| o.get("anyOf"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
}

/// Whether `o` constrains instances itself beside its `allOf`/`anyOf`/`oneOf`.
fn has_structure(o: &Map<String, Value>) -> bool {
    o.keys().any(|k| {
        !matches!(
            k.as_str(),
            "allOf"
                | "anyOf"
                | "oneOf"
                | "description"
                | "title"
                | "default"
                | "$schema"
                | "examples"
        )
    })
}

/// The `type`s `o` allows (inferred from `properties`/`items` when it has none).
fn types(o: &Map<String, Value>) -> Vec<&str> {
    match o.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if o.contains_key("properties")
            || o.contains_key("required")
            || o.contains_key("additionalProperties") =>
        {
            vec!["object"]
        }
        _ if o.contains_key("items") => vec!["array"],
        _ => Vec::new(),
    }
}

fn required(o: &Map<String, Value>) -> Vec<&str> {
    o.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn type_allows(o: &Map<String, Value>, v: &Value) -> bool {
    let tys = types(o);
    tys.is_empty()
        || tys.iter().any(|t| match *t {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "string" => v.is_string(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        })
}

fn without(o: &Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut m = o.clone();
    m.remove(key);
    m
}

/// Both schemas at once (as `allOf` means), for the shapes Codex writes: object schemas whose
/// `properties` and `required` add up; for any other keyword the second (the more specific
/// alternative) wins.
fn merge(mut a: Map<String, Value>, b: Map<String, Value>) -> Map<String, Value> {
    for (k, v) in b {
        match (k.as_str(), a.get_mut(&k), v) {
            ("properties", Some(Value::Object(pa)), Value::Object(pb)) => pa.extend(pb),
            ("required", Some(Value::Array(ra)), Value::Array(rb)) => {
                for r in rb {
                    if !ra.contains(&r) {
                        ra.push(r);
                    }
                }
            }
            (_, _, v) => {
                a.insert(k, v);
            }
        }
    }
    a
}

/// A member name as a JSON pointer token.
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}
