#!/usr/bin/env bash
# Fails when core/src/protocol/generated.rs, python/codexclient/protocol.py,
# python/codexclient/_requests.py, python/codexclient/_keywords.py or
# core/src/compat/vendored-schema.json, core/src/protocol/mcp/generated.rs or
# python/codexclient/mcp_types.py differs from a fresh
# generation from the vendored schemas of the whole window (CODEX_WINDOW in
# scripts/codex-versions.sh), or python/codexclient/_option_keywords.py from one from the
# core's option table (scripts/gen-options.sh: OPTIONS_JSON, else `codex-client options
# --json` of the workspace build), or a vendored MCP schema file (schema/mcp-*) is not the one
# schema/mcp-README.md names (its sha256 lines; every file there listed); run by scripts/test.sh
# and by the
# `generated_code_is_up_to_date` unit test.
set -euo pipefail
cd "$(dirname "$0")/.."
# The vendored MCP schemas are the files their README names, byte for byte, and no other.
sums=$(sed -n '/^```sha256$/,/^```$/p' schema/mcp-README.md | grep -E '^[0-9a-f]{64}  ' || true)
[ -n "$sums" ] || { echo "schema/mcp-README.md has no sha256 lines" >&2; exit 1; }
if ! printf '%s\n' "$sums" | sha256sum -c --quiet --strict >&2; then
  echo "a vendored MCP schema file differs from the one schema/mcp-README.md names (copy it again from the commit named there, or update the README)" >&2
  exit 1
fi
unlisted=$(comm -23 <(find schema/mcp-* -type f ! -name mcp-README.md | LC_ALL=C sort) \
  <(printf '%s\n' "$sums" | sed 's/^[0-9a-f]*  //' | LC_ALL=C sort))
[ -z "$unlisted" ] || { echo "vendored MCP files schema/mcp-README.md does not name: $unlisted" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bash scripts/gen-protocol.sh "$tmp/generated.rs" "$tmp/protocol.py" \
  "$tmp/_requests.py" "$tmp/vendored-schema.json" "$tmp/_keywords.py" \
  "$tmp/mcp_generated.rs" "$tmp/mcp_types.py" >/dev/null 2>&1
bash scripts/gen-options.sh "$tmp/_option_keywords.py"
stale=0
for pair in "generated.rs:core/src/protocol/generated.rs" \
            "protocol.py:python/codexclient/protocol.py" \
            "_requests.py:python/codexclient/_requests.py" \
            "_keywords.py:python/codexclient/_keywords.py" \
            "_option_keywords.py:python/codexclient/_option_keywords.py" \
            "vendored-schema.json:core/src/compat/vendored-schema.json" \
            "mcp_generated.rs:core/src/protocol/mcp/generated.rs" \
            "mcp_types.py:python/codexclient/mcp_types.py"; do
  fresh="$tmp/${pair%%:*}" committed="${pair#*:}"
  if ! diff -q "$fresh" "$committed" >/dev/null 2>&1; then
    echo "$committed is stale: run scripts/gen-protocol.sh (_option_keywords.py: scripts/gen-options.sh)" >&2
    diff -u "$committed" "$fresh" 2>&1 | head -40 >&2
    stale=1
  fi
done
[ "$stale" = 0 ] || exit 1
echo "generated protocol code is up to date"
