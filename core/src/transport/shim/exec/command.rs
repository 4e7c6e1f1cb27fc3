//! The command line of one turn: `codex exec --json … [resume SESSION] -`.

use serde_json::json;
use std::path::Path;
use tokio::process::Command;

use super::map::toml_value;
use super::threads::{Settings, ThreadState};
use super::ExecShim;

impl ExecShim {
    /// Build the `codex exec` command for one turn. Returns the command and the temporary
    /// output-schema file, if any.
    pub(super) fn command(
        &self,
        t: &ThreadState,
        s: &Settings,
        images: &[String],
        schema: Option<&Path>,
    ) -> Command {
        let mut cmd = Command::new(&self.bin);
        cmd.arg("exec").arg("--json");
        for (k, v) in &self.opts.config_overrides {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        for (k, v) in &s.config {
            cmd.arg("-c").arg(format!("{k}={v}"));
        }
        if self.skip_git_repo_check {
            cmd.arg("--skip-git-repo-check");
        }
        if let Some(m) = &s.model {
            cmd.arg("--model").arg(m);
        }
        if let Some(m) = &s.sandbox {
            cmd.arg("--sandbox").arg(m);
        }
        if let Some(d) = &s.cwd {
            cmd.arg("--cd").arg(d);
        }
        for d in &s.add_dirs {
            cmd.arg("--add-dir").arg(d);
        }
        if let Some(e) = &s.effort {
            cmd.arg("-c")
                .arg(format!("model_reasoning_effort={}", toml_value(&json!(e))));
        }
        if let Some(e) = &s.summary {
            cmd.arg("-c")
                .arg(format!("model_reasoning_summary={}", toml_value(&json!(e))));
        }
        if let Some(n) = s.network_access {
            cmd.arg("-c")
                .arg(format!("sandbox_workspace_write.network_access={n}"));
        }
        if let Some(w) = self.web_search {
            cmd.arg("-c").arg(format!(
                "web_search={}",
                if w { "\"live\"" } else { "\"disabled\"" }
            ));
        }
        if let Some(p) = &s.approval_policy {
            cmd.arg("-c")
                .arg(format!("approval_policy={}", toml_value(&json!(p))));
        }
        if s.ephemeral {
            cmd.arg("--ephemeral");
        }
        if let Some(f) = schema {
            cmd.arg("--output-schema").arg(f);
        }
        for i in images {
            cmd.arg("--image").arg(i);
        }
        cmd.args(&self.opts.args);
        if let Some(session) = t.session_id.lock().unwrap().as_ref() {
            cmd.arg("resume").arg(session);
        }
        cmd.arg("-");
        crate::transport::process::configure(
            &mut cmd,
            &self.opts,
            s.cwd.as_deref().or(self.opts.cwd.as_deref()),
        );
        cmd
    }
}
