#!/usr/bin/env bash
# Idempotent: installs the pinned Codex CLIs ($CODEX_VERSIONS, default: CODEX_DEFAULT of scripts/codex-versions.sh and 0.92.0) from
# the npm registry into the cache (~/.cache/libcodexclient/codex-<version>) and links each
# native binary as ./.cache/codex-<version>. Needs only npm. Called by scripts/setup.sh (every
# version the tests use) and scripts/demo.sh (CODEX_VERSIONS=$CODEX_DEFAULT: the demo's one Codex).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
source scripts/codex-versions.sh
CODEX_VERSIONS="${CODEX_VERSIONS:-$CODEX_DEFAULT 0.92.0}"
mkdir -p "$CACHE" "$ROOT/.cache"

log() { printf '[setup-codex] %s\n' "$*" >&2; }
command -v npm >/dev/null 2>&1 || { log "missing npm: install Node.js and npm (apt-get install nodejs npm)"; exit 1; }

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
