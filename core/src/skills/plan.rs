//! A turn's skills, worked out before anything is sent: every `skill` input item is checked
//! (its `SKILL.md` read, its name resolved) and then either sent as the native item or
//! replaced by the emulation's text block.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use super::file::{self, SkillFile};
use super::mcp::{self, McpSelected};
use super::{attr, SkillInfo, MCP_SERVER_KEY};
use crate::connection::Client;
use crate::error::{Error, Result};
use crate::options::SkillEmulation;
use crate::protocol::{methods, ClientMethod};

/// A turn's input ready to send, and the skills that were emulated in it.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct PreparedInput {
    /// The input items for `turn/start`.
    pub items: Vec<Value>,
    /// The skills injected as text because the server has no `skill` input item.
    pub emulated_skills: Vec<SkillInfo>,
}

/// One `skill` item of the input, as far as it is known without the server.
#[derive(Debug)]
enum Selected {
    /// Read from its path (or, emulating, found by name in the skill folders).
    File {
        name: Option<String>,
        file: SkillFile,
    },
    /// Native, by name only: resolved through `skills/list`.
    Name(String),
    /// From an MCP server: loaded by [`SkillPlan::load_mcp`], always emulated.
    Mcp(McpSelected),
}

/// The skills of one turn's input: built from the input items (reading every `SKILL.md` a
/// path names, and when emulating finding names in the folders Codex searches), then
/// [`finish`](Self::finish)ed, after the [`listing_request`](Self::listing_request) when
/// the server must resolve names. Every failure is [`Error::InvalidArgument`].
#[derive(Debug)]
pub struct SkillPlan {
    native: bool,
    mode: SkillEmulation,
    cwd: Option<PathBuf>,
    /// The input items, with `None` where a skill item was taken out.
    items: Vec<Option<Value>>,
    skills: Vec<Selected>,
}

impl SkillPlan {
    /// Plan `items` for `client`'s server; `cwd` is the turn's working directory when known
    /// (`turn/start` override or the thread's). Native or emulated: see
    /// [`native_skill_input`](super::native_skill_input).
    pub fn new(client: &Client, items: Vec<Value>, cwd: Option<PathBuf>) -> Result<SkillPlan> {
        let is_skill = |v: &Value| v["type"] == "skill";
        if !items.iter().any(is_skill) {
            let items = items.into_iter().map(Some).collect();
            return Ok(SkillPlan {
                native: true,
                mode: client.options().skill_emulation,
                cwd,
                items,
                skills: Vec::new(),
            });
        }
        let init = client.initialize_result();
        let version = init.as_ref().and_then(|i| i.codex_version());
        let mode = client.options().skill_emulation;
        let can = super::native_skill_input(&client.options().transport, version);
        if !can && mode == SkillEmulation::Never {
            return Err(Error::InvalidArgument(format!(
                "this server cannot take skills natively ({}, Codex {}; native skill input needs the app-server of Codex {}.{}.{} or newer) and skill_emulation is \"never\": set the option skill_emulation to \"when_needed\" or \"always\" to emulate them",
                client.options().transport.describe(),
                version.unwrap_or("of unknown version"),
                super::NATIVE_SKILL_INPUT_SINCE.0,
                super::NATIVE_SKILL_INPUT_SINCE.1,
                super::NATIVE_SKILL_INPUT_SINCE.2
            )));
        }
        let native = can && mode != SkillEmulation::Always;
        let home = init
            .and_then(|i| i.codex_home.map(PathBuf::from))
            .or_else(|| client.options().codex_home.clone())
            .or_else(|| std::env::var_os("CODEX_HOME").map(PathBuf::from))
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".codex")));
        let mut plan = SkillPlan {
            native,
            mode,
            cwd,
            items: Vec::new(),
            skills: Vec::new(),
        };
        let mut found: Option<Vec<SkillFile>> = None;
        for item in items {
            if !is_skill(&item) {
                plan.items.push(Some(item));
                continue;
            }
            plan.items.push(None);
            let name = item["name"].as_str().map(str::to_owned);
            if let Some(label) = item[MCP_SERVER_KEY].as_str() {
                let skill = name.ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "a skill input item from MCP server {label:?} needs a name or SKILL.md URI"
                    ))
                })?;
                if mode == SkillEmulation::Never {
                    return Err(Error::InvalidArgument(format!(
                        "skill {skill}@{label} comes from an MCP server: it is given to Codex as a labelled text block (Codex takes native skills only from its skill folders, where MCP-served skills must not be put) and skill_emulation is \"never\": set the option skill_emulation to \"when_needed\" or \"always\""
                    )));
                }
                plan.skills.push(Selected::Mcp(McpSelected {
                    label: label.to_owned(),
                    skill,
                    loaded: None,
                }));
                continue;
            }
            let selected = match (item["path"].as_str(), name) {
                (Some(p), name) => Selected::File {
                    name,
                    file: file::read(Path::new(p))?,
                },
                (None, Some(n)) if native => Selected::Name(n),
                (None, Some(n)) => {
                    let all = found.get_or_insert_with(|| {
                        file::discover(&file::search_roots(home.as_deref(), &plan.search_cwd()))
                    });
                    let hit = all.iter().find(|s| s.name == n).cloned();
                    let file = hit.ok_or_else(|| unknown(&n, all.iter().map(|s| &s.name)))?;
                    Selected::File {
                        name: Some(n),
                        file,
                    }
                }
                (None, None) => {
                    return Err(Error::InvalidArgument(
                        "a skill input item needs a name or a path".into(),
                    ))
                }
            };
            plan.skills.push(selected);
        }
        Ok(plan)
    }

    /// Whether the skills go as native `skill` items (else they are emulated).
    pub fn is_native(&self) -> bool {
        self.native
    }

    /// Load the skills the input selects from MCP servers (see
    /// [`Skill::Mcp`](super::Skill::Mcp)) through `client`'s skill sources: each one's entry
    /// and `SKILL.md`, verified. Nothing is read before this (when the turn starts). Errors:
    /// an unknown source or skill ([`Error::InvalidArgument`]), a failed check
    /// ([`Error::Protocol`]), the server's errors.
    pub async fn load_mcp(&mut self, client: &Client) -> Result<()> {
        for s in &mut self.skills {
            if let Selected::Mcp(m) = s {
                m.load(client).await?;
            }
        }
        Ok(())
    }

    /// Whether the input selects a skill from an MCP server.
    pub fn has_mcp(&self) -> bool {
        self.skills.iter().any(|s| matches!(s, Selected::Mcp(_)))
    }

    fn search_cwd(&self) -> PathBuf {
        self.cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("."))
    }

    /// The `skills/list` request (method, params) whose result [`finish`](Self::finish)
    /// needs: on a native server, whenever the input selects a skill (names resolve through
    /// it; a path it does not list is emulated, since the server injects only the skills it
    /// knows).
    pub fn listing_request(&self) -> Option<(&'static str, Value)> {
        if !self.native || !self.skills.iter().any(|s| !matches!(s, Selected::Mcp(_))) {
            return None;
        }
        let mut params = json!({"forceReload": true});
        if let Some(cwd) = &self.cwd {
            params["cwds"] = json!([cwd.to_string_lossy()]);
        }
        Some((methods::SkillsList::NAME, params))
    }

    /// The input to send, given the `skills/list` result when
    /// [`listing_request`](Self::listing_request) asked for one.
    pub fn finish(self, listing: Option<&Value>) -> Result<PreparedInput> {
        let listing = listing.unwrap_or(&Value::Null);
        let mut out = PreparedInput::default();
        for s in self.skills {
            let (name, file) = match s {
                Selected::Mcp(m) => {
                    let loaded = m.loaded.ok_or_else(|| {
                        Error::InvalidState(format!(
                            "skill {}@{} was not loaded (SkillPlan::load_mcp)",
                            m.skill, m.label
                        ))
                    })?;
                    out.items.push(json!({"type": "text", "text": mcp::block(&m.label, &loaded), "text_elements": []}));
                    out.emulated_skills.push(SkillInfo {
                        name: loaded.entry.name().to_owned(),
                        description: loaded.entry.description().to_owned(),
                        path: PathBuf::from(&loaded.entry.uri),
                        server: Some(m.label),
                    });
                    continue;
                }
                Selected::Name(n) => {
                    let path = listed_path(listing, &n)?;
                    (n, Err(path))
                }
                Selected::File { name, file } => {
                    let listed = self
                        .native
                        .then(|| listed_name(listing, &file.path))
                        .flatten();
                    match listed {
                        Some(listed) => (name.unwrap_or(listed), Err(file.path)),
                        None if self.mode == SkillEmulation::Never => {
                            return Err(Error::InvalidArgument(format!(
                                "the skill at {} is not one Codex lists (the app-server ignores skills outside its skill folders) and skill_emulation is \"never\": set the option skill_emulation to \"when_needed\" to emulate it",
                                file.path.display()
                            )))
                        }
                        None => (name.unwrap_or_else(|| file.name.clone()), Ok(file)),
                    }
                }
            };
            out.items.push(match file {
                Ok(f) => {
                    let text = block(&name, &f);
                    let (description, path) = (f.description, f.path);
                    out.emulated_skills.push(SkillInfo {
                        name,
                        description,
                        path,
                        server: None,
                    });
                    json!({"type": "text", "text": text, "text_elements": []})
                }
                Err(path) => {
                    json!({"type": "skill", "name": name, "path": path.to_string_lossy()})
                }
            });
        }
        // The skills (native items and emulated blocks, as selected) go before the user's
        // input, so that the user's text stays the turn's last words.
        out.items.extend(self.items.into_iter().flatten());
        Ok(out)
    }
}

/// The emulation's text block: `<skill name=".." path=".." description=".." emulated="true">`,
/// the `SKILL.md` body, `</skill>`.
fn block(name: &str, f: &SkillFile) -> String {
    format!(
        "<skill name=\"{}\" path=\"{}\" description=\"{}\" emulated=\"true\">\n{}\n</skill>",
        attr(name),
        attr(&f.path.to_string_lossy()),
        attr(&f.description),
        f.body
    )
}

fn unknown<'a>(name: &str, available: impl Iterator<Item = &'a String>) -> Error {
    let mut names: Vec<&str> = available.map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let list = if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    };
    Error::InvalidArgument(format!("unknown skill {name:?}; available skills: {list}"))
}

/// Every skill of a `skills/list` result.
fn listed(listing: &Value) -> Vec<&Value> {
    listing["data"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|entry| entry["skills"].as_array().into_iter().flatten())
        .collect()
}

/// The name of the enabled skill whose `SKILL.md` is `path` (canonical) in a `skills/list`
/// result.
fn listed_name(listing: &Value, path: &Path) -> Option<String> {
    listed(listing)
        .into_iter()
        .filter(|s| s["enabled"] != false)
        .find(|s| {
            s["path"]
                .as_str()
                .and_then(|p| std::fs::canonicalize(p).ok())
                .is_some_and(|p| p == path)
        })
        .and_then(|s| s["name"].as_str().map(str::to_owned))
}

/// The path of the enabled skill `name` in a `skills/list` result.
fn listed_path(listing: &Value, name: &str) -> Result<PathBuf> {
    let skills = listed(listing);
    let enabled = |s: &&&Value| s["enabled"] != false;
    if let Some(s) = skills.iter().filter(enabled).find(|s| s["name"] == name) {
        if let Some(p) = s["path"].as_str() {
            return Ok(PathBuf::from(p));
        }
    }
    if skills.iter().any(|s| s["name"] == name) {
        return Err(Error::InvalidArgument(format!(
            "skill {name:?} is disabled"
        )));
    }
    let names: Vec<String> = skills
        .iter()
        .filter(enabled)
        .filter_map(|s| s["name"].as_str().map(str::to_owned))
        .collect();
    Err(unknown(name, names.iter()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_from_a_listing() {
        let listing = json!({"data": [{"cwd": "/w", "skills": [
            {"name": "a", "path": "/s/a/SKILL.md", "enabled": true},
            {"name": "off", "path": "/s/off/SKILL.md", "enabled": false},
        ]}]});
        assert_eq!(
            listed_path(&listing, "a").unwrap(),
            PathBuf::from("/s/a/SKILL.md")
        );
        let e = listed_path(&listing, "nope").unwrap_err().to_string();
        assert!(
            e.contains("\"nope\"") && e.contains("available skills: a"),
            "{e}"
        );
        assert!(!e.contains("off"), "{e}");
        assert!(listed_path(&listing, "off")
            .unwrap_err()
            .to_string()
            .contains("disabled"));
        let f = SkillFile {
            name: "n".into(),
            description: "say \"hi\" <now>".into(),
            path: "/p/SKILL.md".into(),
            body: "BODY".into(),
        };
        assert_eq!(
            block("n", &f),
            "<skill name=\"n\" path=\"/p/SKILL.md\" description=\"say &quot;hi&quot; &lt;now&gt;\" \
             emulated=\"true\">\nBODY\n</skill>"
        );
    }
}
