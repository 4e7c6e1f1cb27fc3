#!/usr/bin/env bash
# The fault matrix: every fault with and without reconnect, one line per row (outcome, time to
# detect, requests left unanswered, fds/threads/server processes leaked). Fails when a row
# leaves a request unanswered or leaks. Runs against the real Codex (installed by
# scripts/setup.sh) where the fault allows, the fake server otherwise.
#
#   scripts/fault-matrix.sh [CYCLES]    (connect/disconnect cycles; default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
export FAULT_MATRIX_CYCLES="${1:-10000}"
# The workspace's feature set (as scripts/setup.sh builds it; `-p` alone would resolve other
# features and compile the core again).
cargo build -q --workspace --all-targets
cargo test -q --workspace --test fault_matrix -- --nocapture --test-threads 1 2>&1 \
  | grep -Ev '^(running [0-9]+ test|\.|)$'
