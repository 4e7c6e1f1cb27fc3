#!/usr/bin/env bash
# Install the C ABI of libcodexclient: libcodexclient.so.MAJOR.MINOR with the soname link
# libcodexclient.so.MAJOR (the ABI version of ffi-c/src/abi.rs, which build.rs also writes into
# the library's DT_SONAME) and the development link libcodexclient.so, plus libcodexclient.a,
# into $PREFIX/lib, include/codexclient.h and the C++ headers (codexclient.hpp with the
# codexclient_mcp.hpp, codexclient_codex.hpp and codexclient_options.hpp it includes) into
# $PREFIX/include, a pkg-config file into $PREFIX/lib/pkgconfig/codexclient.pc, and a CMake package into
# $PREFIX/lib/cmake/codexclient (codexclientConfig.cmake, codexclientConfigVersion.cmake):
#
#   find_package(codexclient 0.2 REQUIRED)      # CMAKE_PREFIX_PATH=$PREFIX if not a system prefix
#   target_link_libraries(app PRIVATE codexclient::codexclient)         # shared (libcodexclient.so.1)
#   target_link_libraries(app PRIVATE codexclient::codexclient_static)  # static (libcodexclient.a)
#
# The CMake package is relocatable (paths relative to its own directory); its version is the
# release version (0.x: the same minor is required, as Cargo does), codexclient_ABI_VERSION the
# C ABI's MAJOR.MINOR.
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

# NO_BUILD=1: install what the caller built into $CARGO_TARGET_DIR/$PROFILE (the test scripts
# build the whole workspace, whose feature set differs from this package's alone).
case "$PROFILE" in
  release) BUILD="$TARGET/release"; [ -n "${NO_BUILD:-}" ] || CARGO_TARGET_DIR="$TARGET" cargo build --quiet --release -p codex-client-ffi ;;
  debug) BUILD="$TARGET/debug"; [ -n "${NO_BUILD:-}" ] || CARGO_TARGET_DIR="$TARGET" cargo build --quiet -p codex-client-ffi ;;
  *) echo "PROFILE must be release or debug" >&2; exit 2 ;;
esac
[ -f "$BUILD/libcodexclient.so" ] && [ -f "$BUILD/libcodexclient.a" ] || { echo "no libcodexclient.so and .a in $BUILD" >&2; exit 1; }

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
install -m 0644 include/codexclient.h include/codexclient.hpp include/codexclient_mcp.hpp include/codexclient_codex.hpp \
  include/codexclient_options.hpp "$INC/"
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
# CMake package: the prefix is found from the config file's own place, so a staged or moved
# install works; LIBDIR_NAME may have several components (lib/x86_64-linux-gnu).
CMAKE_DIR="$LIB/cmake/codexclient"
install -d "$CMAKE_DIR"
up="../.."; rest="$LIBDIR_NAME"
while [ -n "$rest" ]; do up="$up/.."; case "$rest" in */*) rest=${rest#*/} ;; *) rest="" ;; esac; done
# The templates are quoted (CMake's ${...} stays as is); @NAME@ is filled in by sed.
subst() {
  sed -e "s|@VERSION@|$VERSION|g" -e "s|@ABI@|$ABI_MAJOR.$ABI_MINOR|g" -e "s|@SONAME@|$SONAME|g" \
      -e "s|@ABI_MINOR@|$ABI_MINOR|g" -e "s|@UP@|$up|g" -e "s|@LIBDIR@|$LIBDIR_NAME|g" \
      -e "s|@BYTES@|$(getconf LONG_BIT | awk '{print $1 / 8}')|g"
}
subst >"$CMAKE_DIR/codexclientConfig.cmake" <<'CMAKE'
# CMake package of libcodexclient @VERSION@ (C ABI @ABI@), written by scripts/install-c.sh.
# Imported targets:
#   codexclient::codexclient         the shared library (soname @SONAME@)
#   codexclient::codexclient_static  the static library (links Threads, dl and m as well)
# Variables: codexclient_VERSION (set by find_package), codexclient_ABI_VERSION,
# codexclient_INCLUDE_DIRS.
get_filename_component(_codexclient_prefix "${CMAKE_CURRENT_LIST_DIR}/@UP@" ABSOLUTE)
set(codexclient_ABI_VERSION "@ABI@")
set(codexclient_INCLUDE_DIRS "${_codexclient_prefix}/include")
include(CMakeFindDependencyMacro)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)
if(NOT TARGET codexclient::codexclient)
  add_library(codexclient::codexclient SHARED IMPORTED)
  set_target_properties(codexclient::codexclient PROPERTIES
    IMPORTED_LOCATION "${_codexclient_prefix}/@LIBDIR@/@SONAME@.@ABI_MINOR@"
    IMPORTED_SONAME "@SONAME@"
    INTERFACE_INCLUDE_DIRECTORIES "${_codexclient_prefix}/include")
endif()
if(NOT TARGET codexclient::codexclient_static)
  add_library(codexclient::codexclient_static STATIC IMPORTED)
  set_target_properties(codexclient::codexclient_static PROPERTIES
    IMPORTED_LOCATION "${_codexclient_prefix}/@LIBDIR@/libcodexclient.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_codexclient_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
endif()
unset(_codexclient_prefix)
CMAKE
subst >"$CMAKE_DIR/codexclientConfigVersion.cmake" <<'CMAKE'
# Version of the codexclient CMake package: @VERSION@. A request is met when it is not newer and
# names the same major version (for 0.x the same minor too: 0.x releases may change the API
# between minors, as Cargo reads them). EXACT requests must match all three numbers.
set(PACKAGE_VERSION "@VERSION@")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
set(PACKAGE_VERSION_EXACT FALSE)
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
if(NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  string(REGEX MATCH "^[0-9]+" _have_major "${PACKAGE_VERSION}")
  string(REGEX MATCH "^[0-9]+[.][0-9]+" _have_minor "${PACKAGE_VERSION}")
  if(PACKAGE_FIND_VERSION_MAJOR STREQUAL _have_major)
    if(NOT _have_major STREQUAL "0" OR PACKAGE_FIND_VERSION_COUNT LESS 2
       OR "${PACKAGE_FIND_VERSION_MAJOR}.${PACKAGE_FIND_VERSION_MINOR}" STREQUAL _have_minor)
      set(PACKAGE_VERSION_COMPATIBLE TRUE)
    endif()
  endif()
  unset(_have_major)
  unset(_have_minor)
endif()
# A library of another pointer size is not this project's.
if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P STREQUAL "@BYTES@")
  math(EXPR _bits "@BYTES@ * 8")
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (${_bits}-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  unset(_bits)
endif()
CMAKE
echo "installed libcodexclient $VERSION (ABI $ABI_MAJOR.$ABI_MINOR, soname $SONAME) into $DESTDIR$PREFIX"
