#!/usr/bin/env bash
# Generate include/codexclient_options.hpp (the members of the C++ codex::Options) from the
# core's option table: `codex-client options --json` through tools/cpp-options/gen.py.
#
#   scripts/gen-cpp-options.sh                 # rewrite include/codexclient_options.hpp
#   scripts/gen-cpp-options.sh --output PATH   # write elsewhere (scripts/test-c.sh: drift check)
#
# Builds the workspace (as scripts/docs.sh does, so no other feature set is compiled) into
# CARGO_TARGET_DIR (else ./target), or uses CODEX_CLIENT_BIN when set.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUTPUT=include/codexclient_options.hpp
case "${1:-}" in
  --output) OUTPUT=${2:?usage: $0 [--output PATH]} ;;
  "") ;;
  *) echo "usage: $0 [--output PATH]" >&2; exit 2 ;;
esac
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
BIN="${CODEX_CLIENT_BIN:-}"
if [ -z "$BIN" ]; then
  CARGO_TARGET_DIR="$TARGET" cargo build --quiet --workspace --all-targets
  BIN="$TARGET/debug/codex-client"
fi
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$BIN" options --json | python3 tools/cpp-options/gen.py > "$tmp"
mv "$tmp" "$OUTPUT"
trap - EXIT
