#!/usr/bin/env bash
# Idempotent setup for the Elixir NIF example (examples/elixir, scripts/test-elixir.sh):
# Debian's Elixir and Erlang headers (`elixir`, `erlang-dev`, plus cc, make, pkg-config) from
# apt when missing, then libcodexclient (debug build) installed with scripts/install-c.sh into
# a prefix under the cache dir (~/.cache/libcodexclient/elixir-prefix), plus the mock model.
# No Hex: the example has no dependencies. Prints nothing on stdout except the prefix path.
# Honours CARGO_TARGET_DIR (else ./target).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
log() { printf '[setup-elixir] %s\n' "$*" >&2; }

missing=()
command -v elixir >/dev/null 2>&1 || missing+=(elixir)
command -v mix >/dev/null 2>&1 || missing+=(elixir)
command -v erl >/dev/null 2>&1 || missing+=(erlang-dev)
if command -v erl >/dev/null 2>&1; then
  ERTS_INC=$(erl -noshell -eval 'io:format("~ts/erts-~ts/include", [code:root_dir(), erlang:system_info(version)]), halt().' 2>/dev/null || true)
  [ -f "$ERTS_INC/erl_nif.h" ] || missing+=(erlang-dev)
fi
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || { log "missing ${missing[*]} and no apt-get: install them"; exit 1; }
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # erlang-dev alone does not pull the runtime pieces ExUnit needs; elixir pulls erlang-base.
  pkgs=$(printf '%s\n' "${missing[@]}" elixir erlang-dev | sort -u | tr '\n' ' ')
  log "installing $pkgs with apt-get"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $pkgs >&2
fi

PREFIX="$CACHE/elixir-prefix"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
# The whole workspace, as scripts/setup.sh builds it: a build of single packages resolves other
# features for shared dependencies and compiles them and the core a second time.
CARGO_TARGET_DIR="$TARGET" cargo build --quiet --workspace --all-targets >&2
log "installing libcodexclient (debug) into $PREFIX"
CARGO_TARGET_DIR="$TARGET" NO_BUILD=1 PREFIX="$PREFIX" PROFILE=debug bash scripts/install-c.sh >&2
echo "$PREFIX"
