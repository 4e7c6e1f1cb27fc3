#!/usr/bin/env bash
# Build and install everything the benchmarks need (release builds, a venv with OpenAI's
# Python SDK 0.163.0 on the pyenv Python 3.12, a venv with our `codexclient`), then run
# bench/run.py: every consumer, alternating, several rounds, medians, ratios and targets.
# Then the MCP part, bench/mcp/run.py: `tools/call` round trips on the everything server over
# stdio and Streamable HTTP, our clients beside rmcp 3.11.0 (bench/mcp/rmcp_client, built into
# its own target dir) and the official Python SDK `mcp` 2.3.0 (venv bench-venv-mcp).
# Usage: scripts/bench.sh [--mcp | --no-mcp] [--rounds R] [--sizes 200000,1000000]
#                         [--rtt-calls N] [--startup-reps N] [--mcp-calls N]
#                         [--clients 1,10,50,200] [--per-client N] [--scaling-only]
#   --mcp: only the MCP part; --no-mcp: without it. --scaling-only: only the client-scaling
#   table (Rust, C, our Python and the official Python SDK side by side).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
log() { printf '[bench] %s\n' "$*" >&2; }

parts="codex mcp" args=() mcp_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --mcp) parts=mcp ;;
    --no-mcp) parts=codex ;;
    --scaling-only) parts=codex; args+=("$1") ;;
    --mcp-calls) mcp_args+=(--calls "$2"); shift ;;
    --rounds) args+=("$1" "$2"); mcp_args+=("$1" "$2"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done

bash scripts/setup.sh
log "release build"
cargo build --release --quiet -p codex-bench -p codex-client-ffi

if [ -f bench/c/bench.c ]; then
  log "C consumer"
  cc -O2 -std=c99 -Wall -Wextra -Werror -I include bench/c/bench.c \
     -L "$TARGET/release" -l:libcodexclient.a -lpthread -ldl -lm -o "$TARGET/release/bench-c"
  cc -O2 -std=c99 -Wall -Wextra -Werror -I include bench/mcp/ours.c \
     -L "$TARGET/release" -l:libcodexclient.a -lpthread -ldl -lm -o "$TARGET/release/bench-mcp-c"
fi

py312="${PYENV_ROOT:-$HOME/.pyenv}/versions/3.12.1/bin/python3"
[ -x "$py312" ] || py312=$(command -v python3.12 || true)
if [ -n "$py312" ]; then
  venv="$CACHE/bench-venv-official"
  if ! "$venv/bin/python" -c 'import openai_codex' 2>/dev/null; then
    log "installing openai-codex 0.163.0 from PyPI into $venv"
    rm -rf "$venv" && "$py312" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check openai-codex==0.163.0
  fi
else
  log "no Python 3.12 found: the OpenAI SDK row will say n/a"
fi

if [ -f python/codexclient/__init__.py ]; then
  venv="$CACHE/bench-venv-ours"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  log "pip install . (the extension in the Cargo profile dist, as in the wheel) into $venv"
  CARGO_TARGET_DIR="$TARGET" "$venv/bin/pip" install --quiet --disable-pip-version-check .
fi

# Rivals for the MCP part; our MCP clients are built above (codex-bench, bench-c, the venv),
# and bench/mcp/run.py has a slot for each.
mcp_rivals() {
  log "rmcp client (release, target dir $CACHE/target-mcp-bench)"
  CARGO_TARGET_DIR="$CACHE/target-mcp-bench" cargo build --release --quiet --locked \
    --manifest-path bench/mcp/rmcp_client/Cargo.toml
  [ -n "$py312" ] || { log "no Python 3.12 found: the Python SDK row will say n/a"; return 0; }
  local venv="$CACHE/bench-venv-mcp"
  if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
    log "installing mcp 2.3.0 from PyPI into $venv"
    rm -rf "$venv" && "$py312" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check mcp==2.3.0
  fi
}

for part in $parts; do
  case $part in
    codex) log "running"; python3 bench/run.py "${args[@]}" ;;
    mcp)
      mcp_rivals
      # shellcheck source=/dev/null
      . .cache/mcp.env
      log "running the MCP round trips"
      python3 bench/mcp/run.py "${mcp_args[@]}" ;;
  esac
done
