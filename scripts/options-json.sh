#!/usr/bin/env bash
# Print the core's option table as JSON (`codex-client options --json`), the one input of the
# generated option code (scripts/gen-options.sh: Python keywords; scripts/gen-cpp-options.sh:
# C++ Options). Source, first that is set: OPTIONS_JSON (a file holding the table: the core's
# unit test passes `options::keys_json()`), CODEX_CLIENT_BIN (a built `codex-client`), else the
# workspace build in CARGO_TARGET_DIR (else ./target), built here as scripts/setup.sh builds it
# (`cargo run -p codex-client` would resolve other features and compile the core again).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${OPTIONS_JSON:-}" ]; then
  exec cat "$OPTIONS_JSON"
fi
BIN="${CODEX_CLIENT_BIN:-}"
if [ -z "$BIN" ]; then
  TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
  case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
  CARGO_TARGET_DIR="$TARGET" cargo build --quiet --workspace --all-targets
  BIN="$TARGET/debug/codex-client"
fi
exec "$BIN" options --json
