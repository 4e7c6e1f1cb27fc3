#!/usr/bin/env bash
# Idempotent setup: installs the pinned Codex CLIs and MCP test tools (scripts/setup-mcp.sh)
# from the npm registry into a cache (~/.cache/libcodexclient, linked from ./.cache) and builds
# the workspace.
# Used by the README's demo and test commands and by .ci/run.
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

native_path() { # $1 = install dir; prints the native codex binary path, if any
  local d="$1/node_modules/@openai"
  for c in "$d"/codex-linux-*/vendor/*/bin/codex "$d"/codex/vendor/*-unknown-linux-musl/codex/codex; do
    case "$c" in *"$(uname -m)"*) [ -x "$c" ] && { echo "$c"; return 0; } ;; esac
  done
  return 1
}

for v in $CODEX_VERSIONS; do
  dir="$CACHE/codex-$v"
  if ! bin=$(native_path "$dir") || [ "$("$bin" --version 2>/dev/null)" != "codex-cli $v" ]; then
    log "installing @openai/codex@$v from the npm registry into $dir"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && npm install --no-audit --no-fund --loglevel=error "@openai/codex@$v" >&2)
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
    bin=$(native_path "$dir") || { log "no native codex binary in the npm package $v"; exit 1; }
  fi
  ln -sfn "$bin" "$ROOT/.cache/codex-$v"
  log "codex $v: $bin"
done
bash scripts/setup-mcp.sh # MCP test tools: the everything server, the conformance suite, Node 22
bash scripts/setup-tls.sh # stunnel4 (TLS-terminating proxy) and openssl for the wss:// tests

log "building the workspace"
cargo build --workspace --all-targets --quiet
log "done"
