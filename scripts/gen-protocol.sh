#!/usr/bin/env bash
# Regenerate core/src/protocol/generated.rs and core/src/compat/vendored-schema.json (the
# compatibility report's vendored side) from the vendored schema (schema/codex-<version>/).
# Usage: scripts/gen-protocol.sh [SCHEMA_DIR] [OUT] [COMPAT_OUT]
# To vendor a new Codex version first:
#   codex app-server generate-json-schema --out schema/codex-X/stable
#   codex app-server generate-json-schema --experimental --out schema/codex-X/experimental
#   echo X > schema/codex-X/VERSION
set -euo pipefail
cd "$(dirname "$0")/.."
schema="${1:-schema/codex-0.169.0}"
out="${2:-core/src/protocol/generated.rs}"
compat="${3:-core/src/compat/vendored-schema.json}"
python3 tools/protocol-gen/gen.py --schema-dir "$schema" --out "$out" --compat-out "$compat"
rustfmt --edition 2021 "$out"
