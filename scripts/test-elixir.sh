#!/usr/bin/env bash
# Elixir NIF example checks (idempotent): runs scripts/setup-elixir.sh (Debian's elixir and
# erlang-dev when missing, libcodexclient installed into a cache prefix, the mock model), builds
# examples/elixir (a Mix project without Hex dependencies; its NIF is c_src/codexclient_nif.c,
# built by make from mix.exs) and runs its ExUnit tests against the REAL codex app-server
# CODEX_DEFAULT (scripts/codex-versions.sh) and the project's local mock model.
#
# Last line: `elixir-tests: N passed, M failed`. Exit status non-zero on any failure.
# Honours CARGO_TARGET_DIR (else ./target).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
export CARGO_TARGET_DIR="$TARGET"
OUT="$TARGET/elixir-tests"
log() { printf '[test-elixir] %s\n' "$*" >&2; }
finish() { # passed failed
  echo "elixir-tests: $1 passed, $2 failed"
  [ "$2" -eq 0 ] && [ "$1" -gt 0 ]
  exit $?
}

PREFIX=$(bash scripts/setup-elixir.sh) || { echo "setup-elixir failed" >&2; finish 0 1; }
source scripts/codex-versions.sh # CODEX_DEFAULT
CODEX_BIN="$ROOT/.cache/codex-$CODEX_DEFAULT"
if [ ! -x "$CODEX_BIN" ] || [ "$("$CODEX_BIN" --version 2>/dev/null)" != "codex-cli $CODEX_DEFAULT" ]; then
  echo "The real Codex $CODEX_DEFAULT is missing ($CODEX_BIN). Install it with: scripts/setup.sh" >&2
  finish 0 1
fi
export CODEX_BIN=$(readlink -f "$CODEX_BIN")
bash scripts/page-in-codex.sh "$CODEX_DEFAULT" # its pages resident before the first connect bound

# ---------------------------------------------------------------- mock model
rm -rf "$OUT"
mkdir -p "$OUT"
MOCK_HOME="$OUT/mock-home"
coproc MOCK { exec "$TARGET/debug/mock-model" --codex-home "$MOCK_HOME"; }
MOCK_OUT=${MOCK[0]}
MOCK_IN=${MOCK[1]}
read -r -t 30 word MOCK_PORT <&"$MOCK_OUT" || true
if [ "${word:-}" != "PORT" ] || [ -z "${MOCK_PORT:-}" ] || [ ! -f "$MOCK_HOME/config.toml" ]; then
  echo "mock-model did not start" >&2
  finish 0 1
fi
cleanup() { exec {MOCK_IN}>&- 2>/dev/null || true; wait "${MOCK_PID:-0}" 2>/dev/null || true; }
trap cleanup EXIT
log "mock model on 127.0.0.1:$MOCK_PORT"

# ---------------------------------------------------------------- mix test
# No Hex, no network: MIX_ENV=test, no dependencies; build outputs stay in the cache.
export MIX_ENV=test MIX_BUILD_ROOT="$OUT/_build" HEX_OFFLINE=1 MIX_HOME="${MIX_HOME:-$OUT/mix-home}"
# MOCK_MODEL_PORT: the tests read what the model received (GET /_mock/requests).
export CODEXCLIENT_PREFIX="$PREFIX" MOCK_CODEX_CONFIG="$MOCK_HOME/config.toml" CODEX_TEST_TMP="$OUT/tmp"
export MOCK_MODEL_PORT="$MOCK_PORT"
mkdir -p "$CODEX_TEST_TMP"
cd examples/elixir
make --no-print-directory clean >/dev/null
timeout -k 10 900 mix test 2>&1 | tee "$OUT/mix-test.log"
rc=${PIPESTATUS[0]}
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$OUT/mix-test.log" | grep -E '^[0-9]+ tests?, [0-9]+ failures?' | tail -1)
total=$(echo "$summary" | sed -nE 's/^([0-9]+) tests?.*/\1/p')
failures=$(echo "$summary" | sed -nE 's/.* ([0-9]+) failures?.*/\1/p')
if [ -z "$total" ]; then
  echo "mix test did not report a result (exit $rc)" >&2
  finish 0 1
fi
failures=${failures:-0}
[ "$rc" -ne 0 ] && [ "$failures" -eq 0 ] && failures=1
finish $((total - failures)) "$failures"
