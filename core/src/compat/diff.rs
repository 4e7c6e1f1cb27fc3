//! The comparison: the library's schema against a running Codex's, each difference with what
//! the library does with it.
//!
//! Types are read in the direction the library uses them (on the library's side): *inbound*
//! (reachable from responses, notifications and server-request params: the library decodes
//! them) or *outbound* (reachable from request params and server-request responses: the
//! library encodes them and the server decodes them).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::report::{Change, Difference, Section, Verdict};
use super::schema::{fields, refs, Kind, Method, Schema, ENVELOPES};

/// A change inside one definition: member (tag, value or field; `None` for the whole), change,
/// verdict, detail.
type Item = (Option<String>, Change, Verdict, String);

/// The differences between the library's schema (`lib`) and a running Codex's (`live`).
/// `helpers(method)` names the library helpers that call a client method.
pub(crate) fn compare(
    lib: &Schema,
    live: &Schema,
    helpers: &dyn Fn(&str) -> Vec<&'static str>,
) -> Vec<Difference> {
    let c = Comparison::new(lib, live);
    let mut out = Vec::new();
    c.methods(&mut out, helpers);
    c.types(&mut out);
    out.sort_by(|a, b| (a.section, &a.name, &a.member).cmp(&(b.section, &b.name, &b.member)));
    out
}

struct Comparison<'a> {
    lib: &'a Schema,
    live: &'a Schema,
    /// Definitions the library decodes / encodes.
    inbound: BTreeSet<String>,
    outbound: BTreeSet<String>,
}

impl<'a> Comparison<'a> {
    fn new(lib: &'a Schema, live: &'a Schema) -> Self {
        let mut c = Comparison {
            lib,
            live,
            inbound: BTreeSet::new(),
            outbound: BTreeSet::new(),
        };
        let (mut inbound, mut outbound) = (Vec::new(), Vec::new());
        for (envelope, table) in &lib.methods {
            // The library encodes client-request params and server-request answers.
            let (params, response) = if *envelope == "ClientRequest" {
                (&mut outbound, &mut inbound)
            } else {
                (&mut inbound, &mut outbound)
            };
            for m in table.values() {
                params.extend(m.params.clone());
                response.extend(m.response.clone());
            }
        }
        c.inbound = c.closure(inbound);
        c.outbound = c.closure(outbound);
        c
    }

    /// The library's definitions reachable from `roots`.
    fn closure(&self, roots: impl IntoIterator<Item = String>) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<String> = roots.into_iter().collect();
        while let Some(n) = todo.pop() {
            if let Some(def) = self.lib.defs.get(&n).filter(|_| !seen.contains(&n)) {
                let mut next = BTreeSet::new();
                refs(def, &mut next);
                todo.extend(next);
                seen.insert(n);
            }
        }
        seen
    }

    /// The changes inside definition `name` read in one direction (empty when it has the same
    /// shape on both sides or the running Codex lacks it).
    fn items(&self, name: &str, inbound: bool) -> Vec<Item> {
        let (Some(old), Some(new)) = (self.lib.defs.get(name), self.live.defs.get(name)) else {
            return Vec::new();
        };
        if old == new {
            return Vec::new();
        }
        let items = match (Kind::of(old), Kind::of(new)) {
            (Kind::Enum(a), Kind::Enum(b)) => enum_items(&a, &b, inbound),
            (Kind::Object(a), Kind::Object(b)) => field_items(&a, &b, inbound),
            // A string enum on one side and a union on the other: its values are members.
            (a, b) => match (a.members(), b.members()) {
                (Some(a), Some(b)) => union_items(&a, &b, inbound),
                _ => Vec::new(),
            },
        };
        if items.is_empty() {
            vec![(
                None,
                Change::Changed,
                Verdict::MayFail,
                shape_detail(inbound).into(),
            )]
        } else {
            items
        }
    }

    /// The worst verdict among the changed definitions reachable from `root`, and their names.
    fn reachable_changes(
        &self,
        root: Option<&String>,
        inbound: bool,
    ) -> Option<(Verdict, Vec<String>)> {
        let mut worst = None;
        let mut names = Vec::new();
        for name in self.closure(root.cloned()) {
            let items = self.items(&name, inbound);
            if let Some(v) = items.iter().map(|i| i.2).max() {
                worst = worst.max(Some(v));
                names.push(name);
            }
        }
        worst.map(|w| (w, names))
    }

    fn methods(&self, out: &mut Vec<Difference>, helpers: &dyn Fn(&str) -> Vec<&'static str>) {
        let empty = BTreeMap::new();
        for envelope in ENVELOPES {
            let section = match envelope {
                "ClientRequest" => Section::ClientMethod,
                "ServerNotification" => Section::ServerNotification,
                _ => Section::ServerRequest,
            };
            let lib = self.lib.methods.get(envelope).unwrap_or(&empty);
            let live = self.live.methods.get(envelope).unwrap_or(&empty);
            let mut push = |name: &str, change, verdict, detail: String| {
                out.push(Difference {
                    section,
                    name: name.into(),
                    member: None,
                    change,
                    verdict,
                    detail,
                })
            };
            for name in live.keys().filter(|m| !lib.contains_key(*m)) {
                let detail = match section {
                    Section::ClientMethod => "no typed marker: send it with `request` / `request_raw` (raw JSON)",
                    Section::ServerNotification => "arrives as `ServerNotification::Unknown` with its raw params",
                    _ => "arrives raw (`ServerRequestKind::Unknown`); a handler answers it with raw JSON, unhandled it gets a JSON-RPC error",
                };
                push(name, Change::Added, Verdict::KeptRaw, detail.into());
            }
            for (name, m) in lib.iter().filter(|(m, _)| !live.contains_key(*m)) {
                let (verdict, detail) = match section {
                    Section::ClientMethod => {
                        (Verdict::Refused, removed_method_detail(m, helpers(name)))
                    }
                    _ => (
                        Verdict::Unused,
                        "this server never sends it; its typed variant and handlers stay unused"
                            .into(),
                    ),
                };
                push(name, Change::Removed, verdict, detail);
            }
            for (name, old) in lib {
                if let Some(new) = live.get(name) {
                    if let Some((verdict, detail)) = self.method_change(section, old, new) {
                        push(name, Change::Changed, verdict, detail);
                    }
                }
            }
        }
    }

    /// A method both sides have: what changed in its params and response types.
    fn method_change(
        &self,
        section: Section,
        old: &Method,
        new: &Method,
    ) -> Option<(Verdict, String)> {
        let renamed = |a: &Option<String>, b: &Option<String>, what: &str| {
            let name = |x: &Option<String>| x.clone().unwrap_or_else(|| "none".into());
            (a != b).then(|| format!("{what} type {} here, {} in the library", name(b), name(a)))
        };
        let renames: Vec<String> = [
            renamed(&old.params, &new.params, "params"),
            // A response type is only known here when the params type names it.
            new.response
                .as_ref()
                .and_then(|_| renamed(&old.response, &new.response, "response")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !renames.is_empty() {
            return Some((Verdict::MayFail, renames.join("; ")));
        }
        let client = section == Section::ClientMethod;
        let mut verdict = None;
        let mut parts = Vec::new();
        if client && old.experimental != new.experimental {
            if new.experimental {
                verdict = Some(Verdict::Refused);
                parts.push("experimental on this server: refused unless the client uses `experimental_api(true)`".to_owned());
            } else {
                verdict = Some(Verdict::Typed);
                parts.push("stable on this server; the library still asks for `experimental_api(true)` to `call` it".to_owned());
            }
        }
        // (root, inbound, what a failure means)
        let sides = [
            (&old.params, !client, params_failure(section)),
            (&old.response, client, response_failure(section)),
        ];
        for (root, inbound, failure) in sides {
            if let Some((v, names)) = self.reachable_changes(root.as_ref(), inbound) {
                let v = match v {
                    // A notification whose params do not decode is delivered as `Unknown`.
                    Verdict::MayFail if section == Section::ServerNotification => Verdict::KeptRaw,
                    // Something it no longer sends or reads: the rest is typed.
                    Verdict::Unused => Verdict::Typed,
                    v => v,
                };
                let what = if inbound { "decodes" } else { "encodes" };
                let mut d = format!("changed types it {what}: {}", name_list(&names));
                if v >= Verdict::MayFail
                    || (section == Section::ServerNotification && v == Verdict::KeptRaw)
                {
                    d.push_str(&format!(" ({failure})"));
                }
                parts.push(d);
                verdict = verdict.max(Some(v));
            }
        }
        verdict.map(|v| (v, parts.join("; ")))
    }

    /// Union variants, enum values and fields of the definitions both sides have.
    fn types(&self, out: &mut Vec<Difference>) {
        for name in self
            .lib
            .defs
            .keys()
            .filter(|n| !ENVELOPES.contains(&n.as_str()))
        {
            let (is_in, is_out) = (self.inbound.contains(name), self.outbound.contains(name));
            let mut merged: BTreeMap<Option<String>, Item> = BTreeMap::new();
            for inbound in [true, false] {
                let applies = if inbound { is_in || !is_out } else { is_out };
                if !applies {
                    continue;
                }
                for item in self.items(name, inbound) {
                    let worse = merged.get(&item.0).is_none_or(|m| item.2 > m.2);
                    if worse {
                        merged.insert(item.0.clone(), item);
                    }
                }
            }
            let section = match self.lib.defs.get(name).map(Kind::of) {
                Some(Kind::Enum(_)) => Section::EnumValue,
                Some(Kind::Union(_)) => Section::UnionVariant,
                _ => Section::TypeField,
            };
            for (member, change, verdict, detail) in merged.into_values() {
                let section = if member.is_none() {
                    Section::TypeField
                } else {
                    section
                };
                out.push(Difference {
                    section,
                    name: name.clone(),
                    member,
                    change,
                    verdict,
                    detail,
                });
            }
        }
    }
}

/// What a client method the server lacks means, naming the helpers that call it.
fn removed_method_detail(m: &Method, helpers: Vec<&'static str>) -> String {
    let mut d = format!(
        "the server does not have it: `call` and `request` get its unknown-method error{}",
        if m.experimental {
            " (an experimental method)"
        } else {
            ""
        }
    );
    if !helpers.is_empty() {
        d.push_str(&format!(
            "; the library's {} helper fails",
            helpers.join(" / ")
        ));
    }
    d
}

fn params_failure(section: Section) -> &'static str {
    match section {
        Section::ClientMethod => "the server may reject typed params",
        Section::ServerNotification => "params that do not decode arrive as `Unknown`",
        _ => "a typed handler's params may not decode: the request is then answered fail-closed",
    }
}

fn response_failure(section: Section) -> &'static str {
    match section {
        Section::ClientMethod => {
            "`call` may fail with `Error::Protocol`; `request` gives the raw JSON"
        }
        _ => "the server may reject a typed answer",
    }
}

fn shape_detail(inbound: bool) -> &'static str {
    if inbound {
        "another shape: typed decoding may fail"
    } else {
        "another shape: the server may reject the typed value"
    }
}

fn name_list(names: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut s = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

fn enum_items(old: &BTreeSet<String>, new: &BTreeSet<String>, inbound: bool) -> Vec<Item> {
    let added = new.difference(old).map(|v| {
        let d = format!("arrives as `Unknown(\"{v}\")`; send it the same way");
        (Some(v.clone()), Change::Added, Verdict::KeptRaw, d)
    });
    let removed = old.difference(new).map(|v| {
        (
            Some(v.clone()),
            Change::Removed,
            gone(inbound),
            gone_detail(inbound),
        )
    });
    added.chain(removed).collect()
}

fn union_items(
    old: &BTreeMap<String, Value>,
    new: &BTreeMap<String, Value>,
    inbound: bool,
) -> Vec<Item> {
    let mut out = Vec::new();
    for tag in new.keys().filter(|t| !old.contains_key(*t)) {
        let d =
            "arrives as the union's `Unknown` variant with its JSON; send it the same way".into();
        out.push((Some(tag.clone()), Change::Added, Verdict::KeptRaw, d));
    }
    for tag in old.keys().filter(|t| !new.contains_key(*t)) {
        out.push((
            Some(tag.clone()),
            Change::Removed,
            gone(inbound),
            gone_detail(inbound),
        ));
    }
    for (tag, a) in old {
        let Some(b) = new.get(tag).filter(|b| *b != a) else {
            continue;
        };
        let inner = match (fields(a), fields(b)) {
            (Some(fa), Some(fb)) => field_items(&fa, &fb, inbound),
            _ => Vec::new(),
        };
        let worst = inner.iter().map(|i| i.2).max().unwrap_or(Verdict::MayFail);
        let what = inner
            .iter()
            .map(|i| format!("{} {}", i.0.as_deref().unwrap_or("?"), i.1.as_str()))
            .collect::<Vec<_>>();
        let what = if what.is_empty() {
            "another shape".to_owned()
        } else {
            format!("fields: {}", what.join(", "))
        };
        let added = inner.iter().any(|i| i.1 == Change::Added);
        let (verdict, consequence) = match (worst >= Verdict::MayFail, inbound) {
            (false, true) if added => {
                (Verdict::Typed, "still decodes (new fields kept in `extra`)")
            }
            (false, true) => (Verdict::Typed, "still decodes"),
            (false, false) => (Verdict::Typed, "the typed value is still accepted"),
            // A known tag whose payload does not match becomes the union's `Unknown` (raw).
            (true, true) => (
                Verdict::KeptRaw,
                "a payload that does not decode arrives as `Unknown` with its JSON",
            ),
            (true, false) => (Verdict::MayFail, "the server may reject the typed value"),
        };
        out.push((
            Some(tag.clone()),
            Change::Changed,
            verdict,
            format!("{what}: {consequence}"),
        ));
    }
    out
}

type Fields = BTreeMap<String, (bool, Value)>;

/// What a field that only one side has means: (required, inbound, verdict, detail).
type FieldRule = (bool, bool, Verdict, &'static str);

/// Fields only the running Codex has.
const ADDED_FIELD: [FieldRule; 4] = [
    (
        true,
        false,
        Verdict::MayFail,
        "required by the server: set it through the params' `extra` map",
    ),
    (
        true,
        true,
        Verdict::Typed,
        "kept in the struct's `extra` map (required)",
    ),
    (
        false,
        true,
        Verdict::Typed,
        "kept in the struct's `extra` map",
    ),
    (
        false,
        false,
        Verdict::Typed,
        "optional; settable through the struct's `extra` map",
    ),
];

/// Fields only the library's type has.
const REMOVED_FIELD: [FieldRule; 4] = [
    (
        true,
        true,
        Verdict::MayFail,
        "required by the library's type but no longer sent: typed decoding fails",
    ),
    (
        false,
        true,
        Verdict::Unused,
        "optional and no longer sent: `None`",
    ),
    (
        true,
        false,
        Verdict::MayFail,
        "always sent by the library; the server may reject it",
    ),
    (
        false,
        false,
        Verdict::Unused,
        "the server no longer reads it: leave it `None`",
    ),
];

/// The fields of `only` that `other` lacks, judged by `rules`.
fn one_sided(
    only: &Fields,
    other: &Fields,
    change: Change,
    rules: &[FieldRule; 4],
    inbound: bool,
) -> Vec<Item> {
    let lacking = only.iter().filter(|(n, _)| !other.contains_key(*n));
    lacking
        .filter_map(|(name, (required, _))| {
            let rule = rules.iter().find(|r| r.0 == *required && r.1 == inbound)?;
            Some((Some(name.clone()), change, rule.2, rule.3.to_owned()))
        })
        .collect()
}

fn field_items(old: &Fields, new: &Fields, inbound: bool) -> Vec<Item> {
    let mut out = one_sided(new, old, Change::Added, &ADDED_FIELD, inbound);
    out.extend(one_sided(
        old,
        new,
        Change::Removed,
        &REMOVED_FIELD,
        inbound,
    ));
    for (name, (req_old, schema_old)) in old {
        let Some((req_new, schema_new)) = new.get(name) else {
            continue;
        };
        let item = if schema_old != schema_new {
            Some((Verdict::MayFail, shape_detail(inbound).to_owned()))
        } else if req_old != req_new {
            // Inbound: the decoder needs what the library requires; outbound: the server does.
            let fails = if inbound { *req_old } else { *req_new };
            let now = if *req_new { "required" } else { "optional" };
            Some(if fails {
                (
                    Verdict::MayFail,
                    format!(
                        "now {now}: {}",
                        shape_detail(inbound).trim_start_matches("another shape: ")
                    ),
                )
            } else {
                (Verdict::Typed, format!("now {now}"))
            })
        } else {
            None
        };
        if let Some((verdict, detail)) = item {
            out.push((Some(name.clone()), Change::Changed, verdict, detail));
        }
    }
    out
}

/// The verdict of a value or variant only the library has.
fn gone(inbound: bool) -> Verdict {
    if inbound {
        Verdict::Unused
    } else {
        Verdict::MayFail
    }
}

fn gone_detail(inbound: bool) -> String {
    if inbound {
        "this server never sends it"
    } else {
        "the server rejects it if the library sends it"
    }
    .into()
}
