//! Skills against the real Codex 0.169.0: `skills/list` reports the `SKILL.md` skills the test
//! writes (user skills under `$CODEX_HOME/skills/`, project skills under `.codex/skills/` of the
//! working directory) with their name, description and path.

mod support;

use codex_client::Client;
use serde_json::json;
use support::*;

fn write_skill(
    dir: &std::path::Path,
    name: &str,
    description: &str,
    body: &str,
) -> std::path::PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    let path = d.join("SKILL.md");
    std::fs::write(
        &path,
        format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}\n"),
    )
    .unwrap();
    path
}

#[test]
fn skills_list_reports_the_skill_md_fixtures() {
    let env = RealEnv::new();
    let user = write_skill(
        &env.home.path().join("skills"),
        "release-notes",
        "Write release notes from the git log",
        "Read the log, group by kind.",
    );
    let project = write_skill(
        &env.work.path().join(".codex/skills"),
        "lint-fix",
        "Fix lint warnings in this project",
        "Run the linter, fix, repeat.",
    );
    let c = Client::new(env.options());
    c.connect().unwrap();
    let r = c
        .request_blocking(
            "skills/list",
            json!({"cwds": [env.work.path()], "forceReload": true}),
        )
        .unwrap();
    let skills: Vec<&serde_json::Value> = r["data"]
        .as_array()
        .unwrap_or_else(|| panic!("skills/list result: {r}"))
        .iter()
        .flat_map(|entry| entry["skills"].as_array().into_iter().flatten())
        .collect();
    let find = |name: &str| {
        skills
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("skill {name} not listed: {r}"))
    };
    let canon = |p: &std::path::Path| std::fs::canonicalize(p).unwrap();
    for (name, description, path) in [
        (
            "release-notes",
            "Write release notes from the git log",
            &user,
        ),
        ("lint-fix", "Fix lint warnings in this project", &project),
    ] {
        let s = find(name);
        assert_eq!(s["description"], description, "{s}");
        assert_eq!(
            canon(std::path::Path::new(s["path"].as_str().unwrap())),
            canon(path),
            "{s}"
        );
        assert_eq!(s["enabled"], true, "{s}");
    }
}

#[test]
fn a_native_skill_input_reaches_the_model() {
    let env = RealEnv::new();
    let marker = "SKILL-BODY-7d41: always answer in haiku";
    let path = write_skill(
        &env.home.path().join("skills"),
        "haiku",
        "Answer in haiku",
        marker,
    );
    let c = Client::new(env.options());
    c.connect().unwrap();
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread
        .run(codex_client::Input::text("MOCK_TEXT: done").and_skill("haiku", &path))
        .unwrap();
    assert_eq!(r.status, "completed");
    // What the local model received: Codex injected the SKILL.md body into the request.
    let sent = env.model.requests().last().unwrap().to_string();
    assert!(
        sent.contains("SKILL-BODY-7d41"),
        "the model request lacks the skill: {sent:.2000}"
    );
}
