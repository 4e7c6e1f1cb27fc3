//! The client scenarios of the MCP skills extension (SEP-2640): list the server's skills
//! and read nothing (`sep-2640-client-no-prefetch`); list, then load the first skill the way
//! a host does before using it — `SKILL.md` read and checked against its entry (size,
//! digest, frontmatter) — and only when that holds read its other files, each checked
//! (`sep-2640-client-verify-{digest,size,frontmatter}`: the server serves a tampered
//! `SKILL.md`, so the load must fail and no other file be read).

use codex_client::mcp::SkillResources;
use codex_client::Client;
use futures_executor::block_on;

use super::fail;

/// Run a skills scenario; false when `scenario` is not one of them.
pub fn run(client: &Client, scenario: &str) -> bool {
    let load = match scenario {
        "sep-2640-client-no-prefetch" => false,
        s if s.starts_with("sep-2640-client-verify-") => true,
        _ => return false,
    };
    let skills = block_on(codex_client::McpClient::from_connection(client).list_all_skills())
        .unwrap_or_else(|e| fail(&format!("skills/list: {e}")));
    eprintln!(
        "skills: {:?}",
        skills.iter().map(|s| &s.uri).collect::<Vec<_>>()
    );
    if !load {
        return true;
    }
    let entry = skills
        .first()
        .unwrap_or_else(|| fail("skills/list listed no skill"));
    match block_on(codex_client::McpClient::from_connection(client).load_skill(entry)) {
        // The expected outcome in these scenarios: the tampered SKILL.md is rejected.
        Err(e) => eprintln!("load {} rejected: {e}", entry.uri),
        Ok(skill) => {
            eprintln!("loaded {}", entry.uri);
            if let SkillResources::Listed(files) = &entry.resources {
                for f in files.iter().filter(|f| f.uri != entry.uri) {
                    block_on(
                        codex_client::McpClient::from_connection(client)
                            .read_skill_file(&skill, &f.uri),
                    )
                    .unwrap_or_else(|e| fail(&format!("read {}: {e}", f.uri)));
                }
            }
        }
    }
    true
}
