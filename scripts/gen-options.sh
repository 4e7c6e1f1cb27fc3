#!/usr/bin/env bash
# Regenerate python/codexclient/_option_keywords.py (the Python clients' constructor keywords)
# from the core's option table, as scripts/options-json.sh prints it (OPTIONS_JSON,
# CODEX_CLIENT_BIN or the workspace build).
# Usage: scripts/gen-options.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-python/codexclient/_option_keywords.py}"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
bash scripts/options-json.sh > "$table"
python3 tools/options-gen/gen_py.py "$table" "$out"
