#!/usr/bin/env bash
# Fails when core/src/protocol/generated.rs or core/src/compat/vendored-schema.json differs
# from a fresh generation from the vendored schema (run by scripts/test.sh and by the `generated_code_is_up_to_date` unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash scripts/gen-protocol.sh schema/codex-0.169.0 "$tmp/generated.rs" "$tmp/vendored-schema.json" 2>/dev/null
for pair in generated.rs:core/src/protocol/generated.rs vendored-schema.json:core/src/compat/vendored-schema.json; do
  fresh="$tmp/${pair%%:*}" committed="${pair#*:}"
  if ! diff -q "$fresh" "$committed" >/dev/null; then
    echo "$committed is stale: run scripts/gen-protocol.sh" >&2
    diff -u "$committed" "$fresh" | head -40 >&2
    exit 1
  fi
done
echo "generated protocol code is up to date"
