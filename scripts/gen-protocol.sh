#!/usr/bin/env bash
# Regenerate, in one pass of tools/protocol-gen/gen.py, from the vendored schema
# (schema/codex-<version>/): core/src/protocol/generated.rs, the Python typing of the protocol
# (python/codexclient/protocol.py: TypedDicts, unions, method tables, typed events;
# python/codexclient/_requests.py: the typed request() overloads;
# python/codexclient/_keywords.py: the typed keywords of thread_start, thread_resume,
# thread_fork, run, run_streamed and fork) and
# core/src/compat/vendored-schema.json (the compatibility report's vendored side).
# Usage: scripts/gen-protocol.sh [SCHEMA_DIR] [OUT] [PY_OUT] [PY_REQUESTS_OUT] [COMPAT_OUT] [PY_KEYWORDS_OUT]
# To vendor a new Codex version first:
#   codex app-server generate-json-schema --out schema/codex-X/stable
#   codex app-server generate-json-schema --experimental --out schema/codex-X/experimental
#   echo X > schema/codex-X/VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
schema="${1:-schema/codex-0.169.0}"
out="${2:-core/src/protocol/generated.rs}"
py_out="${3:-python/codexclient/protocol.py}"
py_req_out="${4:-python/codexclient/_requests.py}"
compat="${5:-core/src/compat/vendored-schema.json}"
py_kw_out="${6:-python/codexclient/_keywords.py}"
python3 tools/protocol-gen/gen.py --schema-dir "$schema" --out "$out" \
  --py-out "$py_out" --py-requests-out "$py_req_out" --py-keywords-out "$py_kw_out" \
  --compat-out "$compat"
rustfmt --edition 2021 "$out"
