#!/usr/bin/env bash
# Set up (idempotent) and run the demo: a real Codex turn against the bundled local model,
# with streamed output and a command approval. Pass --decline to decline the approval.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec cargo run --quiet -p codex-client --example demo -- "$@"
