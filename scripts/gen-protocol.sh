#!/usr/bin/env bash
# Regenerate, in one pass of tools/protocol-gen/gen.py, from every vendored schema of the window
# (schema/codex-<version>/ for each version of CODEX_WINDOW in scripts/codex-versions.sh):
# core/src/protocol/generated.rs, the Python typing of the protocol
# (python/codexclient/protocol.py: TypedDicts, unions, method tables, typed events;
# python/codexclient/_requests.py: the typed request() overloads;
# python/codexclient/_keywords.py: the typed keywords of thread_start, thread_resume,
# thread_fork, run, run_streamed and fork) and
# core/src/compat/vendored-schema.json (the compatibility report's vendored side: the newest
# version of the window).
# Usage: scripts/gen-protocol.sh [OUT] [PY_OUT] [PY_REQUESTS_OUT] [COMPAT_OUT] [PY_KEYWORDS_OUT]
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
dirs=()
for v in $CODEX_WINDOW; do
  [ -d "schema/codex-$v" ] || { echo "gen-protocol: schema/codex-$v is missing (CODEX_WINDOW in scripts/codex-versions.sh): run scripts/update-codex.sh $v" >&2; exit 1; }
  dirs+=(--schema-dir "schema/codex-$v")
done
for d in schema/codex-*/; do
  v="${d#schema/codex-}" v="${v%/}"
  case " $CODEX_WINDOW " in *" $v "*) ;; *) echo "gen-protocol: $d is not in CODEX_WINDOW (scripts/codex-versions.sh): add it or remove the directory" >&2; exit 1 ;; esac
done
python3 tools/protocol-gen/gen.py "${dirs[@]}" --out "$out" \
  --py-out "$py_out" --py-requests-out "$py_req_out" --py-keywords-out "$py_kw_out" \
  --compat-out "$compat"
rustfmt --edition 2021 "$out"
