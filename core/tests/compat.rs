//! The compatibility report against the real Codex binaries `scripts/setup.sh` installs: the
//! library's own schema version (no differences, inside the supported window) and 0.92.0
//! (many; older than the window), from the library call and from the `codex-client compat`
//! command.

mod support;

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use codex_client::compat::{self, Change, CompatReport, Section, Verdict};
use codex_client::Error;

fn expect(
    r: &CompatReport,
    s: Section,
    name: &str,
    member: Option<&str>,
    change: Change,
    verdict: Verdict,
) -> String {
    let d = r
        .find(s, name, member)
        .unwrap_or_else(|| panic!("no {s:?} {name} {member:?} in the report:\n{r}"));
    assert_eq!((d.change, d.verdict), (change, verdict), "{d:?}");
    d.detail.clone()
}

/// Temporary directories of reports made by this process.
fn leftover_temp_dirs() -> Vec<String> {
    let prefix = format!("codex-client-compat-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

/// Child processes of this process that still exist (zombies included).
fn children() -> Vec<String> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        out.extend(text.split_whitespace().map(str::to_owned));
    }
    out
}

/// The tests run one after another: the checks on temporary directories and child processes
/// look at this whole process.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn library_reports_on_its_own_version_and_0_92_0() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let schema_version = codex_client::protocol::SCHEMA_CODEX_VERSION;
    let same = compat::report(&support::codex_bin_of(schema_version)).unwrap();
    assert!(same.is_identical(), "{same}");
    assert!(same.experimental_compared);
    assert_eq!(same.codex_version.as_deref(), Some(schema_version));
    assert_eq!(same.library_version, schema_version);
    assert!(same.to_string().contains("No differences"), "{same}");
    // Where it stands in the window: inside, exactly a window version.
    assert!(same.standing().in_window());
    assert_eq!(same.standing().matches, Some(schema_version));
    let text = same.to_string();
    assert!(
        text.contains("Supported window: Codex 0.163.0..")
            && text.contains(&format!("window version {schema_version}")),
        "{text}"
    );
    let j = same.to_json();
    assert_eq!(
        (j["window_position"].as_str(), j["window_match"].as_str()),
        (Some("inside"), Some(schema_version))
    );
    assert!(j["window"]
        .as_array()
        .unwrap()
        .iter()
        .any(|v| v == "0.163.0"));

    let old = compat::report(&support::codex_092_bin()).unwrap();
    assert_eq!(old.codex_version.as_deref(), Some("0.92.0"));
    assert_eq!(old.standing().position, codex_client::WindowPosition::Older);
    assert!(
        old.to_string()
            .contains("this Codex 0.92.0 is OLDER than the window"),
        "{old}"
    );
    assert_eq!(old.to_json()["window_position"], "older");
    assert!(
        !old.experimental_compared,
        "0.92.0 has no generate-json-schema --experimental"
    );
    use {Change::*, Section::*, Verdict::*};
    // Methods of 0.169.0 that 0.92.0 lacks: the server refuses them, helpers too.
    let d = expect(
        &old,
        ClientMethod,
        "thread/compact/start",
        None,
        Removed,
        Refused,
    );
    assert!(d.contains("thread_compact helper fails"), "{d}");
    let d = expect(&old, ClientMethod, "turn/steer", None, Removed, Refused);
    assert!(d.contains("steer helper fails"), "{d}");
    expect(&old, ClientMethod, "fs/readFile", None, Removed, Refused);
    // 0.92.0's own methods and notifications: untyped.
    expect(&old, ClientMethod, "thread/rollback", None, Added, KeptRaw);
    expect(&old, ClientMethod, "newConversation", None, Added, KeptRaw);
    expect(
        &old,
        ServerNotification,
        "sessionConfigured",
        None,
        Added,
        KeptRaw,
    );
    expect(
        &old,
        ServerNotification,
        "thread/status/changed",
        None,
        Removed,
        Unused,
    );
    expect(
        &old,
        ServerRequest,
        "item/permissions/requestApproval",
        None,
        Removed,
        Unused,
    );
    // Union variants and enum values.
    expect(
        &old,
        UnionVariant,
        "ThreadItem",
        Some("plan"),
        Removed,
        Unused,
    );
    expect(
        &old,
        UnionVariant,
        "UserInput",
        Some("mention"),
        Removed,
        MayFail,
    );
    expect(
        &old,
        UnionVariant,
        "AskForApproval",
        Some("on-failure"),
        Added,
        KeptRaw,
    );
    expect(
        &old,
        EnumValue,
        "ModeKind",
        Some("pair_programming"),
        Added,
        KeptRaw,
    );
    expect(
        &old,
        EnumValue,
        "ThreadSortKey",
        Some("recency_at"),
        Removed,
        MayFail,
    );
    // A field the typed decoder requires that 0.92.0 does not send.
    expect(
        &old,
        TypeField,
        "ToolRequestUserInputParams",
        Some("isBlocking"),
        Removed,
        MayFail,
    );
    let d = expect(
        &old,
        ServerRequest,
        "item/tool/requestUserInput",
        None,
        Changed,
        MayFail,
    );
    assert!(d.contains("fail-closed"), "{d}");
    let text = old.to_string();
    assert!(text.starts_with("Codex 0.92.0 ("), "{text}");
    assert!(
        text.contains(&format!("{} differences", old.differences.len())),
        "{text}"
    );
    let json = old.to_json();
    assert_eq!(json["identical"], false);
    assert_eq!(json["counts"]["refused"], old.count(Refused));
    assert_eq!(json["codex_version"], "0.92.0");

    // A binary that is not there: a clear error naming what to install.
    let missing = compat::report(Path::new("/nonexistent/codex")).unwrap_err();
    assert!(
        matches!(&missing, Error::Transport(m) if m.contains("npm install -g @openai/codex")),
        "{missing}"
    );
    // Past the timeout the child is killed and reaped.
    let timeout = compat::report_with_timeout(&support::codex_bin(), Duration::ZERO).unwrap_err();
    assert!(matches!(timeout, Error::Timeout { .. }), "{timeout}");
    assert_eq!(children(), Vec::<String>::new(), "no child process left");
    assert_eq!(
        leftover_temp_dirs(),
        Vec::<String>::new(),
        "temporary directories removed"
    );
}

fn command(codex: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_codex-client"))
        .arg("compat")
        .arg("--codex")
        .arg(codex)
        .args(extra)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

#[test]
fn command_reports_and_exit_status() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let schema_version = codex_client::protocol::SCHEMA_CODEX_VERSION;
    let (code, stdout, _) = command(&support::codex_bin_of(schema_version), &[]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("No differences"), "{stdout}");
    assert!(
        stdout.contains("this Codex is inside it: window version"),
        "{stdout}"
    );
    // The default Codex (the window's newest) stands inside the window too.
    let (_, stdout, _) = command(&support::codex_bin(), &[]);
    assert!(
        stdout.contains(&format!("window version {}", support::codex_version())),
        "{stdout}"
    );

    let (code, stdout, _) = command(&support::codex_092_bin(), &[]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("removed  thread/compact/start"), "{stdout}");
    let (code, stdout, _) = command(&support::codex_092_bin(), &["--json"]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["identical"], false);
    let steer = json["differences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "turn/steer")
        .unwrap();
    assert_eq!(
        (steer["section"].as_str(), steer["verdict"].as_str()),
        (Some("client_method"), Some("refused"))
    );

    let (code, _, stderr) = command(Path::new("/nonexistent/codex"), &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("npm install -g @openai/codex"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_codex-client"))
        .arg("nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: codex-client compat"));
}
