#!/usr/bin/env bash
# Regenerate core/src/protocol/generated.rs and the Python typing of the protocol
# (python/codexclient/protocol.py: TypedDicts, unions, method tables, typed events;
# python/codexclient/_requests.py: the typed request() overloads) from the vendored schema
# (schema/codex-<version>/), in one pass of tools/protocol-gen/gen.py.
# Usage: scripts/gen-protocol.sh [SCHEMA_DIR] [OUT] [PY_OUT] [PY_REQUESTS_OUT]
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
python3 tools/protocol-gen/gen.py --schema-dir "$schema" --out "$out" \
  --py-out "$py_out" --py-requests-out "$py_req_out"
rustfmt --edition 2021 "$out"
