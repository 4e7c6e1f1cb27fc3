#!/usr/bin/env bash
# Generate include/codexclient_options.hpp (the members of the C++ codex::Options) from the
# core's option table: `codex-client options --json` through tools/cpp-options/gen.py.
#
#   scripts/gen-cpp-options.sh                 # rewrite include/codexclient_options.hpp
#   scripts/gen-cpp-options.sh --output PATH   # write elsewhere (scripts/test-c.sh: drift check)
#
# The table comes from scripts/options-json.sh (OPTIONS_JSON, CODEX_CLIENT_BIN or the workspace
# build in CARGO_TARGET_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=include/codexclient_options.hpp
case "${1:-}" in
  --output) OUTPUT=${2:?usage: $0 [--output PATH]} ;;
  "") ;;
  *) echo "usage: $0 [--output PATH]" >&2; exit 2 ;;
esac
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bash scripts/options-json.sh | python3 tools/cpp-options/gen.py > "$tmp"
mv "$tmp" "$OUTPUT"
trap - EXIT
