#!/usr/bin/env bash
# Set up (idempotent) and run the demo: a real Codex turn against the bundled local model,
# with streamed output and a command approval. Pass --decline to decline the approval.
# Installs and builds only what the demo needs: the one Codex it drives (scripts/setup-codex.sh)
# and the demo binary (examples/rust: the core without its network transports, the mock model).
# The test command's tools (MCP servers, Python SDK, stunnel) come with scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null 2>&1 || { echo "[demo] missing cargo: install Rust (rustup) first" >&2; exit 1; }
source scripts/codex-versions.sh # CODEX_DEFAULT: the one Codex the demo needs
CODEX_VERSIONS="$CODEX_DEFAULT" bash scripts/setup-codex.sh
exec cargo run --quiet -p codex-client-demo -- "$@"
