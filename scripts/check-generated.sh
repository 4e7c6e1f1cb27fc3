#!/usr/bin/env bash
# Fails when core/src/protocol/generated.rs differs from a fresh generation from the vendored
# schema (run by scripts/test.sh and by the `generated_code_is_up_to_date` unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash scripts/gen-protocol.sh schema/codex-0.169.0 "$tmp/generated.rs" 2>/dev/null
if ! diff -q "$tmp/generated.rs" core/src/protocol/generated.rs >/dev/null; then
  echo "core/src/protocol/generated.rs is stale: run scripts/gen-protocol.sh" >&2
  diff -u core/src/protocol/generated.rs "$tmp/generated.rs" | head -40 >&2
  exit 1
fi
echo "generated protocol code is up to date"
