#!/usr/bin/env bash
# Set up (idempotent) and run every check and test of the project. This is the README's
# test command and what CI runs (.ci/run).
#
#   Versions: scripts/check-versions.sh (one release version, the C ABI, rust-version = MSRV)
#   Rust: generated-code drift, rustfmt, clippy -D warnings, cargo test (unit, fake-server fault
#         injection, real codex app-server CODEX_DEFAULT (smoke set on CODEX_SMOKE) / exec / mcp-server 0.92.0 integration, the
#         MCP everything server over stdio / Streamable HTTP / legacy SSE)
#   Fuzz: scripts/fuzz.sh 60     (cargo-fuzz: line reader, classifier/id scanner, typed decoding;
#         built in the foreground, run beside the fault matrix, MCP conformance and Elixir steps)
#   Faults: scripts/fault-matrix.sh (each fault with and without reconnect; 0 unanswered, 0 leaks)
#   MCP:  scripts/mcp-conformance.sh (the official conformance suite's client scenarios)
#   C:    scripts/test-c.sh       (header drift, -Werror builds, every test plainly and with ASan,
#         the ones where memory ownership crosses the C boundary under valgrind as well)
#   Python: scripts/test-python.sh (the wheel, stubtest, mypy, pyright on 3.11/3.12/3.13; the
#         whole pytest suite on 3.11, the smoke files on 3.12/3.13; the wheel is built by
#         `test-python.sh --build-wheel` beside the stdio-only build, the docs and cargo test)
#   Elixir: scripts/test-elixir.sh (the NIF example's ExUnit tests)
#   Docs: scripts/docs.sh          (rustdoc -D warnings, mkdocs --strict, every link resolves)
#
# Builds go to $CARGO_TARGET_DIR (default ~/.cache/libcodexclient/target) so that dependencies
# are reused between runs and clones; everything else is installed by the scripts themselves.
# At the end: each step's time (a table), then `all: N passed, 0 failed` (N counts every Rust,
# fault matrix, MCP conformance, Elixir, C and Python test; a step that ran no test fails).
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

# Each step's time and how busy the machine's cores were meanwhile (busy/total jiffies of
# /proc/stat, everything running counted: a step beside a background job shows both), printed
# as a table at the end (and when a step fails). The busy share says where a core sat idle.
STEP_NAMES=() STEP_SECS=() STEP_CPU=() step_name="" step_t0=0 step_cpu0=""
cpu_jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat 2>/dev/null || echo "0 0"; }
busy_since() { # $1 = "busy total" at the start: prints the busy share in percent
  local b0 t0 b1 t1
  read -r b0 t0 <<<"$1"; read -r b1 t1 <<<"$(cpu_jiffies)"
  if [ $((t1 - t0)) -gt 0 ]; then echo $(( 100 * (b1 - b0) / (t1 - t0) )); else echo 0; fi
}
step_end() {
  [ -z "$step_name" ] || {
    STEP_NAMES+=("$step_name"); STEP_SECS+=($(( $(date +%s) - step_t0 ))); STEP_CPU+=("$(busy_since "$step_cpu0")")
  }
  step_name=""
}
step() { step_end; step_name="$*"; step_t0=$(date +%s); step_cpu0=$(cpu_jiffies); echo; echo "== $* ($(( step_t0 - start )) s)"; }
run_cpu0=$(cpu_jiffies)
step_table() {
  step_end
  echo
  printf '%6s  %5s  %s\n' seconds busy step
  for i in "${!STEP_NAMES[@]}"; do printf '%6d  %4s%%  %s\n' "${STEP_SECS[$i]}" "${STEP_CPU[$i]:-}" "${STEP_NAMES[$i]:0:90}"; done
  printf '%6d  %4s%%  %s (%s cores)\n' $(( $(date +%s) - start )) "$(busy_since "$run_cpu0")" total "$(nproc)"
}
# The trap keeps the script's own exit status: every command in it is guarded, because under
# `set -e` a failing last command of an `a || b` list (a kill of a fuzz run that has already
# ended) would turn a passing run into exit 1.
on_exit() {
  local rc=$1
  if [ -n "${fuzz_pid:-}" ]; then kill "$fuzz_pid" 2>/dev/null || true; fi
  if [ -n "${wheel_pid:-}" ]; then kill "$wheel_pid" 2>/dev/null || true; fi
  if [ "$rc" -ne 0 ]; then
    step_table || true
    echo "failed in: ${STEP_NAMES[${#STEP_NAMES[@]}-1]:-setup} (exit $rc)" >&2
  fi
  exit "$rc"
}
trap 'on_exit $?' EXIT

step "setup (scripts/setup.sh: Codex, MCP tools, stunnel; cargo build --workspace --all-targets)"
bash scripts/setup.sh
step "no build outputs in git"
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  tracked=$(git ls-files | grep -E '\.(so|a|o|dylib|whl|pyd|beam)$|(^|/)target/' | grep -v '^schema/' || true)
  [ -z "$tracked" ] || { echo "build outputs are tracked in git (remove them; .gitignore covers them):" >&2; echo "$tracked" >&2; exit 1; }
fi
step "generated protocol code"
bash scripts/check-generated.sh
step "lockfiles current (the workspace's and fuzz/'s own: a stale one would be rewritten by a build)"
cargo metadata --locked --format-version 1 >/dev/null
cargo metadata --locked --format-version 1 --manifest-path fuzz/Cargo.toml >/dev/null ||
  { echo "fuzz/Cargo.lock is stale: run \`cargo metadata --manifest-path fuzz/Cargo.toml\` and commit it" >&2; exit 1; }
# What git tracks now; the last step checks that no step changed it.
tracked_state() { { git status --porcelain --untracked-files=no; git diff | sha256sum; } 2>/dev/null || true; }
tracked_before=$(tracked_state)
step "one version (crate, wheel, C library, CHANGELOG), C ABI in header and README, MSRV"
bash scripts/check-versions.sh
step "rustfmt"
cargo fmt --all -- --check
step "clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
# The Python wheel (scripts/build-wheels.sh: Cargo profile `dist`, fat LTO and one codegen
# unit, so one core for about 5 minutes) builds from here on, beside the stdio-only build, the
# docs and cargo test, which leave about half of the two cores idle (the step table's busy
# column: 51-55 %); its own profile directory (target/<triple>/dist) has its own cargo lock, so
# it blocks none of them. The Python step waits for it and tests that wheel. Its time is its
# own line of the table.
wheel_t0=$(date +%s)
bash scripts/test-python.sh --build-wheel >"$LOG/python-wheel.log" 2>&1 &
wheel_pid=$!

step "stdio-only core (codex-client --no-default-features: no ws, tls, mcp-http; beside the wheel build): clippy, unit test"
# clippy type-checks the whole library in this configuration (warnings are errors) and the unit
# test below compiles all of it (codegen): together what a separate `cargo build` checked.
cargo clippy -p codex-client --no-default-features --lib --quiet -- -D warnings
# The one unit test that sees the features from both sides (the network transports refused,
# naming their feature); the rest of the unit tests exercise the transports themselves.
cargo test -p codex-client --no-default-features --lib cargo_features_of_the_network_transports
step "fuzz targets' build (nightly, ASan; cached by content: scripts/fuzz.sh --build-only)"
bash scripts/fuzz.sh --build-only 2>&1 | tee "$LOG/fuzz-build.log"
step "docs (rustdoc and mkdocs --strict, link check; beside the wheel build)"
bash scripts/docs.sh
step "cargo test (beside the wheel build)"
bash scripts/page-in-codex.sh # the binaries resident before the first spawn (see the script)
cargo test --workspace 2>&1 | tee "$LOG/cargo-test.log"
rust=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$LOG/cargo-test.log" | awk '{s+=$4} END {print s+0}')
[ "$rust" -gt 0 ] || { echo "cargo test: no test ran" >&2; exit 1; }
source scripts/codex-versions.sh # CODEX_SMOKE: the smoke set on the other Codex versions
for cv in $CODEX_SMOKE; do
  step "cargo test: the smoke set on Codex $cv"
  bash scripts/page-in-codex.sh "$cv"
  CODEX_VERSION=$cv cargo test --workspace --test real_codex --test thread_api --test typed_api \
    --test account_and_admin -- smoke_ 2>&1 | tee "$LOG/cargo-test-smoke-$cv.log"
  n=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$LOG/cargo-test-smoke-$cv.log" | awk '{s+=$4} END {print s+0}')
  [ "$n" -gt 0 ] || { echo "cargo test: no smoke test ran on Codex $cv" >&2; exit 1; }
  rust=$((rust + n))
done

# The fuzz runs (60 s per target, libFuzzer: one process on one core) go beside the fault
# matrix, the MCP conformance suite and the Elixir tests, which wait on child processes most of
# the time (the matrix's connect/disconnect cycles take one core) and leave the other core to
# them. Its time is its own line of the table.
fuzz_t0=$(date +%s)
bash scripts/fuzz.sh 60 >"$LOG/fuzz.log" 2>&1 &
fuzz_pid=$!

step "fault matrix (every fault with and without reconnect; beside the fuzz runs)"
bash scripts/fault-matrix.sh 2>&1 | tee "$LOG/fault-matrix.log"
fm=$(grep -c 'test result: ok. 1 passed' "$LOG/fault-matrix.log" || true)
[ "$fm" -eq 1 ] || { echo "fault matrix failed" >&2; exit 1; }

step "MCP conformance (official suite, client scenarios; beside the fuzz runs)"
bash scripts/mcp-conformance.sh 2>&1 | tee "$LOG/mcp-conformance.log"
conf=$(grep -c '^PASS ' "$LOG/mcp-conformance.log" || true)
want=$(( $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' scripts/mcp/required.txt | wc -l) + 4 ))
[ "$conf" -ge "$want" ] || { echo "MCP conformance: $conf of $want required scenarios passed" >&2; exit 1; }

total=$((rust + conf + fm))
summary="Rust $rust, fault matrix $fm, MCP conformance $conf"
run_part() { # c | python | elixir: runs scripts/test-PART.sh, adds its count to the total
  local part=$1 script="scripts/test-$1.sh" n
  [ -f "$script" ] || { echo "missing $script" >&2; exit 1; }
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
}
step "elixir (beside the fuzz runs)"
run_part elixir

step "fuzzing: waiting for the runs (60 s per target; scripts/fuzz.sh SECONDS for long runs)"
fuzz_rc=0
wait "$fuzz_pid" || fuzz_rc=$?
cat "$LOG/fuzz.log"
STEP_NAMES+=("fuzz runs, 3 targets x 60 s (from the start of the fault matrix)")
STEP_SECS+=($(( $(date +%s) - fuzz_t0 ))) STEP_CPU+=("")
[ "$fuzz_rc" -eq 0 ] || { echo "fuzzing failed (exit $fuzz_rc; log: $LOG/fuzz.log)" >&2; exit 1; }
grep -Eq '^typed +[0-9]+' "$LOG/fuzz.log" || { echo "fuzzing: no run reported" >&2; exit 1; }

step "c"
run_part c

step "python: waiting for the wheel build (scripts/test-python.sh --build-wheel)"
wheel_rc=0
wait "$wheel_pid" || wheel_rc=$?
wheel_pid=""
cat "$LOG/python-wheel.log"
STEP_NAMES+=("python wheel build, manylinux2014 (from the end of clippy; done before: see its log)")
STEP_SECS+=($(( $(date +%s) - wheel_t0 ))) STEP_CPU+=("")
[ "$wheel_rc" -eq 0 ] || { echo "the wheel build failed (exit $wheel_rc; log: $LOG/python-wheel.log)" >&2; exit 1; }
step "python (the wheel built above)"
CODEXCLIENT_PYTHON_WHEELS_BUILT=1 run_part python

step "no tracked file changed by the run"
tracked_after=$(tracked_state)
if [ "$tracked_after" != "$tracked_before" ]; then
  echo "the test command changed tracked files (a step must not rewrite what is committed):" >&2
  diff <(echo "$tracked_before") <(echo "$tracked_after") >&2 || true
  git --no-pager diff --stat >&2 || true
  exit 1
fi

step_table
echo
echo "== all checks passed ($summary) in $(( $(date +%s) - start )) s"
echo "all: $total passed, 0 failed"
