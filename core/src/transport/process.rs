//! Spawning `codex app-server` as a child process with piped stdio.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::error::{Error, Result};
use crate::options::{ClientOptions, McpCommand};

/// How long a server gets to exit on its own after its stdin is closed before it is killed.
pub(crate) const EXIT_GRACE: Duration = Duration::from_millis(500);

/// A spawned server process with its three pipes taken out.
pub(crate) struct ServerProcess {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
}

/// Build the command line: `codex [-c k=v]... app-server [args]...`.
pub(crate) fn command(opts: &ClientOptions) -> Result<Command> {
    subcommand(opts, "app-server")
}

/// `codex [-c k=v]... <sub> [args]...` with the client's process settings ([`configure`]).
pub(crate) fn subcommand(opts: &ClientOptions, sub: &str) -> Result<Command> {
    let line = codex_command_line(opts, sub)?;
    let mut cmd = Command::new(&line.program);
    cmd.args(&line.args);
    configure(&mut cmd, opts, opts.cwd.as_deref());
    tracing::debug!(bin = %line.program.display(), sub, "spawning codex");
    Ok(cmd)
}

/// The program and arguments of `codex [-c k=v]... <sub> [args]...` (the client's binary,
/// config overrides and extra arguments).
pub(crate) fn codex_command_line(opts: &ClientOptions, sub: &str) -> Result<McpCommand> {
    let bin = super::binary::resolve_codex_bin(opts.codex_bin.as_deref())?;
    let mut args = Vec::with_capacity(2 * opts.config_overrides.len() + 1 + opts.args.len());
    for (k, v) in &opts.config_overrides {
        args.push("-c".to_owned());
        args.push(format!("{k}={v}"));
    }
    args.push(sub.to_owned());
    args.extend(opts.args.iter().cloned());
    Ok(McpCommand { program: bin, args })
}

/// Apply the client's process settings: env (merged into the inherited one unless
/// `clear_env`), `CODEX_HOME`, working directory, piped stdio, kill on drop, and an own
/// process group so teardown can stop the process and every command it started.
pub(crate) fn configure(cmd: &mut Command, opts: &ClientOptions, cwd: Option<&Path>) {
    if opts.clear_env {
        cmd.env_clear();
    }
    cmd.envs(opts.env.iter().map(|(k, v)| (k, v)));
    if let Some(home) = &opts.codex_home {
        cmd.env("CODEX_HOME", home);
    }
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
}

/// Spawn the server. Must run inside a tokio runtime.
pub(crate) fn spawn(opts: &ClientOptions) -> Result<ServerProcess> {
    spawn_command(command(opts)?)
}

/// The command of an MCP server ([`McpCommand`]) with the client's process settings.
pub(crate) fn mcp_command(opts: &ClientOptions, mcp: &McpCommand) -> Command {
    let mut cmd = Command::new(&mcp.program);
    cmd.args(&mcp.args);
    configure(&mut cmd, opts, opts.cwd.as_deref());
    tracing::debug!(program = %mcp.program.display(), "spawning an MCP server");
    cmd
}

/// Spawn `cmd` (configured by [`configure`]). Must run inside a tokio runtime.
pub(crate) fn spawn_command(mut cmd: Command) -> Result<ServerProcess> {
    let mut child = cmd.spawn().map_err(|e| {
        let prog = format!("{:?}", cmd.as_std().get_program());
        Error::Transport(format!("could not start {prog}: {e}"))
    })?;
    let stdin = child.stdin.take().expect("stdin was piped");
    let stdout = child.stdout.take().expect("stdout was piped");
    let stderr = child.stderr.take().expect("stderr was piped");
    Ok(ServerProcess {
        child,
        stdin,
        stdout,
        stderr,
    })
}

/// Stop the server: it normally exits on stdin EOF (already closed by the caller); after
/// `grace` it is killed. Either way whatever else is left in its process group (`pid` is the
/// group's id: commands it started, a process holding its pipes) is killed too. Always reaps
/// the child. Returns a description of how it exited.
pub(crate) async fn stop(child: &mut Child, pid: Option<u32>, grace: Duration) -> String {
    let status = match child.try_wait() {
        Ok(Some(status)) => Ok(status),
        _ => match tokio::time::timeout(grace, child.wait()).await {
            Ok(waited) => waited,
            Err(_) => {
                kill_group(pid);
                let _ = child.start_kill();
                child.wait().await
            }
        },
    };
    kill_group(pid);
    match status {
        Ok(status) => describe(status),
        Err(e) => describe_wait_error("the server process", &e),
    }
}

/// Kill every process of the group a spawned process leads (`pid` = its process id = the
/// group id; best effort).
pub(crate) fn kill_group(pid: Option<u32>) {
    #[cfg(not(unix))]
    let _ = pid;
    #[cfg(unix)]
    if let Some(pid) = pid {
        // SAFETY: plain syscall on a process group id we created; errors (no such group)
        // are ignored.
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }
}

/// Whether waiting for a child failed because the system already reaped it: this process
/// ignores SIGCHLD (the Erlang VM does: a NIF's children are reaped by the kernel the moment
/// they exit), so the exit status is gone (`ECHILD`).
pub(crate) fn reaped_elsewhere(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(libc::ECHILD);
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Describe a failed wait for `what` ("the server process", "codex exec") in words.
pub(crate) fn describe_wait_error(what: &str, e: &std::io::Error) -> String {
    if reaped_elsewhere(e) {
        format!(
            "{what} ended; its exit status was lost (this process ignores SIGCHLD, as the Erlang VM does, so the system reaped it)"
        )
    } else {
        format!("could not wait for {what}: {e}")
    }
}

/// Describe an exit status in words.
pub(crate) fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("server process killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("server process exited with status {code}"),
        None => "server process exited".into(),
    }
}
