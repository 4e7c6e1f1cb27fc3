#!/usr/bin/env bash
# Idempotent setup for the test command: installs the pinned Codex CLIs (scripts/setup-codex.sh)
# and MCP test tools (scripts/setup-mcp.sh) from the npm registry into a cache
# (~/.cache/libcodexclient, linked from ./.cache), stunnel (scripts/setup-tls.sh) and builds
# the workspace. Used by scripts/test.sh (the README's test command and .ci/run); the demo
# (scripts/demo.sh) needs only scripts/setup-codex.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
source scripts/codex-versions.sh # CODEX_DEFAULT, CODEX_SMOKE (the versions the tests run)
CODEX_VERSIONS="${CODEX_VERSIONS:-$CODEX_DEFAULT $CODEX_SMOKE 0.92.0}"
mkdir -p "$CACHE" "$ROOT/.cache"

log() { printf '[setup] %s\n' "$*" >&2; }

need() { command -v "$1" >/dev/null 2>&1 || { log "missing $1: $2"; exit 1; }; }
need cargo "install Rust (rustup) first"
need npm "install Node.js and npm (apt-get install nodejs npm)"
export CODEX_VERSIONS
# rustfmt and clippy: the test command's checks (rustup's minimal profile leaves them out).
cargo fmt --version >/dev/null 2>&1 || { log "adding rustfmt (rustup)"; rustup component add rustfmt >&2; }
cargo clippy --version >/dev/null 2>&1 || { log "adding clippy (rustup)"; rustup component add clippy >&2; }

bash scripts/setup-codex.sh # the pinned Codex CLIs ($CODEX_VERSIONS)
bash scripts/setup-mcp.sh # MCP test tools: the everything server, the conformance suite, Node 22
bash scripts/setup-tls.sh # stunnel4 (TLS-terminating proxy) and openssl for the wss:// tests

log "building the workspace"
cargo build --workspace --all-targets --quiet
log "done"
