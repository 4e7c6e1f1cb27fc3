#!/usr/bin/env bash
# Regenerate python/codexclient/_option_keywords.py (the Python clients' constructor keywords)
# from the core's option table: `codex-client options --json` of the workspace build (built
# here as scripts/setup.sh builds it), or the JSON file OPTIONS_JSON when set (the core's unit
# test `generated_code_is_up_to_date` passes `options::keys_json()`).
# Usage: scripts/gen-options.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-python/codexclient/_option_keywords.py}"
table="${OPTIONS_JSON:-}"
if [ -z "$table" ]; then
  target="${CARGO_TARGET_DIR:-target}"
  # The workspace build (`cargo run -p codex-client` would resolve other features for shared
  # dependencies and compile them and the core again).
  cargo build --quiet --workspace --all-targets
  table=$(mktemp)
  trap 'rm -f "$table"' EXIT
  "$target/debug/codex-client" options --json > "$table"
fi
python3 tools/options-gen/gen_py.py "$table" "$out"
