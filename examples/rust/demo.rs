//! Demo: a real Codex turn against the project's bundled local model.
//!
//! Starts the loopback mock model, writes a throwaway `CODEX_HOME` pointing at it, spawns
//! the real `codex app-server`, streams an answer, then runs a turn whose command needs
//! approval and prints the decision and the command's output.
//!
//! Run: `scripts/demo.sh` (or `cargo run -p codex-client-demo -- [--decline]`).

use codex_client::{Client, ClientOptions, Delivery, Event};
use serde_json::json;
use std::io::Write;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let decline = std::env::args().any(|a| a == "--decline");
    // The repository root (this package is examples/rust).
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf();
    // The default Codex: CODEX_DEFAULT of scripts/codex-versions.sh (the one place it lives).
    let versions = std::fs::read_to_string(root.join("scripts/codex-versions.sh"))?;
    let version = versions
        .lines()
        .find_map(|l| l.strip_prefix("CODEX_DEFAULT="))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .ok_or("no CODEX_DEFAULT in scripts/codex-versions.sh")?;
    let codex = std::env::var_os("CODEX_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join(format!(".cache/codex-{version}")));
    if !codex.exists() {
        return Err(format!(
            "Codex {version} not installed: run scripts/setup-codex.sh (or set CODEX_BIN)"
        )
        .into());
    }
    let model = codex_mock_model::MockModel::start()?;
    let scratch = root.join("target/demo");
    let home = scratch.join("codex-home");
    let work = scratch.join("work");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&work)?;
    model.write_codex_home(&home)?;

    let client = Client::new(
        ClientOptions::default()
            .codex_bin(&codex)
            .codex_home(&home)
            .cwd(&work)
            .client_info("codex-client-demo", env!("CARGO_PKG_VERSION"))
            .delivery(Delivery::Poll),
    );
    let init = client.connect()?;
    println!("connected: {}", init.user_agent.unwrap_or_default());
    let thread = client.request_blocking("thread/start", json!({}))?;
    let thread_id = thread["thread"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    println!("thread {thread_id}");

    for prompt in [
        "MOCK_TEXT: Hello! I am a real Codex turn, streamed from a local model, token by token.",
        "MOCK_EXEC: echo 'hello from an approved command'",
    ] {
        println!("\n> {prompt}");
        client.request_blocking(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}),
        )?;
        loop {
            match client.next_event(Some(Duration::from_secs(60)))? {
                Some(Event::Notification(n)) => match n.method.as_str() {
                    "item/agentMessage/delta" => {
                        print!("{}", n.delta().unwrap_or_default());
                        std::io::stdout().flush()?;
                    }
                    "item/completed" => {
                        let item = n.params_value()["item"].clone();
                        match item["type"].as_str() {
                            Some("agentMessage") => println!(),
                            Some("commandExecution") => println!(
                                "[command {}: {}]",
                                item["status"].as_str().unwrap_or("?"),
                                item["aggregatedOutput"].as_str().unwrap_or("").trim()
                            ),
                            _ => {}
                        }
                    }
                    "turn/completed" => {
                        println!(
                            "[turn {}]",
                            n.params_value()["turn"]["status"].as_str().unwrap_or("?")
                        );
                        break;
                    }
                    _ => {}
                },
                Some(Event::ServerRequest(req)) => {
                    let p = req.params_value();
                    let decision = if decline { "decline" } else { "accept" };
                    println!(
                        "[approval requested: {} — `{}` → {decision}]",
                        req.method,
                        p["command"].as_str().unwrap_or("?")
                    );
                    req.respond(&json!({ "decision": decision }))?;
                }
                Some(Event::Connection(e)) => println!("[connection: {e:?}]"),
                Some(_) => {}
                None => return Err("no event for 60 s".into()),
            }
        }
    }
    client.disconnect();
    Ok(())
}
