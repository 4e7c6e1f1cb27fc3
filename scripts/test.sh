#!/usr/bin/env bash
# Set up (idempotent) and run every check and test of the project. This is the README's
# test command and what CI runs (.ci/run).
#
#   Versions: scripts/check-versions.sh (one release version, the C ABI, rust-version = MSRV)
#   Rust: generated-code drift, rustfmt, clippy -D warnings, cargo test (unit, fake-server fault
#         injection, real codex app-server CODEX_DEFAULT (smoke set on CODEX_SMOKE) / exec / mcp-server 0.92.0 integration, the
#         MCP everything server over stdio / Streamable HTTP / legacy SSE)
#   Fuzz: scripts/fuzz.sh 60     (cargo-fuzz: line reader, classifier/id scanner, typed decoding)
#   Faults: scripts/fault-matrix.sh (each fault with and without reconnect; 0 unanswered, 0 leaks)
#   MCP:  scripts/mcp-conformance.sh (the official conformance suite's client scenarios)
#   C:    scripts/test-c.sh       (header drift, -Werror builds, tests under valgrind and ASan)
#   Python: scripts/test-python.sh (pip install ., stubtest, pytest on 3.11/3.12/3.13)
#   Docs: scripts/docs.sh          (rustdoc -D warnings, mkdocs --strict, every link resolves)
#
# Builds go to $CARGO_TARGET_DIR (default ~/.cache/libcodexclient/target) so that dependencies
# are reused between runs and clones; everything else is installed by the scripts themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
mkdir -p "$CARGO_TARGET_DIR"
# CI builds once: no incremental cache (it doubles the debug target's size on disk).
[ "${CI:-}" != true ] || export CARGO_INCREMENTAL=0
LOG="$CARGO_TARGET_DIR/test-logs"
mkdir -p "$LOG"

step() { echo; echo "== $* ($(( $(date +%s) - start )) s)"; }

bash scripts/setup.sh
step "no build outputs in git"
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  tracked=$(git ls-files | grep -E '\.(so|a|o|dylib|whl|pyd|beam)$|(^|/)target/' | grep -v '^schema/' || true)
  [ -z "$tracked" ] || { echo "build outputs are tracked in git (remove them; .gitignore covers them):" >&2; echo "$tracked" >&2; exit 1; }
fi
step "generated protocol code"
bash scripts/check-generated.sh
step "one version (crate, wheel, C library, CHANGELOG), C ABI in header and README, MSRV"
bash scripts/check-versions.sh
step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
step "stdio-only build (codex-client --no-default-features: no ws, tls, mcp-http)"
cargo build -p codex-client --no-default-features --quiet
cargo clippy -p codex-client --no-default-features --lib --quiet -- -D warnings
# The one unit test that sees the features from both sides (the network transports refused,
# naming their feature); the rest of the unit tests exercise the transports themselves.
cargo test -p codex-client --no-default-features --lib cargo_features_of_the_network_transports
step "docs (rustdoc and mkdocs --strict, link check)"
bash scripts/docs.sh
step "cargo test"
cargo test --workspace 2>&1 | tee "$LOG/cargo-test.log"
rust=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$LOG/cargo-test.log" | awk '{s+=$4} END {print s+0}')
source scripts/codex-versions.sh # CODEX_SMOKE: the smoke set on the other Codex versions
for cv in $CODEX_SMOKE; do
  step "cargo test: the smoke set on Codex $cv"
  CODEX_VERSION=$cv cargo test -p codex-client --test real_codex --test thread_api --test typed_api \
    --test account_and_admin -- smoke_ 2>&1 | tee -a "$LOG/cargo-test-smoke.log"
done

step "fault matrix (every fault with and without reconnect)"
bash scripts/fault-matrix.sh 2>&1 | tee "$LOG/fault-matrix.log"
fm=$(grep -c 'test result: ok. 1 passed' "$LOG/fault-matrix.log" || true)
[ "$fm" -eq 1 ] || { echo "fault matrix failed" >&2; exit 1; }

step "fuzzing (short run: 60 s per target; scripts/fuzz.sh SECONDS for long runs)"
bash scripts/fuzz.sh 60 2>&1 | tee "$LOG/fuzz.log"

step "MCP conformance (official suite, client scenarios)"
bash scripts/mcp-conformance.sh 2>&1 | tee "$LOG/mcp-conformance.log"
conf=$(grep -c '^PASS ' "$LOG/mcp-conformance.log" || true)
want=$(( $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/mcp/required.txt | wc -l) + 4 ))
[ "$conf" -ge "$want" ] || { echo "MCP conformance: $conf of $want required scenarios passed" >&2; exit 1; }

total=$((rust + conf + fm))
summary="Rust $rust, fault matrix $fm, MCP conformance $conf"
for part in c python elixir; do
  script="scripts/test-$part.sh"
  [ -f "$script" ] || { echo "missing $script" >&2; exit 1; }
  step "$part"
  bash "$script" 2>&1 | tee "$LOG/$part.log"
  case $part in
    c) n=$(grep -Eo '^c-tests: [0-9]+ passed' "$LOG/$part.log" | tail -1 | awk '{print $2}') ;;
    python) n=$(grep -Eo '[0-9]+ passed' "$LOG/$part.log" | awk '{s+=$1} END {print s+0}') ;;
    elixir) n=$(grep -Eo '^elixir-tests: [0-9]+ passed' "$LOG/$part.log" | tail -1 | awk '{print $2}') ;;
  esac
  n=${n:-0}
  [ "$n" -gt 0 ] || { echo "$part: no test ran" >&2; exit 1; }
  total=$((total + n))
  summary="$summary, $part $n"
done

step "all checks passed ($summary) in $(( $(date +%s) - start )) s"
echo "all: $total passed, 0 failed"
