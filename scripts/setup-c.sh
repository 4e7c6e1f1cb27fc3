#!/usr/bin/env bash
# Idempotent setup for the C ABI checks (scripts/test-c.sh): the C/C++ toolchain, pkg-config
# valgrind and cmake from apt when missing, the pinned cbindgen from crates.io into a cache
# (~/.cache/libcodexclient/cbindgen), and a nightly Rust toolchain (rustup, minimal profile)
# when none is installed: cbindgen expands the ffi_fn! macros of ffi-c with
# `rustc -Zunpretty=expanded`, which only nightly accepts (scripts/gen-header.sh).
# Prints nothing on stdout except the cbindgen path.
set -euo pipefail
CBINDGEN_VERSION="${CBINDGEN_VERSION:-0.29.4}"
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
log() { printf '[setup-c] %s\n' "$*" >&2; }

missing=()
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v c++ >/dev/null 2>&1 || missing+=(g++)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
bash "$(dirname "$0")/apt-install.sh" setup-c "${missing[@]}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  command -v rustup >/dev/null 2>&1 || { log "missing rustup: install Rust with rustup (a nightly toolchain is needed to generate the header)"; exit 1; }
  log "installing a nightly Rust toolchain (rustup, minimal profile) for cbindgen's macro expansion"
  rustup toolchain install nightly --profile minimal >&2
fi

root="$CACHE/cbindgen"
bin="$root/bin/cbindgen"
if [ ! -x "$bin" ] || [ "$("$bin" --version 2>/dev/null)" != "cbindgen $CBINDGEN_VERSION" ]; then
  command -v cargo >/dev/null 2>&1 || { log "missing cargo: install Rust (rustup) first"; exit 1; }
  log "installing cbindgen $CBINDGEN_VERSION into $root (cargo install --locked)"
  mkdir -p "$root"
  CARGO_TARGET_DIR="$CACHE/cbindgen-build" cargo install cbindgen --version "$CBINDGEN_VERSION" \
    --locked --root "$root" --force >&2
  rm -rf "$CACHE/cbindgen-build"
fi
echo "$bin"
