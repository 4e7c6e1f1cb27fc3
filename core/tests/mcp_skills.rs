//! Skills over MCP (SEP-2640) against a real server: `testkit/sdk-servers/skills.mjs`, the
//! official TypeScript SDK 2.4.0's own skills extension (`ext/skills`, `loadSkills`) serving
//! a folder the test writes. Listing, loading (size, digest and frontmatter checked) and
//! reading a supporting file through the manifest; a server without the extension refused;
//! and a real Codex (the default, CODEX_DEFAULT) turn using a skill of that server (`name@label`), loaded when the
//! turn starts and handed to the local model as a block naming its server. The tampered cases
//! (digest, size, frontmatter, no prefetch) are the conformance suite's `sep-2640-client-*`
//! scenarios (scripts/mcp-conformance.sh).

mod support;

use codex_client::mcp::{SkillResources, SKILLS_EXTENSION};
use codex_client::{
    ClientOptions, CodexClient, Error, Input, McpClient, McpCommand, Skill, SkillEmulation,
    TransportKind,
};
use futures_executor::block_on;
use serde_json::json;
use std::path::Path;
use support::sdk::Sdk;
use support::*;

const BODY: &str = "MCP-SKILL-BODY-3f9a: convert with pdftotext first";
const FORMS: &str = "forms reference\n";

/// A skills folder with `pdf-tools` (SKILL.md + references/FORMS.md) and `lint-fix`.
fn skills_root() -> TempDir {
    let root = TempDir::new("mcp-skills");
    let pdf = root.path().join("pdf-tools");
    std::fs::create_dir_all(pdf.join("references")).unwrap();
    std::fs::write(
        pdf.join("SKILL.md"),
        format!("---\nname: pdf-tools\ndescription: Work with PDF files\nmetadata:\n  version: \"1.0\"\n---\n\n{BODY}\nSee references/FORMS.md.\n"),
    )
    .unwrap();
    std::fs::write(pdf.join("references/FORMS.md"), FORMS).unwrap();
    let lint = root.path().join("lint-fix");
    std::fs::create_dir_all(&lint).unwrap();
    std::fs::write(
        lint.join("SKILL.md"),
        "---\nname: lint-fix\ndescription: Fix lint warnings\n---\n\nRun the linter.\n",
    )
    .unwrap();
    root
}

/// Options for `skills.mjs` serving `root` over stdio.
fn skills_server(root: &Path) -> ClientOptions {
    let node = setup_mcp_path("MCP_NODE", "mcp-node", "Node 22");
    let modules = setup_mcp_path("MCP_MODULES", "mcp-modules", "the TypeScript MCP SDK 2.4.0");
    let script = repo_root().join("testkit/sdk-servers/skills.mjs");
    ClientOptions::default()
        .transport(TransportKind::McpStdio(McpCommand::new(node).args([
            script.to_string_lossy().into_owned(),
            root.to_string_lossy().into_owned(),
        ])))
        .env("MCP_MODULES", modules.to_string_lossy())
}

#[test]
fn list_load_and_read_a_skill_of_the_ts_sdk_server() {
    let root = skills_root();
    let mcp = mcp_connected(skills_server(root.path()));
    assert!(mcp.serves_skills(), "{:?}", mcp.initialize_result());
    let skills = block_on(mcp.list_all_skills()).unwrap();
    let mut names: Vec<&str> = skills.iter().map(|s| s.name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["lint-fix", "pdf-tools"]);
    let entry = block_on(mcp.find_skill("pdf-tools")).unwrap();
    assert_eq!(entry.uri, "skill://pdf-tools/SKILL.md");
    assert_eq!(entry.description(), "Work with PDF files");
    let SkillResources::Listed(files) = &entry.resources else {
        panic!("no manifest: {:?}", entry.raw)
    };
    assert_eq!(files.len(), 2, "{:?}", entry.raw);
    // skills/get answers the same entry.
    assert_eq!(block_on(mcp.get_skill(&entry.uri)).unwrap().raw, entry.raw);

    let loaded = block_on(mcp.load_skill(&entry)).unwrap();
    assert!(loaded.body.starts_with(BODY), "{}", loaded.body);
    assert!(loaded.text.starts_with("---\nname: pdf-tools"));
    let forms =
        block_on(mcp.read_skill_file(&loaded, "skill://pdf-tools/references/FORMS.md")).unwrap();
    assert_eq!(forms, FORMS.as_bytes());
    // A file the held entry does not list is refused, whatever the server would answer.
    let e = block_on(mcp.read_skill_file(&loaded, "skill://pdf-tools/references/NEW.md"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("not a file the entry") && e.contains("NEW.md"),
        "{e}"
    );
    // A held entry that no longer matches (the server's file changed): the load fails.
    let mut stale = entry.clone();
    if let SkillResources::Listed(files) = &mut stale.resources {
        files[0].size += 1;
    }
    let e = block_on(mcp.load_skill(&stale)).unwrap_err().to_string();
    assert!(e.contains("size mismatch"), "{e}");
    // Unknown names list what the server has.
    let e = block_on(mcp.find_skill("nope")).unwrap_err().to_string();
    assert!(
        e.contains("\"nope\"") && e.contains("lint-fix, pdf-tools"),
        "{e}"
    );
    mcp.disconnect();
}

#[test]
fn a_server_without_the_extension_is_not_asked() {
    let mcp = mcp_connected(Sdk::TypeScript.stdio());
    assert!(!mcp.serves_skills());
    let e = block_on(mcp.list_skills(None)).unwrap_err();
    assert!(
        matches!(&e, Error::Unsupported(m) if m.contains(SKILLS_EXTENSION)),
        "{e:?}"
    );
    mcp.disconnect();
}

#[test]
fn skill_sources_are_checked() {
    let root = skills_root();
    let mcp = McpClient::new(skills_server(root.path()));
    let codex = CodexClient::new(ClientOptions::default());
    for bad in ["", "a b", "a@b"] {
        assert!(codex.add_skill_source(bad, &mcp).is_err(), "{bad:?}");
    }
    assert!(codex.add_skill_source("self", &codex).is_err());
    assert!(codex_client::CodexClient::from_connection(mcp.connection())
        .add_skill_source("x", &mcp)
        .is_err());
    codex.add_skill_source("docs", &mcp).unwrap();
    assert_eq!(codex.skill_source_labels(), ["docs"]);
    assert!(codex.remove_skill_source("docs"));
    assert!(!codex.remove_skill_source("docs"));
}

/// The turn: a skill of the MCP server reaches the local model through the real Codex, as a
/// block naming its server, beside a local skill that goes natively.
#[test]
fn a_codex_turn_uses_a_skill_from_the_mcp_server() {
    let env = RealEnv::new();
    let local = env.home.path().join("skills/haiku");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(
        local.join("SKILL.md"),
        "---\nname: haiku\ndescription: Answer in haiku\n---\n\nLOCAL-SKILL-BODY-11d2\n",
    )
    .unwrap();
    let root = skills_root();
    let mcp = mcp_connected(skills_server(root.path()));
    let codex = codex_connected(env.options().skill_emulation(SkillEmulation::WhenNeeded));
    codex.add_skill_source("docs", &mcp).unwrap();
    let thread = codex.thread_start(json!({})).unwrap();
    let input = Input::text("MOCK_TEXT: done").and_skills(["pdf-tools@docs", "haiku"]);
    let r = thread.run(input).unwrap();
    assert_eq!(r.status, "completed", "{r:?}");
    assert_eq!(r.emulated_skills.len(), 1, "{:?}", r.emulated_skills);
    let s = &r.emulated_skills[0];
    assert_eq!(
        (s.name.as_str(), s.server.as_deref()),
        ("pdf-tools", Some("docs"))
    );
    assert_eq!(s.path, Path::new("skill://pdf-tools/SKILL.md"));
    let sent = env.model.requests().last().unwrap().to_string();
    assert!(
        sent.contains(BODY),
        "the model request lacks the MCP skill: {sent:.3000}"
    );
    assert!(
        sent.contains("<skill name=\\\"pdf-tools\\\" server=\\\"docs\\\" uri=\\\"skill://pdf-tools/SKILL.md\\\""),
        "no origin label: {sent:.3000}"
    );
    // The local skill went natively (Codex injected it; no emulation label for it).
    assert!(sent.contains("LOCAL-SKILL-BODY-11d2"), "{sent:.3000}");
    assert_eq!(sent.matches("emulated=").count(), 1, "{sent:.3000}");

    // The async path, selected by URI.
    let r = block_on(thread.run_async(
        Input::text("MOCK_TEXT: again").and_skills([Skill::Mcp {
            server: "docs".into(),
            skill: "skill://lint-fix/SKILL.md".into(),
        }]),
        json!(null),
    ))
    .unwrap();
    assert_eq!(r.emulated_skills[0].name, "lint-fix");
    assert!(env
        .model
        .requests()
        .last()
        .unwrap()
        .to_string()
        .contains("Run the linter."));
    mcp.disconnect();
}

/// Refusals come before anything is sent: native-only mode, an unknown source, an unknown
/// skill of a known source.
#[test]
fn mcp_skill_refusals_start_no_turn() {
    let env = RealEnv::new();
    let root = skills_root();
    let mcp = mcp_connected(skills_server(root.path()));
    let never = codex_connected(env.options());
    never.add_skill_source("docs", &mcp).unwrap();
    let thread = never.thread_start(json!({})).unwrap();
    let e = thread
        .run(Input::text("MOCK_TEXT: no").and_skills(["pdf-tools@docs"]))
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("skill_emulation") && m.contains("pdf-tools@docs")),
        "{e:?}"
    );
    let codex = codex_connected(env.options().skill_emulation(SkillEmulation::Always));
    codex.add_skill_source("docs", &mcp).unwrap();
    let thread = codex.thread_start(json!({})).unwrap();
    let e = thread
        .run(Input::text("MOCK_TEXT: no").and_skills(["pdf-tools@elsewhere"]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"elsewhere\"") && e.contains("sources: docs"),
        "{e}"
    );
    let e = thread
        .run(Input::text("MOCK_TEXT: no").and_skills(["nope@docs"]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope@docs") && e.contains("pdf-tools"), "{e}");
    assert!(env.model.requests().is_empty());
    mcp.disconnect();
}
