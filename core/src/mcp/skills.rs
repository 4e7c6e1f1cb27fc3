//! Skills over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640) on [`Client`]:
//! list a server's skills ([`Client::list_skills`], [`Client::list_all_skills`]), get one
//! entry by URI ([`Client::get_skill`]), load one ([`Client::load_skill`]: its `SKILL.md`
//! read and checked — size, SHA-256 digest, frontmatter against the entry) and read one of
//! its files ([`McpClient::read_skill_file`](crate::McpClient::read_skill_file), checked against the entry's manifest). Nothing is
//! read before it is asked for: listing reads no file, loading reads only `SKILL.md`.

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::skill_verify::{self as verify, failed, MAX_SKILL_BYTES, MAX_SKILL_FILES};
use super::{cursor_params, Page};
use crate::error::{Error, Result};
use crate::mcp::McpClient;
use crate::options::RequestOptions;

/// The extension's identifier, under `capabilities.extensions` of a server that serves skills.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The method listing a server's skills.
const LIST: &str = "skills/list";
/// The method returning one skill's entry by the URI of its `SKILL.md`.
const GET: &str = "skills/get";
/// Most pages [`Client::list_all_skills`] follows.
const MAX_PAGES: usize = 10_000;

/// One file of a skill as the entry lists it: its URI, the SHA-256 digest of its bytes
/// (`sha256:` + 64 lowercase hex digits) and their length.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:{hex}` of the file's bytes.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
}

/// A skill's files: a complete manifest, or `"dynamic"` (content generated on the server, no
/// digests to verify against).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file of the skill, `SKILL.md` included.
    Listed(Vec<SkillResource>),
    /// The server publishes no digests for this skill.
    Dynamic,
}

/// One skill a server serves (an entry of `skills/list` or the result of `skills/get`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md` (`skill://pdf-processing/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md` frontmatter as the server rendered it (`name`, `description`, and every
    /// other field).
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillResources,
    /// The entry as received.
    pub raw: Value,
}

impl SkillEntry {
    /// An entry from its JSON. Errors ([`Error::Protocol`]) name the missing or malformed
    /// member: `uri` (a string), `frontmatter` (an object with string `name` and
    /// `description`), `resources` (an array of `{uri, digest, size}` or `"dynamic"`).
    pub fn from_value(raw: Value) -> Result<SkillEntry> {
        let bad = |what: &str| Error::Protocol(format!("bad skill entry ({what}): {raw}"));
        let uri = raw["uri"]
            .as_str()
            .ok_or_else(|| bad("no `uri`"))?
            .to_owned();
        let frontmatter = raw["frontmatter"]
            .as_object()
            .ok_or_else(|| bad("no `frontmatter` object"))?
            .clone();
        for field in ["name", "description"] {
            if !frontmatter.get(field).is_some_and(Value::is_string) {
                return Err(bad(&format!("`frontmatter.{field}` is not a string")));
            }
        }
        let resources = match &raw["resources"] {
            Value::String(s) if s == "dynamic" => SkillResources::Dynamic,
            Value::Array(items) => SkillResources::Listed(
                items
                    .iter()
                    .map(|r| {
                        Some(SkillResource {
                            uri: r["uri"].as_str()?.to_owned(),
                            digest: r["digest"].as_str()?.to_owned(),
                            size: r["size"].as_u64()?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("a `resources` item lacks `uri`, `digest` or `size`"))?,
            ),
            _ => return Err(bad("`resources` is neither an array nor \"dynamic\"")),
        };
        Ok(SkillEntry {
            uri,
            frontmatter,
            resources,
            raw,
        })
    }

    /// The skill's name (`frontmatter.name`).
    pub fn name(&self) -> &str {
        self.frontmatter["name"].as_str().unwrap_or_default()
    }

    /// The skill's description (`frontmatter.description`).
    pub fn description(&self) -> &str {
        self.frontmatter["description"].as_str().unwrap_or_default()
    }

    /// The manifest item of `uri`, if the entry lists it.
    pub fn resource(&self, uri: &str) -> Option<&SkillResource> {
        match &self.resources {
            SkillResources::Listed(r) => r.iter().find(|r| r.uri == uri),
            SkillResources::Dynamic => None,
        }
    }

    /// The checks that need no file: the URI ends in `/<name>/SKILL.md` with a valid name
    /// equal to `frontmatter.name`, the manifest lists `SKILL.md`, holds only well-formed
    /// digests of files under the skill's folder, and stays within the limits
    /// ([`MAX_SKILL_FILES`] files, [`MAX_SKILL_BYTES`] bytes).
    pub fn check(&self) -> Result<()> {
        let uri = &self.uri;
        let name = verify::name_of_uri(uri)
            .ok_or_else(|| failed(uri, "the skill URI does not end in /<name>/SKILL.md".into()))?;
        if name != self.name() {
            return Err(failed(
                uri,
                format!(
                    "the URI names the skill {name:?} but its frontmatter name is {:?}",
                    self.name()
                ),
            ));
        }
        if !verify::valid_name(name) {
            return Err(failed(
                uri,
                format!("{name:?} breaks the skill naming rules (1-64 of a-z, 0-9, single inner hyphens)"),
            ));
        }
        let SkillResources::Listed(files) = &self.resources else {
            return Ok(());
        };
        if files.len() > MAX_SKILL_FILES {
            return Err(failed(
                uri,
                format!(
                    "the skill lists {} files, over the limit of {MAX_SKILL_FILES}",
                    files.len()
                ),
            ));
        }
        let total: u64 = files.iter().map(|f| f.size).sum();
        if total > MAX_SKILL_BYTES {
            return Err(failed(
                uri,
                format!("the skill's files add up to {total} bytes, over the limit of {MAX_SKILL_BYTES}"),
            ));
        }
        if self.resource(uri).is_none() {
            return Err(failed(uri, "the manifest does not list SKILL.md".into()));
        }
        let root = uri.strip_suffix("SKILL.md").unwrap_or(uri);
        for f in files {
            if !verify::is_digest(&f.digest) {
                return Err(failed(
                    &f.uri,
                    format!(
                        "malformed digest {:?} (want sha256: and 64 lowercase hex digits)",
                        f.digest
                    ),
                ));
            }
            if !f.uri.starts_with(root) || f.uri[root.len()..].split('/').any(|s| s == "..") {
                return Err(failed(
                    &f.uri,
                    format!("the manifest lists a file outside the skill's folder {root}"),
                ));
            }
        }
        Ok(())
    }
}

/// A skill loaded from a server: its entry and its `SKILL.md`, verified.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The entry it was checked against (held while the skill is in use: its other files are
    /// read through [`McpClient::read_skill_file`](crate::McpClient::read_skill_file) against it).
    pub entry: SkillEntry,
    /// The whole `SKILL.md` text.
    pub text: String,
    /// The text after the frontmatter.
    pub body: String,
}

impl LoadedSkill {
    /// As JSON: `{"entry": <the entry as received>, "text": .., "body": ..}`.
    pub fn to_value(&self) -> Value {
        json!({"entry": self.entry.raw, "text": self.text, "body": self.body})
    }
}

impl McpClient {
    /// Whether this MCP server declared the skills extension (`capabilities.extensions`).
    pub fn serves_skills(&self) -> bool {
        self.initialize_result()
            .and_then(|i| {
                i.capabilities()
                    .map(|c| c["extensions"][SKILLS_EXTENSION].is_object())
            })
            .unwrap_or(false)
    }

    fn require_skills(&self) -> Result<()> {
        if self.serves_skills() {
            return Ok(());
        }
        Err(Error::Unsupported(format!(
            "this MCP server does not declare the skills extension ({SKILLS_EXTENSION} under capabilities.extensions)"
        )))
    }

    async fn skills_request(&self, method: &str, params: Value) -> Result<Value> {
        self.require_skills()?;
        // Input-required rounds (2026-07-28) are driven by the request itself.
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    /// MCP `skills/list`: one page of the server's skills. Reads no skill file. An entry
    /// that is not well-formed is left out with a warning naming why. Errors:
    /// [`Error::Unsupported`] when the server does not declare the extension.
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<Page<SkillEntry>> {
        let result = self.skills_request(LIST, cursor_params(cursor)).await?;
        let (items, next_cursor) = super::split_page("skills", result)?;
        let items = items
            .into_iter()
            .filter_map(|v| {
                SkillEntry::from_value(v)
                    .map_err(|e| tracing::warn!("MCP: skill left out of skills/list: {e}"))
                    .ok()
            })
            .collect();
        Ok(Page { items, next_cursor })
    }

    /// MCP `skills/list`, following every cursor.
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let page = self.list_skills(cursor.as_deref()).await?;
            out.extend(page.items);
            match page.next_cursor {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                _ => return Ok(out),
            }
        }
        Err(Error::Protocol(format!(
            "{LIST} kept returning a next cursor after {MAX_PAGES} pages"
        )))
    }

    /// MCP `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry> {
        let mut result = self.skills_request(GET, json!({ "uri": uri })).await?;
        SkillEntry::from_value(result["skill"].take())
    }

    /// The skill named `name` in this server's listing: the one entry whose
    /// `frontmatter.name` (or, for a selector holding `://`, whose URI) matches. Two entries
    /// of that name are an error listing their URIs (names are not unique; pass a URI).
    pub async fn find_skill(&self, name_or_uri: &str) -> Result<SkillEntry> {
        if name_or_uri.contains("://") {
            return self.get_skill(name_or_uri).await;
        }
        let all = self.list_all_skills().await?;
        let mut hits: Vec<SkillEntry> = all
            .iter()
            .filter(|e| e.name() == name_or_uri)
            .cloned()
            .collect();
        match hits.len() {
            1 => Ok(hits.remove(0)),
            0 => {
                let mut names: Vec<&str> = all.iter().map(SkillEntry::name).collect();
                names.sort_unstable();
                names.dedup();
                Err(Error::InvalidArgument(format!(
                    "the MCP server lists no skill {name_or_uri:?} (it lists: {}); a skill it does not list is loaded by the URI of its SKILL.md",
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                )))
            }
            _ => {
                Err(Error::InvalidArgument(format!(
                "the MCP server lists {} skills named {name_or_uri:?}: {}; select one by its URI",
                hits.len(),
                hits.iter().map(|e| e.uri.as_str()).collect::<Vec<_>>().join(", ")
            )))
            }
        }
    }

    /// Load a skill: check its entry ([`SkillEntry::check`]), read its `SKILL.md`, verify
    /// the bytes against the manifest (size, then SHA-256 digest; a `"dynamic"` skill is
    /// only held to the size limit), parse the YAML frontmatter and compare it field by
    /// field with the entry's. Reads no other file. A failed check is
    /// [`Error::Protocol`] naming the URI and what differed; the content is not returned.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill> {
        entry.check()?;
        let bytes = self.read_bytes(&entry.uri).await?;
        match entry.resource(&entry.uri) {
            Some(r) => verify::check_file(&entry.uri, &bytes, r.size, &r.digest)?,
            None if bytes.len() as u64 > MAX_SKILL_BYTES => {
                return Err(failed(
                    &entry.uri,
                    format!(
                        "SKILL.md is {} bytes, over the limit of {MAX_SKILL_BYTES}",
                        bytes.len()
                    ),
                ))
            }
            None => {}
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| failed(&entry.uri, "SKILL.md is not UTF-8".into()))?;
        let (front, body) = verify::frontmatter(&entry.uri, &text)?;
        verify::check_frontmatter(&entry.uri, &front, &entry.frontmatter)?;
        Ok(LoadedSkill {
            entry: entry.clone(),
            text,
            body: body.trim().to_owned(),
        })
    }

    /// Read the file at `uri` of a loaded skill: only a file its held entry lists, verified
    /// against that entry (size and digest). An unlisted file, or one of a `"dynamic"`
    /// skill, is refused without a read ([`Error::Protocol`]; refresh the entry with
    /// [`get_skill`](Self::get_skill) to see what the server serves now).
    pub async fn read_skill_file(&self, skill: &LoadedSkill, uri: &str) -> Result<Vec<u8>> {
        let r = skill.entry.resource(uri).ok_or_else(|| {
            failed(
                uri,
                format!("not a file the entry of {} lists", skill.entry.uri),
            )
        })?;
        let bytes = self.read_bytes(uri).await?;
        verify::check_file(uri, &bytes, r.size, &r.digest)?;
        Ok(bytes)
    }

    /// For bindings: [`list_skills`](Self::list_skills) (one page at `cursor`) or, with
    /// `all_pages`, [`list_all_skills`](Self::list_all_skills), as JSON
    /// `{"skills": [entries as received], "nextCursor": ..}`.
    pub async fn list_skills_json(&self, cursor: Option<&str>, all_pages: bool) -> Result<Value> {
        let (items, next) = if all_pages {
            (self.list_all_skills().await?, None)
        } else {
            let p = self.list_skills(cursor).await?;
            (p.items, p.next_cursor)
        };
        let skills: Vec<Value> = items.into_iter().map(|e| e.raw).collect();
        Ok(json!({"skills": skills, "nextCursor": next}))
    }

    /// For bindings: [`find_skill`](Self::find_skill) then [`load_skill`](Self::load_skill),
    /// as [`LoadedSkill::to_value`].
    pub async fn load_skill_json(&self, name_or_uri: &str) -> Result<Value> {
        let entry = self.find_skill(name_or_uri).await?;
        Ok(self.load_skill(&entry).await?.to_value())
    }

    /// Blocking form of [`list_skills_json`](Self::list_skills_json) (a plain thread; each
    /// request bounded by the client's default timeout).
    pub fn list_skills_json_blocking(
        &self,
        cursor: Option<&str>,
        all_pages: bool,
    ) -> Result<Value> {
        self.connection()
            .block_on(self.list_skills_json(cursor, all_pages))
    }

    /// Blocking form of [`load_skill_json`](Self::load_skill_json).
    pub fn load_skill_json_blocking(&self, name_or_uri: &str) -> Result<Value> {
        self.connection()
            .block_on(self.load_skill_json(name_or_uri))
    }

    /// `resources/read` of one file: its text as UTF-8 bytes, or its blob decoded.
    async fn read_bytes(&self, uri: &str) -> Result<Vec<u8>> {
        let contents = self.read_resource(uri).await?;
        let c = contents
            .iter()
            .find(|c| c.uri == uri)
            .or(contents.first())
            .ok_or_else(|| {
                Error::Protocol(format!("resources/read of {uri} returned no contents"))
            })?;
        match (&c.text, &c.blob) {
            (Some(t), _) => Ok(t.as_bytes().to_vec()),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| {
                    Error::Protocol(format!("resources/read of {uri}: bad base64 blob: {e}"))
                }),
            (None, None) => Err(Error::Protocol(format!(
                "resources/read of {uri} returned neither text nor blob"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(body: &str, fm: Value) -> SkillEntry {
        SkillEntry::from_value(json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": fm,
            "resources": [
                {"uri": "skill://pdf-processing/SKILL.md", "digest": verify::sha256_digest(body.as_bytes()), "size": body.len()},
                {"uri": "skill://pdf-processing/references/FORMS.md", "digest": verify::sha256_digest(b"x"), "size": 1},
            ]
        }))
        .unwrap()
    }

    #[test]
    fn entries_parse_and_check() {
        let fm = json!({"name": "pdf-processing", "description": "PDFs"});
        let e = entry("b", fm.clone());
        assert_eq!(e.name(), "pdf-processing");
        e.check().unwrap();
        assert!(e
            .resource("skill://pdf-processing/references/FORMS.md")
            .is_some());
        let other = entry("b", json!({"name": "other", "description": "d"}));
        assert!(other
            .check()
            .unwrap_err()
            .to_string()
            .contains("frontmatter name"));
        for bad in [
            json!({"frontmatter": fm, "resources": []}),
            json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a"}, "resources": []}),
            json!({"uri": "skill://a/SKILL.md", "frontmatter": fm, "resources": "all"}),
            json!({"uri": "skill://a/SKILL.md", "frontmatter": fm}),
            json!({"uri": "skill://a/SKILL.md", "frontmatter": fm, "resources": [{"uri": "skill://a/SKILL.md"}]}),
        ] {
            assert!(SkillEntry::from_value(bad.clone()).is_err(), "{bad}");
        }
        let dynamic = SkillEntry::from_value(json!({"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"})).unwrap();
        assert_eq!(dynamic.resources, SkillResources::Dynamic);
        dynamic.check().unwrap();
        let too_many = SkillEntry::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": (0..=MAX_SKILL_FILES).map(|i| json!({"uri": format!("skill://a/{i}"), "digest": verify::sha256_digest(b""), "size": 0})).collect::<Vec<_>>()
        })).unwrap();
        assert!(too_many
            .check()
            .unwrap_err()
            .to_string()
            .contains("limit of 512"));
        let too_big = SkillEntry::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": verify::sha256_digest(b""), "size": MAX_SKILL_BYTES + 1}]
        })).unwrap();
        assert!(too_big
            .check()
            .unwrap_err()
            .to_string()
            .contains("16777216"));
        let outside = SkillEntry::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": verify::sha256_digest(b""), "size": 0},
                          {"uri": "skill://b/x", "digest": verify::sha256_digest(b""), "size": 0}]
        })).unwrap();
        assert!(outside.check().unwrap_err().to_string().contains("outside"));
    }
}
