//! The report's types: each difference, what the library does with it, the human-readable
//! text and the JSON form.

use std::fmt;

use serde::Serialize;

/// Where in the protocol a difference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Section {
    /// A client-to-server request method.
    ClientMethod,
    /// A server-to-client notification method.
    ServerNotification,
    /// A server-to-client request method.
    ServerRequest,
    /// A member of a union (`ThreadItem`, `UserInput`, ...), by tag.
    UnionVariant,
    /// A value of a string enum.
    EnumValue,
    /// A field of an object type (or a type compared whole).
    TypeField,
}

impl Section {
    /// The heading of the section in the text report.
    pub fn heading(self) -> &'static str {
        match self {
            Section::ClientMethod => "Client methods (requests the library sends)",
            Section::ServerNotification => "Server notifications",
            Section::ServerRequest => "Server requests",
            Section::UnionVariant => "Union variants",
            Section::EnumValue => "Enum values",
            Section::TypeField => "Type fields",
        }
    }
}

/// How the running Codex differs from the library's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Change {
    /// Only the running Codex has it.
    Added,
    /// Only the library's schema has it.
    Removed,
    /// Both have it, in another shape.
    Changed,
}

impl Change {
    /// `added`, `removed` or `changed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// What the library does with a difference, from harmless to failing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// Known to the library but this server never sends it: nothing to do.
    Unused,
    /// Decoded into the generated types (new optional fields are kept in `extra`).
    Typed,
    /// Delivered as raw JSON: an `Unknown` variant or value, or an untyped request.
    KeptRaw,
    /// A typed call, decoder or handler may fail on it (see the detail).
    MayFail,
    /// The server refuses it (a method it does not have, or one it only offers experimentally).
    Refused,
}

impl Verdict {
    /// `unused`, `typed`, `kept raw`, `may fail` or `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Unused => "unused",
            Verdict::Typed => "typed",
            Verdict::KeptRaw => "kept raw",
            Verdict::MayFail => "may fail",
            Verdict::Refused => "refused",
        }
    }
}

/// One difference between the running Codex and the library's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Difference {
    /// Where it is.
    pub section: Section,
    /// The method or type name.
    pub name: String,
    /// The union tag, enum value or field, for those sections.
    pub member: Option<String>,
    /// Added, removed or changed.
    pub change: Change,
    /// What the library does with it.
    pub verdict: Verdict,
    /// Why, in a few words.
    pub detail: String,
}

/// The result of [`report`](super::report): every difference between the protocol of a Codex
/// binary and the schema the library was generated from. `Display` gives the text report,
/// [`to_json`](Self::to_json) the JSON form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct CompatReport {
    /// The binary that was asked.
    pub codex_binary: String,
    /// Its version (`codex --version`), e.g. `0.92.0`, if it said.
    pub codex_version: Option<String>,
    /// The Codex version the library's types come from.
    pub library_version: String,
    /// `true` when the experimental API was compared too (the binary knows
    /// `generate-json-schema --experimental`); else only the stable API.
    pub experimental_compared: bool,
    /// The differences, by section, then name.
    pub differences: Vec<Difference>,
}

impl CompatReport {
    /// No difference at all.
    pub fn is_identical(&self) -> bool {
        self.differences.is_empty()
    }

    /// How many differences have verdict `v`.
    pub fn count(&self, v: Verdict) -> usize {
        self.differences.iter().filter(|d| d.verdict == v).count()
    }

    /// The differences of one section.
    pub fn section(&self, s: Section) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(move |d| d.section == s)
    }

    /// The difference for `name` (and `member`) in section `s`, if any.
    pub fn find(&self, s: Section, name: &str, member: Option<&str>) -> Option<&Difference> {
        self.section(s)
            .find(|d| d.name == name && d.member.as_deref() == member)
    }

    /// Where the binary's Codex version stands in the library's supported window
    /// ([`CODEX_WINDOW`](crate::protocol::CODEX_WINDOW)): inside (and which window version it
    /// is), older or newer.
    pub fn standing(&self) -> crate::version::ServerVersion {
        crate::version::ServerVersion::of(self.codex_version.as_deref())
    }

    /// The JSON form: the fields of this struct, enums in snake_case, plus `identical`,
    /// `counts` (differences per verdict), `window` (every window version),
    /// `window_position` (`inside`, `older`, `newer`, `unknown`) and `window_match` (the
    /// window version the binary is, or null).
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        let standing = self.standing();
        v["window"] = crate::protocol::CODEX_WINDOW.into();
        v["window_position"] = standing.position.as_str().into();
        v["window_match"] = standing.matches.into();
        let counts: serde_json::Map<String, serde_json::Value> = VERDICTS
            .iter()
            .map(|x| (x.as_str().replace(' ', "_"), self.count(*x).into()))
            .collect();
        v["identical"] = self.is_identical().into();
        v["counts"] = counts.into();
        v
    }
}

const VERDICTS: [Verdict; 5] = [
    Verdict::Refused,
    Verdict::MayFail,
    Verdict::KeptRaw,
    Verdict::Typed,
    Verdict::Unused,
];
const SECTIONS: [Section; 6] = [
    Section::ClientMethod,
    Section::ServerNotification,
    Section::ServerRequest,
    Section::UnionVariant,
    Section::EnumValue,
    Section::TypeField,
];

/// The report's line about the supported window and where the binary stands in it.
fn window_line(s: &crate::version::ServerVersion) -> String {
    use crate::version::{newest, oldest, WindowPosition};
    let window = format!(
        "Supported window: Codex {}..{} ({} versions: {})",
        oldest(),
        newest(),
        crate::protocol::CODEX_WINDOW.len(),
        crate::protocol::CODEX_WINDOW.join(", ")
    );
    let v = s.version.as_deref().unwrap_or("unknown");
    let where_ = match (s.position, s.matches) {
        (WindowPosition::Inside, Some(m)) => {
            format!("this Codex is inside it: window version {m}")
        }
        (WindowPosition::Inside, None) => format!(
            "this Codex {v} is inside it but is none of its versions (a pre-release or an \
             unreleased build): no call is refused by version"
        ),
        (WindowPosition::Older, _) => format!(
            "this Codex {v} is OLDER than the window: it connects with a warning; upgrade to \
             {} or newer (`npm install -g @openai/codex@{}`)",
            oldest(),
            newest()
        ),
        (WindowPosition::Newer, _) => format!(
            "this Codex {v} is NEWER than the window: it connects with a warning; what it added \
             is kept raw (a library release absorbs it: `scripts/update-codex.sh {v}`)"
        ),
        _ => "this Codex did not say its version".to_owned(),
    };
    format!("{window}; {where_}.")
}

impl fmt::Display for CompatReport {
    /// The text report: a summary line, then one line per difference under its section.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self.codex_version.as_deref().unwrap_or("unknown version");
        writeln!(
            f,
            "Codex {version} ({}) against the library's Codex {} schema ({} API)",
            self.codex_binary,
            self.library_version,
            if self.experimental_compared {
                "stable and experimental"
            } else {
                "stable"
            }
        )?;
        writeln!(f, "{}", window_line(&self.standing()))?;
        if self.is_identical() {
            return writeln!(
                f,
                "No differences: every method, notification, server request, union variant, enum \
                 value and field has the library's shape; everything is typed."
            );
        }
        let counts: Vec<String> = VERDICTS
            .iter()
            .filter(|v| self.count(**v) > 0)
            .map(|v| format!("{} {}", self.count(*v), v.as_str()))
            .collect();
        writeln!(
            f,
            "{} differences: {}",
            self.differences.len(),
            counts.join(", ")
        )?;
        for s in SECTIONS {
            let diffs: Vec<&Difference> = self.section(s).collect();
            if diffs.is_empty() {
                continue;
            }
            let by_change = [Change::Added, Change::Removed, Change::Changed]
                .iter()
                .map(|c| (c, diffs.iter().filter(|d| d.change == *c).count()))
                .filter(|(_, n)| *n > 0)
                .map(|(c, n)| format!("{n} {}", c.as_str()))
                .collect::<Vec<_>>();
            writeln!(f, "\n{}: {}", s.heading(), by_change.join(", "))?;
            for d in diffs {
                let name = match &d.member {
                    Some(m) => format!("{}.{m}", d.name),
                    None => d.name.clone(),
                };
                writeln!(
                    f,
                    "  {:<8} {:<48} {:<9} {}",
                    d.change.as_str(),
                    name,
                    d.verdict.as_str(),
                    d.detail
                )?;
            }
        }
        writeln!(
            f,
            "\nVerdicts: typed = decoded into the library's types; kept raw = delivered as raw JSON \
             (an `Unknown` variant or value, or an untyped request); may fail = a typed call, \
             decoder or handler can fail on it; refused = the server rejects it; unused = this \
             server never sends it."
        )
    }
}
