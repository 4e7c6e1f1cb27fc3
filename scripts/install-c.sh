#!/usr/bin/env bash
# Install the C ABI of libcodexclient: libcodexclient.so (+ soname link) and libcodexclient.a
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

VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' ffi-c/Cargo.toml | head -1)
MAJOR=${VERSION%%.*}
LIB="$DESTDIR$PREFIX/$LIBDIR_NAME"
INC="$DESTDIR$PREFIX/include"
install -d "$LIB/pkgconfig" "$INC"
install -m 0755 "$BUILD/libcodexclient.so" "$LIB/libcodexclient.so.$VERSION"
ln -sfn "libcodexclient.so.$VERSION" "$LIB/libcodexclient.so.$MAJOR"
ln -sfn "libcodexclient.so.$VERSION" "$LIB/libcodexclient.so"
install -m 0644 "$BUILD/libcodexclient.a" "$LIB/libcodexclient.a"
install -m 0644 include/codexclient.h include/codexclient.hpp "$INC/"
cat >"$LIB/pkgconfig/codexclient.pc" <<PC
prefix=$PREFIX
libdir=\${prefix}/$LIBDIR_NAME
includedir=\${prefix}/include

Name: codexclient
Description: Native client library for OpenAI Codex's agent runtime (codex app-server)
Version: $VERSION
Libs: -L\${libdir} -lcodexclient
Libs.private: -lpthread -ldl -lm
Cflags: -I\${includedir}
PC
echo "installed libcodexclient $VERSION into $DESTDIR$PREFIX"
