#!/usr/bin/env bash
# Regenerate, in one pass of tools/protocol-gen/gen.py, from every vendored schema of the window
# (schema/codex-<version>/ for each version of CODEX_WINDOW in scripts/codex-versions.sh):
# core/src/protocol/generated.rs, the Python typing of the protocol
# (python/codexclient/protocol.py: TypedDicts, unions, method tables, typed events;
# python/codexclient/_requests.py: the typed request() overloads;
# python/codexclient/_keywords.py: the typed keywords of thread_start, thread_resume,
# thread_fork, run, run_streamed and fork) and
# core/src/compat/vendored-schema.json (the compatibility report's vendored side: the newest
# version of the window); and, in the same pass, from every vendored MCP schema
# (schema/mcp-<version>/schema.json, schema/mcp-README.md): the MCP types
# core/src/protocol/mcp/generated.rs and their TypedDicts python/codexclient/mcp_types.py
# (tools/protocol-gen/gen_mcp.py).
# Usage: scripts/gen-protocol.sh [OUT] [PY_OUT] [PY_REQUESTS_OUT] [COMPAT_OUT] [PY_KEYWORDS_OUT]
#                               [MCP_OUT] [MCP_PY_OUT]
# To add a Codex version to the window: scripts/update-codex.sh VERSION (docs/compat.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=codex-versions.sh
source scripts/codex-versions.sh
out="${1:-core/src/protocol/generated.rs}"
py_out="${2:-python/codexclient/protocol.py}"
py_req_out="${3:-python/codexclient/_requests.py}"
compat="${4:-core/src/compat/vendored-schema.json}"
py_kw_out="${5:-python/codexclient/_keywords.py}"
mcp_out="${6:-core/src/protocol/mcp/generated.rs}"
mcp_py_out="${7:-python/codexclient/mcp_types.py}"
dirs=()
for v in $CODEX_WINDOW; do
  [ -d "schema/codex-$v" ] || { echo "gen-protocol: schema/codex-$v is missing (CODEX_WINDOW in scripts/codex-versions.sh): run scripts/update-codex.sh $v" >&2; exit 1; }
  dirs+=(--schema-dir "schema/codex-$v")
done
for d in schema/codex-*/; do
  v="${d#schema/codex-}" v="${v%/}"
  case " $CODEX_WINDOW " in *" $v "*) ;; *) echo "gen-protocol: $d is not in CODEX_WINDOW (scripts/codex-versions.sh): add it or remove the directory" >&2; exit 1 ;; esac
done
# The MCP versions: every schema/mcp-<version>/ (not a Codex dir: the `codex-` loop above
# does not see them).
mcp_dirs=()
for d in schema/mcp-*/; do
  [ -f "$d/schema.json" ] || { echo "gen-protocol: $d has no schema.json" >&2; exit 1; }
  mcp_dirs+=(--mcp-schema-dir "${d%/}")
done
[ "${#mcp_dirs[@]}" -gt 0 ] || { echo "gen-protocol: no vendored MCP schema (schema/mcp-<version>/)" >&2; exit 1; }
python3 tools/protocol-gen/gen.py "${dirs[@]}" --out "$out" \
  --py-out "$py_out" --py-requests-out "$py_req_out" --py-keywords-out "$py_kw_out" \
  --compat-out "$compat" "${mcp_dirs[@]}" --mcp-out "$mcp_out" --mcp-py-out "$mcp_py_out"
rustfmt --edition 2021 "$out" "$mcp_out"
