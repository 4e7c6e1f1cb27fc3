#!/usr/bin/env bash
# Set up (idempotent) and run every check and test of the project. This is the README's
# test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/setup.sh
echo "== rustfmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace 2>&1 | tee target/cargo-test.log
passed=$(grep -Eo 'test result: ok\. [0-9]+ passed' target/cargo-test.log | awk '{s+=$4} END {print s+0}')
echo "== all checks passed: $passed Rust tests in $(( $(date +%s) - start )) s"
