#!/usr/bin/env bash
# C ABI checks (idempotent): builds libcodexclient with cargo, checks its soname (ABI major
# version), checks include/codexclient.h against a fresh cbindgen run (pinned version, macros
# expanded with the nightly toolchain: scripts/gen-header.sh) and that the library exports
# exactly the header's functions, compiles the C tests (C99) and the header
# checks (C99 + C++17) with -Wall -Wextra -Werror -pedantic, builds the C and C++ examples,
# installs into a temporary prefix and builds the examples with pkg-config and with CMake
# (find_package(codexclient), shared and static targets; tests/cmake), then runs every test
# program against the REAL codex app-server CODEX_DEFAULT of scripts/codex-versions.sh
# (test_version, the smoke set, also on each CODEX_SMOKE version; test_transport also the exec
# transport and the mcp transport of the real Codex 0.92.0) and the local mock model, and the MCP
# tests and examples against the real MCP everything server (Node; MCP_NODE / MCP_EVERYTHING,
# else .cache/mcp.env or the .cache links of scripts/setup-mcp.sh) and test_mcp_sdk against the
# servers on the official Python and TypeScript SDKs in both MCP eras (the scenario table
# testkit/sdk-servers/scenarios.json; MCP_SDK_PYTHON / MCP_MODULES), plainly and built with
# AddressSanitizer, and those where memory changes hands across the C boundary under valgrind
# (memcheck, leak check; node is a child process and runs natively): see VALGRIND_TESTS.
# Nothing is skipped: a missing dependency fails with the install command.
#
# Last line on success: `c-tests: N passed, 0 failed`.
# Exit status non-zero on any failure.
# Honours CARGO_TARGET_DIR (else ./target). Options: --no-valgrind, --no-asan (faster runs).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
export CARGO_TARGET_DIR="$TARGET"
LIBDIR="$TARGET/debug"
OUT="$TARGET/c-tests"
VALGRIND=1
ASAN=1
for a in "$@"; do
  case "$a" in
    --no-valgrind) VALGRIND=0 ;;
    --no-asan) ASAN=0 ;;
    *) echo "usage: $0 [--no-valgrind] [--no-asan]" >&2; exit 2 ;;
  esac
done

passed=0
failed=0
failures=()
log() { printf '[test-c] %s\n' "$*" >&2; }
pass() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); printf 'FAIL %s\n' "$1"; }
finish() {
  for f in "${failures[@]+"${failures[@]}"}"; do echo "failed: $f"; done
  echo "c-tests: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
  exit $?
}
fatal() { fail "$1"; finish; }

# ---------------------------------------------------------------- prerequisites
CBINDGEN=$(bash scripts/setup-c.sh) || fatal "setup-c (toolchain, pkg-config, valgrind, cbindgen)"
source scripts/codex-versions.sh # CODEX_DEFAULT, CODEX_SMOKE
CODEX_BIN="$ROOT/.cache/codex-$CODEX_DEFAULT"
if [ ! -x "$CODEX_BIN" ] || [ "$("$CODEX_BIN" --version 2>/dev/null)" != "codex-cli $CODEX_DEFAULT" ]; then
  echo "The real Codex $CODEX_DEFAULT is missing ($CODEX_BIN). Install it with: scripts/setup.sh" >&2
  fatal "real codex $CODEX_DEFAULT present"
fi
CODEX_BIN=$(readlink -f "$CODEX_BIN")
CODEX_VERSION=$CODEX_DEFAULT
export CODEX_BIN CODEX_VERSION
# The mcp transport needs `codex mcp-server`, which only Codex 0.92.0 and older have.
CODEX_092_BIN="${CODEX_092_BIN:-$ROOT/.cache/codex-0.92.0}"
if [ ! -x "$CODEX_092_BIN" ] || [ "$("$CODEX_092_BIN" --version 2>/dev/null)" != "codex-cli 0.92.0" ]; then
  echo "The real Codex 0.92.0 is missing ($CODEX_092_BIN): run \`npm install @openai/codex@0.92.0\` in a" >&2
  echo "scratch folder and link node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex there" >&2
  fatal "real codex 0.92.0 present"
fi
CODEX_092_BIN=$(readlink -f "$CODEX_092_BIN")
export CODEX_092_BIN
# The MCP everything server (and Node for it): MCP_NODE / MCP_EVERYTHING, else
# .cache/mcp.env (scripts/setup-mcp.sh), else the .cache links. Missing: the MCP tests fail
# with the hint to run scripts/setup-mcp.sh.
if [ -z "${MCP_NODE:-}" ] || [ -z "${MCP_EVERYTHING:-}" ]; then
  # shellcheck disable=SC1091
  [ -f "$ROOT/.cache/mcp.env" ] && . "$ROOT/.cache/mcp.env"
fi
[ -n "${MCP_NODE:-}" ] || MCP_NODE="$ROOT/.cache/mcp-node"
if [ -z "${MCP_EVERYTHING:-}" ]; then
  MCP_EVERYTHING="$ROOT/.cache/mcp-everything"
  [ -e "$MCP_EVERYTHING" ] || MCP_EVERYTHING="$ROOT/.cache/mcp-everything.js"
fi
if [ -x "$MCP_NODE" ] && [ -f "$MCP_EVERYTHING" ]; then
  MCP_NODE=$(readlink -f "$MCP_NODE")
  MCP_EVERYTHING=$(readlink -f "$MCP_EVERYTHING")
  export MCP_NODE MCP_EVERYTHING
else
  echo "The MCP everything server is missing ($MCP_NODE, $MCP_EVERYTHING): run bash scripts/setup-mcp.sh" >&2
  unset MCP_NODE MCP_EVERYTHING
fi

# The servers written with the official SDKs (test_mcp_sdk, testkit/sdk-servers): the Python of
# the SDK venv and the node_modules with @modelcontextprotocol/server (scripts/setup-mcp.sh).
[ -n "${MCP_MODULES:-}" ] || MCP_MODULES="$ROOT/.cache/mcp-modules"
[ -n "${MCP_SDK_PYTHON:-}" ] || MCP_SDK_PYTHON="$ROOT/.cache/mcp-sdk-python"
if [ -d "$MCP_MODULES/@modelcontextprotocol/server" ] && [ -x "$MCP_SDK_PYTHON" ]; then
  MCP_MODULES=$(readlink -f "$MCP_MODULES")
  export MCP_MODULES MCP_SDK_PYTHON
else
  echo "The MCP SDK servers' dependencies are missing ($MCP_MODULES, $MCP_SDK_PYTHON): run bash scripts/setup-mcp.sh" >&2
  unset MCP_MODULES MCP_SDK_PYTHON
fi

log "cargo build (the workspace: codex-client-ffi, mock-model, fake-app-server) into $TARGET"
# The whole workspace, as scripts/setup.sh builds it: a build of single packages resolves other
# features for shared dependencies and compiles them and the core a second time.
if cargo build --quiet --workspace --all-targets; then
  pass "cargo build libcodexclient"
else
  fatal "cargo build libcodexclient"
fi
[ -f "$LIBDIR/libcodexclient.so" ] && [ -f "$LIBDIR/libcodexclient.a" ] || fatal "libcodexclient.so and .a built"
# The library's soname carries the ABI major version (ffi-c/build.rs); programs linked against
# the build directory record that name, so give it the soname link an install would give it.
ABI_MAJOR=$(sed -n 's/^pub const CODEX_ABI_VERSION_MAJOR: u32 = \([0-9]*\);/\1/p' ffi-c/src/abi.rs)
SONAME=$(readelf -d "$LIBDIR/libcodexclient.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ -n "$ABI_MAJOR" ] && [ "$SONAME" = "libcodexclient.so.$ABI_MAJOR" ] \
   && grep -q "^#define CODEX_ABI_VERSION_MAJOR $ABI_MAJOR\$" include/codexclient.h; then
  ln -sfn libcodexclient.so "$LIBDIR/$SONAME"
  pass "soname $SONAME (ABI major $ABI_MAJOR, as CODEX_ABI_VERSION_MAJOR in the header)"
else
  fatal "soname of libcodexclient.so is libcodexclient.so.<CODEX_ABI_VERSION_MAJOR> (got '$SONAME', ABI major '$ABI_MAJOR')"
fi

# ---------------------------------------------------------------- header drift
mkdir -p "$OUT"
rm -f "$OUT/codexclient.h.fresh"
if CBINDGEN="$CBINDGEN" bash scripts/gen-header.sh --output "$OUT/codexclient.h.fresh" 2>"$OUT/gen-header.log" \
   && diff -u include/codexclient.h "$OUT/codexclient.h.fresh" >"$OUT/header.diff"; then
  pass "include/codexclient.h matches cbindgen $("$CBINDGEN" --version | awk '{print $2}') output (macros expanded)"
else
  cat "$OUT/gen-header.log" "$OUT/header.diff" >&2
  echo "include/codexclient.h is stale: regenerate with scripts/gen-header.sh" >&2
  fail "header drift check"
fi
# Every export reaches the header: the codex_* functions the library exports are exactly the
# functions the header declares (an export cbindgen could not see would be missing).
if CODEX_CLIENT_BIN="$LIBDIR/codex-client" bash scripts/gen-cpp-options.sh --output "$OUT/codexclient_options.hpp.fresh" \
     2>"$OUT/gen-cpp-options.log" \
   && diff -u include/codexclient_options.hpp "$OUT/codexclient_options.hpp.fresh" >"$OUT/cpp-options.diff"; then
  pass "include/codexclient_options.hpp matches the core's option table (scripts/gen-cpp-options.sh)"
else
  cat "$OUT/gen-cpp-options.log" "$OUT/cpp-options.diff" >&2
  echo "include/codexclient_options.hpp is stale: regenerate with scripts/gen-cpp-options.sh" >&2
  fail "C++ options drift check"
fi
nm -D --defined-only "$LIBDIR/libcodexclient.so" | awk '$2 == "T" && $3 ~ /^codex_/ {print $3}' | sort >"$OUT/exported.txt"
sed -n 's/^[a-z].*[ *]\(codex_[a-z0-9_]*\)(.*/\1/p' include/codexclient.h | sort -u >"$OUT/declared.txt"
if [ -s "$OUT/exported.txt" ] && diff -u "$OUT/declared.txt" "$OUT/exported.txt" >"$OUT/symbols.diff"; then
  pass "the $(wc -l <"$OUT/exported.txt") exported codex_* functions are the header's functions"
else
  cat "$OUT/symbols.diff" >&2
  fail "exported functions = header functions (- only in the header, + only in the library)"
fi

# ---------------------------------------------------------------- compile
CWARN=(-Wall -Wextra -Werror -pedantic)
CFLAGS=(-std=c99 "${CWARN[@]}" -g -O1 -Iinclude -Itests/c)
CXXFLAGS=(-std=c++17 "${CWARN[@]}" -g -O1 -Iinclude -Itests/c)
LDLIB=(-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lcodexclient -lpthread)
ASANF=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)

# The compilations (each test plainly and with ASan, the examples: ~60 single-threaded compiler
# runs, ~50 s of CPU) run two at a time; compiled() then reports each, in the order started.
COMPILE_JOBS=2 COMPILE_NAMES=() COMPILE_PIDS=()
compile() { # name, command...: started in the background
  local name=$1; shift
  while [ "$(jobs -rp | wc -l)" -ge "$COMPILE_JOBS" ]; do wait -n || true; done
  "$@" 2>"$OUT/$name.compile.log" &
  COMPILE_NAMES+=("$name") COMPILE_PIDS+=($!)
}
compiled() { # waits for every compile() and reports each (ok / FAIL with its log)
  local i name
  for i in "${!COMPILE_PIDS[@]}"; do
    name=${COMPILE_NAMES[$i]}
    if wait "${COMPILE_PIDS[$i]}"; then pass "compile $name"; else cat "$OUT/$name.compile.log" >&2; fail "compile $name"; fi
  done
  COMPILE_NAMES=() COMPILE_PIDS=()
}
compile header-c99 cc "${CFLAGS[@]}" -c tests/c/header_check.c -o "$OUT/header_check_c.o"
compile header-cxx17 c++ "${CXXFLAGS[@]}" -c tests/c/header_check.cpp -o "$OUT/header_check_cpp.o"
TESTS=()
for src in tests/c/test_*.c; do
  t=$(basename "$src" .c)
  TESTS+=("$t")
  compile "$t" cc "${CFLAGS[@]}" "$src" -o "$OUT/$t" "${LDLIB[@]}"
  [ "$ASAN" = 1 ] && compile "$t.asan" cc "${CFLAGS[@]}" "${ASANF[@]}" "$src" -o "$OUT/$t.asan" "${LDLIB[@]}"
done
for src in tests/c/test_*.cpp; do
  t=$(basename "$src" .cpp)
  TESTS+=("$t")
  compile "$t" c++ "${CXXFLAGS[@]}" "$src" -o "$OUT/$t" "${LDLIB[@]}"
  [ "$ASAN" = 1 ] && compile "$t.asan" c++ "${CXXFLAGS[@]}" "${ASANF[@]}" "$src" -o "$OUT/$t.asan" "${LDLIB[@]}"
done
compile example-c cc "${CFLAGS[@]}" examples/c/stream_turn.c -o "$OUT/example_c" "${LDLIB[@]}"
compile example-cpp c++ "${CXXFLAGS[@]}" examples/cpp/stream_turn.cpp -o "$OUT/example_cpp" "${LDLIB[@]}"
compile example-mcp-c cc "${CFLAGS[@]}" examples/c/mcp_tools.c -o "$OUT/example_mcp_c" "${LDLIB[@]}"
compile example-mcp-cpp c++ "${CXXFLAGS[@]}" examples/cpp/mcp_tools.cpp -o "$OUT/example_mcp_cpp" "${LDLIB[@]}"
compile example-oauth-c cc "${CFLAGS[@]}" examples/c/mcp_oauth.c -o "$OUT/example_oauth_c" "${LDLIB[@]}"
# Static linking works too (pkg-config's Libs.private).
compile example-c-static cc "${CFLAGS[@]}" examples/c/stream_turn.c -o "$OUT/example_c_static" \
  "$LIBDIR/libcodexclient.a" -lpthread -ldl -lm
compiled

# ---------------------------------------------------------------- install + pkg-config
PREFIX="$OUT/prefix"
rm -rf "$PREFIX"
if NO_BUILD=1 PREFIX="$PREFIX" PROFILE=debug bash scripts/install-c.sh >"$OUT/install.log" 2>&1 \
   && [ -f "$PREFIX/lib/libcodexclient.so" ] && [ -f "$PREFIX/lib/libcodexclient.a" ] \
   && [ -f "$PREFIX/include/codexclient.h" ] && [ -f "$PREFIX/include/codexclient.hpp" ] \
   && [ -f "$PREFIX/include/codexclient_mcp.hpp" ] && [ -f "$PREFIX/include/codexclient_codex.hpp" ] \
   && [ -f "$PREFIX/lib/pkgconfig/codexclient.pc" ]; then
  pass "install-c.sh into a temporary prefix"
else
  cat "$OUT/install.log" >&2
  fail "install-c.sh into a temporary prefix"
fi
PCFLAGS=$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs codexclient 2>"$OUT/pc.log") || true
if [ -n "$PCFLAGS" ] \
   && cc -std=c99 "${CWARN[@]}" examples/c/stream_turn.c -o "$OUT/example_c_pc" $PCFLAGS -Wl,-rpath,"$PREFIX/lib" 2>>"$OUT/pc.log" \
   && c++ -std=c++17 "${CWARN[@]}" examples/cpp/stream_turn.cpp -o "$OUT/example_cpp_pc" $PCFLAGS -Wl,-rpath,"$PREFIX/lib" 2>>"$OUT/pc.log"; then
  pass "examples built with pkg-config --cflags --libs codexclient ($PCFLAGS)"
else
  cat "$OUT/pc.log" >&2
  fail "examples built with pkg-config"
fi

# ---------------------------------------------------------------- CMake package
# tests/cmake builds the C example (shared and static imported targets) and the C++ example with
# find_package(codexclient VERSION) from the installed prefix; a newer minor is refused.
VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
ABI_MINOR=$(sed -n 's/^pub const CODEX_ABI_VERSION_MINOR: u32 = \([0-9]*\);/\1/p' ffi-c/src/abi.rs)
CMB="$OUT/cmake-build"
rm -rf "$CMB" "$CMB-newer"
if cmake -S tests/cmake -B "$CMB" -DCMAKE_PREFIX_PATH="$PREFIX" -DEXPECT_VERSION="$VERSION" \
     -DEXPECT_ABI="$ABI_MAJOR.$ABI_MINOR" -DCMAKE_C_FLAGS="${CWARN[*]}" -DCMAKE_CXX_FLAGS="${CWARN[*]}" \
     >"$OUT/cmake.log" 2>&1 \
   && cmake --build "$CMB" -j 2 >>"$OUT/cmake.log" 2>&1; then
  pass "examples built with CMake find_package(codexclient $VERSION): codexclient::codexclient, codexclient::codexclient_static"
else
  cat "$OUT/cmake.log" >&2
  fail "examples built with CMake find_package(codexclient)"
fi
newer=$(echo "$VERSION" | awk -F. '{ if ($1 == 0) print "0." $2 + 1; else print $1 + 1 ".0" }')
if ! cmake -S tests/cmake -B "$CMB-newer" -DCMAKE_PREFIX_PATH="$PREFIX" -DREQUIRE_VERSION="$newer" \
     >"$OUT/cmake-newer.log" 2>&1 && grep -q "compatible with requested version \"$newer\"" "$OUT/cmake-newer.log" \
   && grep -q "codexclientConfig.cmake, version: $VERSION" "$OUT/cmake-newer.log"; then
  pass "find_package(codexclient $newer) refuses the installed $VERSION"
else
  cat "$OUT/cmake-newer.log" >&2
  fail "find_package(codexclient $newer) refuses the installed $VERSION"
fi

# ---------------------------------------------------------------- mock model
MOCK_HOME="$OUT/mock-home"
rm -rf "$MOCK_HOME"
coproc MOCK { exec "$LIBDIR/mock-model" --codex-home "$MOCK_HOME"; }
MOCK_OUT=${MOCK[0]}
MOCK_IN=${MOCK[1]}
MOCK_PORT=""
read -r -t 30 word MOCK_PORT <&"$MOCK_OUT" || true
if [ "${word:-}" != "PORT" ] || [ -z "$MOCK_PORT" ] || [ ! -f "$MOCK_HOME/config.toml" ]; then
  fatal "start mock-model"
fi
cleanup() { exec {MOCK_IN}>&- 2>/dev/null || true; wait "${MOCK_PID:-0}" 2>/dev/null || true; }
trap cleanup EXIT
log "mock model on 127.0.0.1:$MOCK_PORT"
bash scripts/page-in-codex.sh "$CODEX_DEFAULT" 0.92.0 # resident before the first spawn (see the script)
export MOCK_MODEL_BASE_URL="http://127.0.0.1:$MOCK_PORT/v1"
export FAKE_APP_SERVER="$LIBDIR/fake-app-server"

RUN=0
# The test programs run C_JOBS at a time (default 2: most of a program's time is a real Codex
# or MCP server answering; each run has its own CODEX_HOME, work dir and ephemeral ports), and
# are reported in the order they were started, each with its own time. run <label> <command...>
# starts one (fresh CODEX_HOME with the mock config, fresh work dir, bounded by `timeout`);
# run_sync starts one and waits for everything before it, for the runs that share a fixture.
C_JOBS="${C_JOBS:-2}"
PENDING=() PENDING_PIDS=() # run dirs (label, exit status, seconds inside) in start order, and their pids
running_pids() { # the pids of the started runs that have not written their exit status
  local i
  for i in "${!PENDING[@]}"; do [ -f "${PENDING[$i]}/rc" ] || echo "${PENDING_PIDS[$i]}"; done
}
run() {
  local label=$1; shift
  RUN=$((RUN + 1))
  local dir="$OUT/run/$RUN"
  rm -rf "$dir"; mkdir -p "$dir/home" "$dir/work"
  cp "$MOCK_HOME/config.toml" "$dir/home/config.toml"
  printf '%s\n' "$label" >"$dir/label"
  # (the mock model's coproc and the OAuth fixture are jobs too: wait on the runs' own pids)
  local busy
  while busy=($(running_pids)) && [ "${#busy[@]}" -ge "$C_JOBS" ]; do wait -n "${busy[@]}" 2>/dev/null || true; done
  (
    t0=$SECONDS rc=0
    CODEX_HOME="$dir/home" CODEX_WORK="$dir/work" timeout -k 10 900 "$@" >"$dir/out.log" 2>&1 || rc=$?
    echo $((SECONDS - t0)) >"$dir/secs"
    echo "$rc" >"$dir/rc.tmp" && mv "$dir/rc.tmp" "$dir/rc"
  ) &
  PENDING+=("$dir") PENDING_PIDS+=("$!")
  report_done
}
# Reports the finished runs at the head of PENDING (in start order); `report_done all` waits
# for every run first.
report_done() {
  if [ "${1:-}" = all ] && [ "${#PENDING_PIDS[@]}" -gt 0 ]; then wait "${PENDING_PIDS[@]}" 2>/dev/null || true; fi
  while [ "${#PENDING[@]}" -gt 0 ] && [ -f "${PENDING[0]}/rc" ]; do
    local dir=${PENDING[0]} label rc
    PENDING=("${PENDING[@]:1}") PENDING_PIDS=("${PENDING_PIDS[@]:1}")
    label=$(cat "$dir/label"); rc=$(cat "$dir/rc")
    if [ "$rc" = 0 ]; then
      pass "$label ($(cat "$dir/secs") s)"
      grep -E '^(test_|example)' "$dir/out.log" | tail -3 | sed 's/^/     /'
    else
      tail -40 "$dir/out.log" >&2
      fail "$label (log: $dir/out.log)"
    fi
  done
}
run_sync() { report_done all; run "$@"; report_done all; }

VG=(env CODEX_TEST_UNDER_VALGRIND=1 valgrind --tool=memcheck --error-exitcode=1 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --track-fds=no --quiet)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Every test program runs plainly and built with AddressSanitizer (with LeakSanitizer and
# UBSan); valgrind runs the programs whose subject is memory changing hands across the C
# boundary. Why that split:
# - ASan instruments the program: every access it makes is checked, including to memory the
#   library allocated (strings, events, JSON: the library allocates them with the C allocator,
#   which ASan intercepts, so a use after codex_string_free / codex_event_free or a double free
#   by the program is caught), and LeakSanitizer reports any allocation never freed, the
#   library's included. It costs about 2x; every program can afford it.
# - ASan cannot see accesses made inside the library (Rust, not instrumented) to memory the
#   program owns: a struct or string the program passed in, userdata and callbacks the library
#   keeps and calls later, a borrowed event, a handle the program already freed; nor
#   uninitialised reads anywhere. valgrind's memcheck sees every access of the process. It costs
#   3-30x per program (test_abi 0.3 s -> 9 s; the twelve programs left out took 132 s under
#   valgrind on a loaded 2-core machine, against 2-8 s each plainly), so it runs where
#   those handovers are the thing tested: the ABI's options struct and copied strings
#   (test_abi), freed/borrowed/double-freed objects (test_misuse), callbacks and requests kept
#   and answered later (test_callbacks, test_cpp_wrapper's std::function copies), caller-owned
#   poll events (test_poll), completions racing a disconnect (test_threads), the log callback
#   (test_log), the exec-policy amendment's borrowed prefix array (test_execpolicy), OAuth callbacks with answer handles and release (test_oauth, test_oauth_cpp), a
#   listen handle freed by the program (test_mcp_listen), and the MCP SDK table's four
#   representative rows (test_mcp_sdk). The other programs pass strings in and take library
#   strings out through the same functions; what they test is protocol behaviour (MCP requests,
#   logins, reconnect, transports, skills), which does not change under valgrind.
VALGRIND_TESTS=" test_abi test_misuse test_callbacks test_cpp_wrapper test_poll test_threads test_log test_execpolicy test_oauth test_oauth_cpp test_mcp_listen test_mcp_sdk "
# Codex's ChatGPT browser login listens on the machine's fixed port 1455, and a second login
# started meanwhile cancels the first (measured: two `codex login` at once): the programs that
# start one hold this lock (flock(1)), which tests/python/conftest.py takes too.
LOGIN_TESTS=" test_account test_account_cpp "
LOGIN_LOCK="${TMPDIR:-/tmp}/codexclient-test-chatgpt-login.lock"
for t in "${TESTS[@]}"; do
  [ -x "$OUT/$t" ] || continue
  lock=()
  [[ "$LOGIN_TESTS" == *" $t "* ]] && lock=(flock "$LOGIN_LOCK")
  run "$t" "${lock[@]}" "$OUT/$t"
  [ "$VALGRIND" = 1 ] && [[ "$VALGRIND_TESTS" == *" $t "* ]] && run "$t under valgrind" "${lock[@]}" "${VG[@]}" "$OUT/$t"
  [ "$ASAN" = 1 ] && [ -x "$OUT/$t.asan" ] && run "$t with AddressSanitizer" "${lock[@]}" "$OUT/$t.asan"
done
# The smoke set (test_version) on the other Codex versions of CODEX_SMOKE: smoke only.
for cv in $CODEX_SMOKE; do
  bash scripts/page-in-codex.sh "$cv" # resident before its first spawn (see the script)
  [ -x "$OUT/test_version" ] && run "test_version on Codex $cv (smoke)" env CODEX_VERSION="$cv" \
    CODEX_BIN="$(readlink -f "$ROOT/.cache/codex-$cv")" CODEX_SMOKE_ONLY=1 "$OUT/test_version"
  [ -x "$OUT/test_version_cpp" ] && run "test_version_cpp on Codex $cv (smoke)" env CODEX_VERSION="$cv" \
    CODEX_BIN="$(readlink -f "$ROOT/.cache/codex-$cv")" "$OUT/test_version_cpp"
done
[ -x "$OUT/example_c" ] && run "example C (stream a turn, approval, interrupt)" "$OUT/example_c"
[ -x "$OUT/example_c" ] && run "example C --decline (approval declined, command did not run)" "$OUT/example_c" --decline
[ -x "$OUT/example_cpp" ] && run "example C++ (stream a turn, approval, interrupt)" "$OUT/example_cpp"
[ -x "$OUT/example_c_static" ] && run "example C statically linked" "$OUT/example_c_static"
[ -x "$OUT/example_c_pc" ] && run "example C from the installed prefix" "$OUT/example_c_pc"
[ -x "$OUT/example_cpp_pc" ] && [ "$VALGRIND" = 1 ] && run "example C++ under valgrind" "${VG[@]}" "$OUT/example_cpp_pc"
[ -x "$CMB/stream_turn_c" ] && run "example C built with CMake (codexclient::codexclient)" "$CMB/stream_turn_c"
[ -x "$CMB/stream_turn_c_static" ] && run "example C built with CMake (codexclient::codexclient_static)" "$CMB/stream_turn_c_static"
EVERYTHING=("${MCP_NODE:-.cache/mcp-node}" "${MCP_EVERYTHING:-.cache/mcp-everything}" stdio)
[ -x "$OUT/example_mcp_c" ] && run "example C mcp_tools (everything server over stdio: tools/list, echo)" \
  "$OUT/example_mcp_c" -- "${EVERYTHING[@]}"
[ -x "$OUT/example_mcp_c" ] && [ "$VALGRIND" = 1 ] && run "example C mcp_tools under valgrind" \
  "${VG[@]}" "$OUT/example_mcp_c" --tool get-sum --args '{"a":2,"b":3}' -- "${EVERYTHING[@]}"
[ -x "$OUT/example_mcp_cpp" ] && run "example C++ mcp_tools (everything server over stdio: tools/list, echo)" \
  "$OUT/example_mcp_cpp" -- "${EVERYTHING[@]}"

# The OAuth example against the real OAuth fixture (scripts/mcp/oauth-fixture.mjs: oidc-provider
# in front of an MCP server that verifies every token): the loopback browser step with the
# headless browser of tests/c/oauth_browser.sh and the token store file, then a second run from
# that file with a browser that fails (so no authorization can have happened).
if [ -x "$OUT/example_oauth_c" ]; then
  if [ -z "${MCP_NODE:-}" ] || [ ! -d scripts/mcp/node_modules/oidc-provider ]; then
    echo "The OAuth fixture needs Node and oidc-provider: run bash scripts/setup-mcp.sh" >&2
    fail "OAuth fixture for example C mcp_oauth"
  else
    OAUTH_OUT="$OUT/oauth-fixture.out"
    rm -f "$OAUTH_OUT" "$OUT/oauth-fixture.in" "$OUT/oauth-example-tokens.json"
    mkfifo "$OUT/oauth-fixture.in"
    exec {OAUTH_IN}<>"$OUT/oauth-fixture.in"
    "$MCP_NODE" scripts/mcp/oauth-fixture.mjs <"$OUT/oauth-fixture.in" >"$OAUTH_OUT" 2>/dev/null &
    OAUTH_PID=$!
    for _ in $(seq 600); do grep -q '"browse"' "$OAUTH_OUT" 2>/dev/null && break; sleep 0.1; done
    OAUTH_MCP=$(sed -n 's/.*"mcp":"\([^"]*\)".*/\1/p' "$OAUTH_OUT")
    OAUTH_BROWSE=$(sed -n 's/.*"browse":"\([^"]*\)".*/\1/p' "$OAUTH_OUT")
    if [ -z "$OAUTH_MCP" ] || [ -z "$OAUTH_BROWSE" ]; then
      fail "start the OAuth fixture within 60 s"
    else
      export OAUTH_BROWSE
      BROWSER="$ROOT/tests/c/oauth_browser.sh" run_sync "example C mcp_oauth (loopback browser step, token store file)" \
        "$OUT/example_oauth_c" --store "$OUT/oauth-example-tokens.json" --tool whoami "$OAUTH_MCP"
      BROWSER=/bin/false run_sync "example C mcp_oauth again from the token file (no browser)" \
        "$OUT/example_oauth_c" --store "$OUT/oauth-example-tokens.json" --tool whoami "$OAUTH_MCP"
    fi
    kill "$OAUTH_PID" 2>/dev/null; wait "$OAUTH_PID" 2>/dev/null
    exec {OAUTH_IN}>&-
  fi
fi

report_done all
finish
