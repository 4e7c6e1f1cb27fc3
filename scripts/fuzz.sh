#!/usr/bin/env bash
# Fuzz the decoder with cargo-fuzz (libFuzzer, nightly Rust): every target in fuzz/ for
# SECONDS each (default 60), seeded from fuzz/seeds (lines captured from the real Codex
# 0.169.0). Prints one line per target: executions, exec/s, crashes, peak RSS. Exits non-zero
# on any crash, panic, leak, out-of-memory (-rss_limit_mb, -malloc_limit_mb) or timeout.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER="${1:-60}"
shift || true
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}/fuzz"
FUZZ_ROOT="$CACHE/cargo-fuzz"
log() { echo "fuzz: $*" >&2; }

command -v rustup >/dev/null || { log "rustup is missing: install Rust with rustup"; exit 1; }
rustup run nightly rustc --version >/dev/null 2>&1 || {
  log "nightly Rust is missing: rustup toolchain install nightly"; exit 1; }
if [ ! -x "$FUZZ_ROOT/bin/cargo-fuzz" ]; then
  log "installing cargo-fuzz into $FUZZ_ROOT"
  cargo install cargo-fuzz --locked --root "$FUZZ_ROOT" >&2
fi
export PATH="$FUZZ_ROOT/bin:$PATH"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lines classify typed)
cd fuzz
# 16 codegen units (cargo-fuzz's default is 1): the core compiles on every core of the machine
# (one unit took 8 of the step's 11 minutes on 2 cores), for slightly slower executions.
FUZZ_FLAGS=(-O --codegen-units 16)
log "building ${targets[*]} (nightly, release, ASan, ${FUZZ_FLAGS[*]})"
cargo +nightly fuzz build "${FUZZ_FLAGS[@]}" >&2
failed=0
printf '%-10s %14s %10s %8s %10s\n' target executions exec/s crashes peak-rss
for t in "${targets[@]}"; do
  corpus="$CARGO_TARGET_DIR/corpus/$t"
  artifacts="$CARGO_TARGET_DIR/artifacts/$t"
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  out="$CARGO_TARGET_DIR/$t.log"
  set +e
  cargo +nightly fuzz run "${FUZZ_FLAGS[@]}" "$t" "$corpus" seeds -- \
    -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -max_len=65536 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$out" 2>&1
  rc=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  rss=$(grep -Eo 'stat::peak_rss_mb: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  crashes=$(ls "$artifacts" | wc -l)
  printf '%-10s %14s %10s %8s %8s MB\n' "$t" "$execs" "$rate" "$crashes" "$rss"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    log "$t failed (exit $rc); its log: $out; artifacts: $artifacts"
    tail -30 "$out" >&2
  fi
done
exit $failed
