//! `codex-client`: the library's command line.
//!
//! ```text
//! codex-client compat [--codex PATH] [--json]
//! codex-client options [--json]
//! ```
//! `options` prints every client option (name, kind, default, meaning) as a Markdown table,
//! or as JSON ([`codex_client::options::keys_json`]).
//!
//! prints the compatibility report of a Codex binary (default: `codex` on `PATH`) against the
//! library's schema ([`codex_client::compat::report`]). Exit status: 0 no differences,
//! 1 differences, 2 error (usage, binary missing or failing).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: codex-client compat [--codex PATH] [--json] | options [--json]\n\
    \n  options  every client option: name, kind, default, meaning (--json: as JSON)\
    \n  compat   compare a Codex binary's protocol with the library's (exit 0: no differences,\n           1: differences, 2: error)\n  --codex  the codex binary (default: `codex` on PATH)\n  --json   the report as JSON";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("options") {
        let text = match args.get(1).map(String::as_str) {
            None => codex_client::options::keys_markdown(),
            Some("--json") => codex_client::options::keys_json() + "\n",
            Some(other) => {
                eprintln!("unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        return ExitCode::SUCCESS;
    }
    let (codex, json) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(msg) => {
            eprintln!("{msg}{USAGE}");
            return ExitCode::from(2);
        }
    };
    match codex_client::compat::report(&codex) {
        Ok(report) => {
            let text = if json {
                format!("{:#}\n", report.to_json())
            } else {
                report.to_string()
            };
            // A reader that stops early (`| head`) is not an error.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            ExitCode::from(u8::from(!report.is_identical()))
        }
        Err(e) => {
            eprintln!("codex-client compat: {e}");
            ExitCode::from(2)
        }
    }
}

/// `compat [--codex PATH] [--json]` -> (codex binary, json).
fn parse(args: &[String]) -> Result<(PathBuf, bool), String> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("compat") => {}
        Some("-h" | "--help") => return Err(String::new()),
        Some(other) => return Err(format!("unknown command {other:?}\n")),
        None => return Err(String::new()),
    }
    let (mut codex, mut json) = (PathBuf::from("codex"), false);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--codex" => codex = it.next().ok_or("--codex needs a path\n")?.into(),
            other => return Err(format!("unknown argument {other:?}\n")),
        }
    }
    Ok((codex, json))
}
