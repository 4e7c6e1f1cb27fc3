//! Neither client carries the other protocol's methods, nor the connection either's (issue
//! 42): no public method of `CodexClient` is on `McpClient` or `Client`, no public method of
//! `McpClient` is on `CodexClient` or `Client`, deprecated or not. (The deprecated forwards
//! that were on `Client` were removed before 0.2.0 shipped.)
//!
//! How, without a `compile_fail` doctest per name: for each name a probe trait with an
//! associated function of that name, implemented for every type. `<T>::name` resolves to T's
//! own public method when it has one (an inherent item comes before a trait's) and to the
//! probe otherwise, which `type_name_of_val` tells apart. The names are the macro's lists
//! below, and `the_lists_are_the_clients_public_methods` reads them from the sources (every
//! `pub fn` of an `impl CodexClient` / `impl McpClient` block under `core/src`, and the
//! entries of `mcp_requests!`), so a method added to either client without being added here
//! fails. The `compile_fail` doctests on `CodexClient` and `McpClient` show the same for one
//! name each, `Client` included.

use std::any::type_name_of_val;
use std::collections::BTreeSet;
use std::path::Path;

use codex_client::{Client, CodexClient, McpClient};

/// What a probe returns: the type's own method was not found.
pub struct Absent;

macro_rules! probes {
    (codex: [$($c:ident),* $(,)?], mcp: [$($m:ident),* $(,)?] $(,)?) => {
        $(
            #[allow(non_snake_case, dead_code)]
            mod $c {
                pub trait Probe {
                    fn $c() -> super::Absent {
                        super::Absent
                    }
                }
                impl<T: ?Sized> Probe for T {}
            }
        )*
        $(
            #[allow(non_snake_case, dead_code)]
            mod $m {
                pub trait Probe {
                    fn $m() -> super::Absent {
                        super::Absent
                    }
                }
                impl<T: ?Sized> Probe for T {}
            }
        )*

        const CODEX: &[&str] = &[$(stringify!($c)),*];
        const MCP: &[&str] = &[$(stringify!($m)),*];

        /// Each name found on a type it must not be on: (type, name, what it resolved to).
        fn found() -> Vec<(&'static str, &'static str, &'static str)> {
            let mut found = Vec::new();
            $(
                {
                    use $c::Probe as _;
                    for (ty, got) in [
                        ("McpClient", type_name_of_val(&McpClient::$c)),
                        ("Client", type_name_of_val(&Client::$c)),
                    ] {
                        if !got.contains("Probe") {
                            found.push((ty, stringify!($c), got));
                        }
                    }
                }
            )*
            $(
                {
                    use $m::Probe as _;
                    for (ty, got) in [
                        ("CodexClient", type_name_of_val(&CodexClient::$m)),
                        ("Client", type_name_of_val(&Client::$m)),
                    ] {
                        if !got.contains("Probe") {
                            found.push((ty, stringify!($m), got));
                        }
                    }
                }
            )*
            found
        }
    };
}

probes! {
    codex: [
        add_skill_source, call, call_async, call_async_with, call_with, clear_thread_handlers,
        config_batch_write, feedback_upload, login_api_key, login_api_key_blocking,
        login_chatgpt, login_chatgpt_blocking, login_device_code, login_device_code_blocking,
        logout, logout_blocking, mcp_server_oauth_login, mcp_server_status, on_command_approval,
        on_file_change_approval, on_request, on_thread_request, rate_limits,
        rate_limits_blocking, remove_skill_source, server_version, skill_source_labels,
        supports, thread, thread_fork,
        thread_resume, thread_resume_async, thread_resume_ref, thread_resume_ref_async,
        thread_start, thread_start_async,
    ],
    mcp: [
        call_tool, call_tool_as_task, call_tool_with_progress, cancel_task, complete,
        find_skill, get_prompt, get_skill, get_task, list_all_prompts,
        list_all_resource_templates, list_all_resources, list_all_skills, list_all_tools,
        list_prompts, list_resource_templates, list_resources, list_skills, list_skills_json,
        list_skills_json_blocking, list_tasks, list_tools, listen, listen_blocking,
        listen_within, load_skill, load_skill_json, load_skill_json_blocking, mcp_with, ping,
        read_resource, read_skill_file, serves_skills, set_logging_level, start_with_progress,
        subscribe_resource, task_result, task_tool_result, unsubscribe_resource,
        wait_elicitations_complete, wait_elicitations_complete_blocking, wait_task,
    ],
}

#[test]
fn no_client_has_a_method_of_the_other_protocol() {
    let found = found();
    assert!(
        found.is_empty(),
        "methods on a type that must not have them (type, name, resolved to): {found:#?}"
    );
}

#[test]
fn the_probe_finds_a_types_own_method() {
    // Not vacuous: where the method is there, the path resolves to it, not to the probe.
    use list_tools::Probe as _;
    use thread_start::Probe as _;
    assert!(!type_name_of_val(&McpClient::list_tools).contains("Probe"));
    assert!(!type_name_of_val(&CodexClient::thread_start).contains("Probe"));
    assert!(type_name_of_val(&CodexClient::list_tools).contains("Probe"));
    assert!(type_name_of_val(&McpClient::thread_start).contains("Probe"));
}

/// The public methods the sources define on `ty` (`CodexClient` or `McpClient`).
fn public_methods(ty: &str) -> BTreeSet<String> {
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut paths,
    );
    let head = format!("impl {ty} {{");
    let mut names = BTreeSet::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        // Inside a block: whether `async fn` lines are public (the entries of `mcp_requests!`).
        let mut inside: Option<bool> = None;
        for line in text.lines() {
            if line == head {
                inside = Some(false);
            } else if ty == "McpClient" && line == "mcp_requests! {" {
                inside = Some(true);
            } else if line == "}" {
                inside = None;
            } else if let Some(entries) = inside {
                let rest = line
                    .strip_prefix("    pub fn ")
                    .or_else(|| line.strip_prefix("    pub async fn "))
                    .or_else(|| {
                        entries
                            .then(|| line.strip_prefix("    async fn "))
                            .flatten()
                    });
                if let Some(rest) = rest {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.insert(name);
                }
            }
        }
    }
    names
}

#[test]
fn the_lists_are_the_clients_public_methods() {
    for (ty, listed) in [("CodexClient", CODEX), ("McpClient", MCP)] {
        let listed: BTreeSet<String> = listed.iter().map(|s| s.to_string()).collect();
        let defined = public_methods(ty);
        assert!(defined.len() > 20, "{ty}: read only {defined:?}");
        let missing: Vec<_> = defined.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&defined).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "{ty}: defined but not probed here {missing:?}; probed but not defined {stale:?}"
        );
    }
}
