#!/usr/bin/env bash
# Install the C ABI of libcodexclient: libcodexclient.so.MAJOR.MINOR with the soname link
# libcodexclient.so.MAJOR (the ABI version of ffi-c/src/abi.rs, which build.rs also writes into
# the library's DT_SONAME) and the development link libcodexclient.so, plus libcodexclient.a,
# into $PREFIX/lib, include/codexclient.h and include/codexclient.hpp into $PREFIX/include, and a
# pkg-config file into $PREFIX/lib/pkgconfig/codexclient.pc.
#
#   PREFIX=/usr/local scripts/install-c.sh          # builds with cargo --release first
#   PREFIX=/opt/x PROFILE=debug scripts/install-c.sh
#   DESTDIR=/tmp/stage PREFIX=/usr scripts/install-c.sh   (staged install for packaging)
#
# Honours CARGO_TARGET_DIR (else ./target). Then:  pkg-config --cflags --libs codexclient
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PREFIX="${PREFIX:-/usr/local}"
PROFILE="${PROFILE:-release}"
DESTDIR="${DESTDIR:-}"
LIBDIR_NAME="${LIBDIR_NAME:-lib}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
case "$PREFIX" in /*) ;; *) echo "PREFIX must be absolute: $PREFIX" >&2; exit 2 ;; esac

case "$PROFILE" in
  release) CARGO_TARGET_DIR="$TARGET" cargo build --quiet --release -p codex-client-ffi; BUILD="$TARGET/release" ;;
  debug) CARGO_TARGET_DIR="$TARGET" cargo build --quiet -p codex-client-ffi; BUILD="$TARGET/debug" ;;
  *) echo "PROFILE must be release or debug" >&2; exit 2 ;;
esac

VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
ABI_MAJOR=$(sed -n 's/^pub const CODEX_ABI_VERSION_MAJOR: u32 = \([0-9]*\);/\1/p' ffi-c/src/abi.rs)
ABI_MINOR=$(sed -n 's/^pub const CODEX_ABI_VERSION_MINOR: u32 = \([0-9]*\);/\1/p' ffi-c/src/abi.rs)
[ -n "$ABI_MAJOR" ] && [ -n "$ABI_MINOR" ] || { echo "cannot read the ABI version from ffi-c/src/abi.rs" >&2; exit 1; }
SONAME="libcodexclient.so.$ABI_MAJOR"
if command -v readelf >/dev/null 2>&1; then
  built=$(readelf -d "$BUILD/libcodexclient.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
  [ "$built" = "$SONAME" ] || { echo "$BUILD/libcodexclient.so has soname '$built', expected $SONAME" >&2; exit 1; }
fi
LIB="$DESTDIR$PREFIX/$LIBDIR_NAME"
INC="$DESTDIR$PREFIX/include"
install -d "$LIB/pkgconfig" "$INC"
install -m 0755 "$BUILD/libcodexclient.so" "$LIB/$SONAME.$ABI_MINOR"
ln -sfn "$SONAME.$ABI_MINOR" "$LIB/$SONAME"
ln -sfn "$SONAME" "$LIB/libcodexclient.so"
install -m 0644 "$BUILD/libcodexclient.a" "$LIB/libcodexclient.a"
install -m 0644 include/codexclient.h include/codexclient.hpp "$INC/"
cat >"$LIB/pkgconfig/codexclient.pc" <<PC
prefix=$PREFIX
libdir=\${prefix}/$LIBDIR_NAME
includedir=\${prefix}/include
abi_version=$ABI_MAJOR.$ABI_MINOR

Name: codexclient
Description: Native client library for OpenAI Codex's agent runtime (codex app-server)
Version: $VERSION
Libs: -L\${libdir} -lcodexclient
Libs.private: -lpthread -ldl -lm
Cflags: -I\${includedir}
PC
echo "installed libcodexclient $VERSION (ABI $ABI_MAJOR.$ABI_MINOR, soname $SONAME) into $DESTDIR$PREFIX"
