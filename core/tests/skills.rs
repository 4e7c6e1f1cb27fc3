//! Skills against the real Codex: `skills/list` (0.169.0) reports the `SKILL.md` skills the
//! test writes (user skills under `$CODEX_HOME/skills/`, project skills under `.codex/skills/`
//! of the working directory) with their name, description and path; skills selected by name
//! or path reach the local model natively on the app-server and emulated (a labelled text
//! block) on exec (0.169.0) and the mcp shim (0.92.0); bad selections fail before anything is
//! sent.

mod support;

use codex_client::{
    CodexClient, Error, ExecOptions, Input, SkillEmulation, TransportKind, TurnResult,
};
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
    let c = CodexClient::new(env.options());
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
    let c = CodexClient::new(env.options());
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

/// The body marker of the fixture skills below.
const HAIKU_BODY: &str = "SKILL-BODY-51c2: answer in haiku";
const LINT_BODY: &str = "SKILL-BODY-9e07: run the linter first";

/// A user skill `haiku` and a project skill `lint-fix` in `env`.
fn fixtures(env: &RealEnv) -> (std::path::PathBuf, std::path::PathBuf) {
    let user = write_skill(
        &env.home.path().join("skills"),
        "haiku",
        "Answer in haiku",
        HAIKU_BODY,
    );
    let project = write_skill(
        &env.work.path().join(".codex/skills"),
        "lint-fix",
        "Fix lint warnings",
        LINT_BODY,
    );
    (user, project)
}

fn exec_client(env: &RealEnv) -> CodexClient {
    exec_client_with(env, SkillEmulation::WhenNeeded)
}

fn exec_client_with(env: &RealEnv, mode: SkillEmulation) -> CodexClient {
    codex_connected(
        env.options()
            .transport(TransportKind::Exec(
                ExecOptions::new().skip_git_repo_check(true),
            ))
            .skill_emulation(mode),
    )
}

/// The last request the local model received, as text.
fn last_model_request(env: &RealEnv) -> String {
    env.model
        .requests()
        .last()
        .expect("the model received a request")
        .to_string()
}

/// Check that the emulated skills reached the model labelled, and the result reports them.
fn assert_emulated(env: &RealEnv, r: &TurnResult, names: &[&str], bodies: &[&str]) {
    assert_eq!(r.status, "completed", "{r:?}");
    let got: Vec<&str> = r.emulated_skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(got, names);
    let sent = last_model_request(env);
    for (name, body) in names.iter().zip(bodies) {
        assert!(
            sent.contains(body),
            "the model request lacks {name}: {sent:.3000}"
        );
        let label = format!("<skill name=\\\"{name}\\\" path=\\\"");
        assert!(sent.contains(&label), "no label {label}: {sent:.3000}");
    }
    assert!(sent.contains("emulated=\\\"true\\\""), "{sent:.3000}");
}

/// Skills Codex lists go natively; one it does not know (a path outside its skill folders),
/// which the app-server would silently leave out, is emulated.
#[test]
fn app_server_sends_listed_skills_natively_and_emulates_a_loose_one() {
    let env = RealEnv::new();
    let (_, project) = fixtures(&env);
    // A skill outside the folders Codex searches, selected by the path of its SKILL.md.
    let loose_body = "SKILL-BODY-c3a8: loose skill";
    let loose = write_skill(
        &env.work.path().join("elsewhere"),
        "loose",
        "Loose",
        loose_body,
    );
    let c = codex_connected(env.options().skill_emulation(SkillEmulation::WhenNeeded));
    let thread = c.thread_start(json!({})).unwrap();
    let input = Input::text("MOCK_TEXT: done")
        .and_skill_named("haiku")
        .and_skill_at(project.parent().unwrap())
        .and_skill_at(&loose);
    let r = thread.run(input).unwrap();
    assert_emulated(&env, &r, &["loose"], &[loose_body]);
    let sent = last_model_request(&env);
    for body in [HAIKU_BODY, LINT_BODY] {
        assert!(
            sent.contains(body),
            "the model request lacks {body}: {sent:.3000}"
        );
    }
    assert_eq!(sent.matches("emulated=").count(), 1, "{sent:.3000}");
}

#[test]
fn app_server_unknown_skill_fails_before_a_turn_starts() {
    let env = RealEnv::new();
    fixtures(&env);
    let c = codex_connected(env.options());
    let thread = c.thread_start(json!({})).unwrap();
    let e = thread
        .run(Input::text("MOCK_TEXT: never").and_skill_named("nope"))
        .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert!(
        msg.contains("\"nope\"") && msg.contains("haiku") && msg.contains("lint-fix"),
        "{msg}"
    );
    // Nothing was sent: the next turn is the thread's first and the model's first request.
    let r = thread.run("MOCK_TEXT: first").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("first"));
    assert_eq!(env.model.requests().len(), 1);
    let turns = thread.read(true).unwrap()["thread"]["turns"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(turns, 1);
}

#[test]
fn exec_emulates_skills_by_name_and_by_path() {
    let env = RealEnv::new();
    let (_, project) = fixtures(&env);
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let input = Input::text("MOCK_TEXT: done")
        .and_skill_named("haiku")
        .and_skill_at(&project);
    let r = thread.run(input).unwrap();
    assert_emulated(&env, &r, &["haiku", "lint-fix"], &[HAIKU_BODY, LINT_BODY]);
    assert_eq!(r.final_response.as_deref(), Some("done"));
    assert_eq!(r.emulated_skills[1].description, "Fix lint warnings");
    assert_eq!(
        std::fs::canonicalize(&r.emulated_skills[1].path).unwrap(),
        std::fs::canonicalize(&project).unwrap()
    );
}

#[test]
fn exec_emulation_works_async_and_streamed() {
    let env = RealEnv::new();
    fixtures(&env);
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let input = Input::text("MOCK_TEXT: async").and_skills(["lint-fix"]);
    let r = futures_executor::block_on(thread.run_async(input, serde_json::Value::Null)).unwrap();
    assert_emulated(&env, &r, &["lint-fix"], &[LINT_BODY]);
    let s = thread
        .run_streamed(Input::text("MOCK_TEXT: streamed").and_skills(["haiku"]))
        .unwrap();
    let r = s.finish().unwrap();
    assert_emulated(&env, &r, &["haiku"], &[HAIKU_BODY]);
}

#[test]
fn mcp_shim_emulates_skills() {
    let env = RealEnv::new();
    fixtures(&env);
    let c = codex_connected(mcp_options(&env).skill_emulation(SkillEmulation::WhenNeeded));
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread
        .run(Input::text("MOCK_TEXT: over mcp").and_skill_named("haiku"))
        .unwrap();
    assert_emulated(&env, &r, &["haiku"], &[HAIKU_BODY]);
    assert_eq!(r.final_response.as_deref(), Some("over mcp"));
}

#[test]
fn bad_skills_fail_before_anything_is_sent() {
    let env = RealEnv::new();
    fixtures(&env);
    let c = exec_client(&env);
    let thread = c.thread_start(json!({})).unwrap();
    let empty = env.work.path().join("empty-skill");
    std::fs::create_dir_all(&empty).unwrap();
    let locked = write_skill(env.work.path(), "locked", "Locked", "x");
    std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let mut cases = vec![
        (
            Input::text("MOCK_TEXT: x").and_skill_named("nope"),
            "unknown skill \"nope\"; available skills: haiku, lint-fix",
        ),
        (
            Input::text("MOCK_TEXT: x").and_skill_at(env.work.path().join("missing/SKILL.md")),
            "cannot read skill",
        ),
        (
            Input::text("MOCK_TEXT: x").and_skill_at(&empty),
            "has no SKILL.md",
        ),
    ];
    // Root reads any file: the permission case only holds for other users.
    if std::fs::read(&locked).is_err() {
        cases.push((
            Input::text("MOCK_TEXT: x").and_skill_at(&locked),
            "ermission denied",
        ));
    }
    for (input, want) in cases {
        let e = thread.run(input).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
        assert!(e.to_string().contains(want), "{e} lacks {want}");
    }
    // Nothing was sent: the model never saw a request, the next turn works.
    assert!(env.model.requests().is_empty());
    let r = thread.run("MOCK_TEXT: after").unwrap();
    assert_eq!(r.final_response.as_deref(), Some("after"));
    assert_eq!(env.model.requests().len(), 1);
}

/// The switch: by default (`never`) a skill the server cannot take natively refuses the turn
/// before anything is sent (exec; a path the app-server does not list); `always` emulates
/// even on an app-server that has the native item.
#[test]
fn skill_emulation_never_refuses_and_always_emulates() {
    let env = RealEnv::new();
    fixtures(&env);
    let c = exec_client_with(&env, SkillEmulation::default());
    let thread = c.thread_start(json!({})).unwrap();
    let e = thread
        .run(Input::text("MOCK_TEXT: x").and_skill_named("haiku"))
        .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert!(
        e.to_string().contains("skill_emulation") && e.to_string().contains("codex exec"),
        "{e}"
    );
    c.disconnect();

    let loose = write_skill(&env.work.path().join("elsewhere"), "loose", "Loose", "x");
    let c = codex_connected(env.options());
    let thread = c.thread_start(json!({})).unwrap();
    let e = thread
        .run(Input::text("MOCK_TEXT: x").and_skill_at(&loose))
        .unwrap_err();
    assert!(e.to_string().contains("is not one Codex lists"), "{e}");
    assert!(env.model.requests().is_empty(), "nothing was sent");
    // Listed skills go natively under the default.
    let r = thread
        .run(Input::text("MOCK_TEXT: native").and_skill_named("haiku"))
        .unwrap();
    assert!(r.emulated_skills.is_empty(), "{r:?}");
    c.disconnect();

    let c = codex_connected(env.options().skill_emulation(SkillEmulation::Always));
    let thread = c.thread_start(json!({})).unwrap();
    let r = thread
        .run(Input::text("MOCK_TEXT: emulated").and_skill_named("haiku"))
        .unwrap();
    assert_emulated(&env, &r, &["haiku"], &[HAIKU_BODY]);
}
