#!/usr/bin/env bash
# Build and install everything the benchmarks need (release builds, a venv with OpenAI's
# Python SDK 0.163.0 on the pyenv Python 3.12, a venv with our `codexclient`), then run
# bench/run.py: every consumer, alternating, several rounds, medians, ratios and targets.
# Usage: scripts/bench.sh [--rounds R] [--sizes 200000,1000000] [--rtt-calls N] [--startup-reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
log() { printf '[bench] %s\n' "$*" >&2; }

bash scripts/setup.sh
log "release build"
cargo build --release --quiet -p codex-bench -p codex-client-ffi

if [ -f bench/c/bench.c ]; then
  log "C consumer"
  cc -O2 -std=c99 -Wall -Wextra -Werror -I include bench/c/bench.c \
     -L "$TARGET/release" -l:libcodexclient.a -lpthread -ldl -lm -o "$TARGET/release/bench-c"
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
  log "pip install . (release build of the extension) into $venv"
  CARGO_TARGET_DIR="$TARGET" "$venv/bin/pip" install --quiet --disable-pip-version-check .
fi

log "running"
exec python3 bench/run.py "$@"
