#!/usr/bin/env bash
# Fuzz the decoder with cargo-fuzz (libFuzzer, nightly Rust): every target in fuzz/ for
# SECONDS each (default 60), seeded from fuzz/seeds (lines captured from the real Codex
# 0.169.0). Prints one line per target: executions, exec/s, crashes, peak RSS. Exits non-zero
# on any crash, panic, leak, out-of-memory (-rss_limit_mb, -malloc_limit_mb) or timeout.
#
#   scripts/fuzz.sh [--build-only] [SECONDS] [TARGET...]
#
# --build-only builds (or finds cached) and runs nothing: scripts/test.sh builds in the
# foreground, on both cores, and runs the targets (one core each, one after the other) beside
# steps that leave a core free.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_ONLY=0
[ "${1:-}" != --build-only ] || { BUILD_ONLY=1; shift; }
SECONDS_PER="${1:-60}"
shift || true
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}/fuzz"
FUZZ_ROOT="$CACHE/cargo-fuzz"
log() { echo "fuzz: $*" >&2; }

command -v rustup >/dev/null || { log "rustup is missing: install Rust with rustup"; exit 1; }
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  log "installing a nightly Rust toolchain (rustup, minimal profile): cargo-fuzz needs it"
  rustup toolchain install nightly --profile minimal >&2
fi
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
# The build is cached by content: the nightly toolchain, cargo-fuzz, the flags and every input
# of the fuzz workspace (its manifest, lock and targets; the core's sources and manifest; the
# root manifest the core inherits from). A clean clone gives every file a new mtime, which makes
# cargo rebuild the core (ASan + coverage instrumented, optimised: the step's minutes); with
# unchanged contents the binaries of the last build are used as they are. When the core did
# change, the release profile builds incrementally (CARGO_INCREMENTAL=1 even when CI turns it
# off for the main build): only the changed codegen units of the core are compiled again.
# The fuzz workspace cannot share the main build's target dir: nightly, sanitizer and coverage
# flags change every dependency's compilation.
BIN_DIR="$CARGO_TARGET_DIR/$(rustup run nightly rustc -vV | sed -n 's/^host: //p')/release"
key=$( { rustup run nightly rustc -vV; cargo fuzz --version; echo "${FUZZ_FLAGS[*]}"
  (cd .. && find fuzz/Cargo.toml fuzz/Cargo.lock fuzz/fuzz_targets core/Cargo.toml core/src Cargo.toml \
    -type f -print0 | sort -z | xargs -0 sha256sum); } | sha256sum | cut -c1-16)
stamp="$CARGO_TARGET_DIR/build-key"
have=1
for t in "${targets[@]}"; do [ -x "$BIN_DIR/$t" ] || have=0; done
if [ "$have" = 1 ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
  log "${targets[*]}: built from these sources already (key $key): $BIN_DIR"
else
  log "building ${targets[*]} (nightly, release, ASan, ${FUZZ_FLAGS[*]}, incremental; key $key)"
  rm -f "$stamp"
  CARGO_INCREMENTAL=1 CARGO_PROFILE_RELEASE_INCREMENTAL=true cargo +nightly fuzz build "${FUZZ_FLAGS[@]}" >&2
  echo "$key" >"$stamp"
fi
[ "$BUILD_ONLY" = 0 ] || exit 0
failed=0
printf '%-10s %14s %10s %8s %10s\n' target executions exec/s crashes peak-rss
for t in "${targets[@]}"; do
  corpus="$CARGO_TARGET_DIR/corpus/$t"
  artifacts="$CARGO_TARGET_DIR/artifacts/$t"
  rm -rf "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  out="$CARGO_TARGET_DIR/$t.log"
  set +e
  # What `cargo fuzz run` does after its build: the target binary with the corpus dirs and
  # libFuzzer's flags (run directly so the cached build is not checked again by cargo).
  "$BIN_DIR/$t" "$corpus" seeds \
    -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -max_len=65536 -artifact_prefix="$artifacts/" -print_final_stats=1 >"$out" 2>&1
  rc=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  rss=$(grep -Eo 'stat::peak_rss_mb: *[0-9]+' "$out" | grep -Eo '[0-9]+$' || echo 0)
  crashes=$(ls "$artifacts" | wc -l)
  printf '%-10s %14s %10s %8s %8s MB\n' "$t" "$execs" "$rate" "$crashes" "$rss"
  # A run that executed nothing (no stats: the binary did not start) fails too.
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ] || [ "$execs" -eq 0 ]; then
    failed=1
    log "$t failed (exit $rc); its log: $out; artifacts: $artifacts"
    tail -30 "$out" >&2
  fi
done
exit $failed
