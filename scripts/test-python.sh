#!/usr/bin/env bash
# Python binding checks: builds the codexclient extension (one abi3 wheel, CPython 3.9+) and,
# on CPython 3.11, 3.12 and 3.13, runs mypy's stubtest on the installed package, `mypy --strict`
# and `pyright` (strict) on examples/python and tests/python/typing_check.py (the typed
# protocol's assert_type checks), and pytest in tests/python (real codex app-server
# CODEX_DEFAULT of scripts/codex-versions.sh + the local mock model + the fake app-server; the
# `smoke` tests also on each CODEX_SMOKE version): the whole suite on 3.11, smoke files on the
# others (see FULL below); the whole suite's venv also gets the Ray of the `ray` extra
# (tests/python/test_ray.py: a real three-node Ray cluster on the loopback). Exits non-zero on
# any failure.
#
# Idempotent and cached: venvs under ~/.cache/libcodexclient/python/ (tools from PyPI once),
# cargo target dir $CARGO_TARGET_DIR (default ~/.cache/libcodexclient/target-py) so re-runs
# are incremental. pyright (pinned, $PYRIGHT_VERSION) comes from the npm registry, installed
# once under the same cache with the machine's npm/node. The tests run on what ships: the
# manylinux2014 wheel of scripts/build-wheels.sh (Cargo profile `dist`, the same build as
# `pip install .`) is installed into each interpreter's venv. Needs the real Codex installed by
# scripts/setup.sh (or CODEX_BIN); without it the tests fail with instructions.
#
# Env: CODEXCLIENT_PYTHON_VERSIONS (default "3.11 3.12 3.13"), CODEXCLIENT_PYTHON_FULL (the
# interpreter that runs the whole pytest suite, default the first; "all"), PYTEST_ARGS (extra pytest args),
# PYTEST_JOBS (pytest-xdist workers of the whole suite, default 2),
# CODEXCLIENT_PYTHON_WHEEL_ONLY=1 (only the distributable wheel's checks: build-wheels.sh, fresh
# 3.9 and 3.13 venvs without cargo, a real turn each, the [cli] extra's bundled Codex),
# CODEXCLIENT_PYTHON_WHEELS_BUILT=1 (test the wheel a `--build-wheel` run built before).
#
#   scripts/test-python.sh [--build-wheel]   (--build-wheel: only build the wheel, as below)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
PYCACHE="$CACHE/python"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target-py}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
VERSIONS="${CODEXCLIENT_PYTHON_VERSIONS:-3.11 3.12 3.13}"
TOOLS="maturin>=1.7,<2 pytest>=7 pytest-xdist>=3.6 mypy>=1.18"
PYRIGHT_VERSION=1.1.414
mkdir -p "$PYCACHE"

log() { printf '[test-python] %4d s: %s\n' "$SECONDS" "$*" >&2; }

pyright_bin() { # installs the pinned pyright (npm) once; prints its path
  local dir="$PYCACHE/pyright-$PYRIGHT_VERSION"
  if [ ! -x "$dir/node_modules/.bin/pyright" ]; then
    if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
      log "pyright needs node and npm: install them (apt-get install nodejs npm, or scripts/setup.sh)"
      log "then: npm install --prefix '$dir' pyright@$PYRIGHT_VERSION"
      return 1
    fi
    log "installing pyright@$PYRIGHT_VERSION into $dir (npm)"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --silent "pyright@$PYRIGHT_VERSION" >&2
  fi
  echo "$dir/node_modules/.bin/pyright"
}
# The distributable wheel (see below), built by scripts/build-wheels.sh into $WHEELS.
# `--build-wheel` builds it and exits: scripts/test.sh starts it beside the steps that leave
# a core idle (its fat-LTO, one-codegen-unit build keeps one core busy for minutes), then
# runs this script with CODEXCLIENT_PYTHON_WHEELS_BUILT=1, which tests that wheel instead of
# building it again.
WHEELS="$PYCACHE/wheels"
build_wheel() {
  local t0 wheel
  rm -rf "$WHEELS"
  t0=$(date +%s)
  WHEEL_OUT="$WHEELS" WHEEL_TARGETS="$(uname -m)-manylinux2014" bash scripts/build-wheels.sh >&2
  wheel=$(ls "$WHEELS"/codexclient-*-cp39-abi3-manylinux2014_"$(uname -m)".*.whl)
  log "built $(basename "$wheel") ($(( $(stat -c %s "$wheel") / 1024 )) KiB) and the sdist in $(( $(date +%s) - t0 )) s"
  WHEEL=$wheel
}
if [ "${1:-}" = --build-wheel ]; then build_wheel; exit 0; fi
PYRIGHT=$(pyright_bin)

find_python() { # $1 = X.Y; prints an interpreter path (pyenv installs a missing one)
  local v="$1"
  find_installed_python "$v" && return 0
  command -v pyenv >/dev/null 2>&1 || return 1
  log "Python $v is missing: pyenv install $v (builds CPython from source, a few minutes)"
  pyenv install --skip-existing "$v" >&2 || return 1
  find_installed_python "$v"
}
find_installed_python() { # $1 = X.Y
  local v="$1" c
  for c in "$(command -v "python$v" 2>/dev/null || true)" \
           "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v"; do
    if [ -n "$c" ] && [ -x "$c" ] && "$c" -c 'import sys, venv' 2>/dev/null; then
      echo "$c"; return 0
    fi
  done
  return 1
}

venv_for() { # $1 = X.Y; creates/updates the cached venv, prints its python
  local v="$1" py dir="$PYCACHE/venv-$1"
  if [ ! -x "$dir/bin/python" ]; then
    py=$(find_python "$v") || { log "Python $v not found (install it, e.g. with pyenv)"; return 1; }
    log "creating venv $dir from $py"
    "$py" -m venv "$dir" >&2
  fi
  if [ "$(cat "$dir/.tools" 2>/dev/null)" != "$TOOLS" ]; then
    log "installing $TOOLS into $dir (PyPI)"
    # shellcheck disable=SC2086
    "$dir/bin/python" -m pip install -q --disable-pip-version-check $TOOLS >&2
    echo "$TOOLS" > "$dir/.tools"
  fi
  echo "$dir/bin/python"
}

log "building the testkit binaries (mock model, fake app-server)"
# The whole workspace, as scripts/setup.sh builds it (`-p` alone resolves other features for
# shared dependencies and compiles them again).
cargo build --quiet --workspace --all-targets
export MOCK_MODEL="$CARGO_TARGET_DIR/debug/mock-model"
export FAKE_APP_SERVER="$CARGO_TARGET_DIR/debug/fake-app-server"

# The distributable wheel (scripts/build-wheels.sh: abi3, manylinux2014 = glibc 2.17, linked
# with zig, auditwheel-checked, at most 5 MB, plus the sdist), installed into fresh venvs of
# Python 3.9 and 3.13 with no cargo on PATH; each runs a real turn of the real Codex CODEX_DEFAULT with
# the local mock model. On 3.13 also `codexclient[cli]`: the pinned openai-codex-cli-bin (PyPI,
# downloaded once into the cache), whose Codex the library finds by itself (no codex_bin, no
# CODEX_BIN, no codex on PATH).
if [ -n "${CODEXCLIENT_PYTHON_WHEELS_BUILT:-}" ]; then
  # scripts/test.sh ran `scripts/test-python.sh --build-wheel` (the build below) beside the
  # fuzz runs and waited for it to pass.
  WHEEL=$(ls "$WHEELS"/codexclient-*-cp39-abi3-manylinux2014_"$(uname -m)".*.whl)
  log "the wheel scripts/test.sh built (--build-wheel): $(basename "$WHEEL") ($(( $(stat -c %s "$WHEEL") / 1024 )) KiB)"
else
  build_wheel
fi
if ! "$CACHE/python/venv-wheels/bin/auditwheel" show "$WHEEL" | tr -s ' \n' '  ' \
     | grep -Eq "consistent with the following platform tag: \"(manylinux2014|manylinux_2_17)_$(uname -m)\""; then
  log "FAILED: auditwheel show does not report manylinux2014 for $(basename "$WHEEL")"; exit 1
fi
VERSION=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
CLI_VERSION=$(sed -n 's/.*"openai-codex-cli-bin==\([0-9.]*\);.*/\1/p' pyproject.toml)
source scripts/codex-versions.sh # CODEX_DEFAULT, CODEX_SMOKE
CODEX_REAL=$(readlink -f "${CODEX_BIN:-$ROOT/.cache/codex-$CODEX_DEFAULT}")
[ -x "$CODEX_REAL" ] || { log "the real Codex $CODEX_DEFAULT is missing: run scripts/setup.sh"; exit 1; }
timeout 120 cat "$CODEX_REAL" >/dev/null # resident before the first spawn (scripts/page-in-codex.sh says why)
# PATH without any directory holding cargo, rustc or codex.
NO_RUST_PATH=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -x "$d/cargo" ] || [ -x "$d/rustc" ] || [ -x "$d/codex" ] || NO_RUST_PATH="${NO_RUST_PATH:+$NO_RUST_PATH:}$d"
done
if PATH="$NO_RUST_PATH" command -v cargo >/dev/null; then log "FAILED: cargo still on PATH"; exit 1; fi
rm -rf "$PYCACHE/wheel-mock-home"
coproc MOCK { exec "$MOCK_MODEL" --codex-home "$PYCACHE/wheel-mock-home"; }
read -r -t 30 word port <&"${MOCK[0]}" && [ "$word" = PORT ] || { log "FAILED: mock model did not start"; exit 1; }
wheel_turn() { # $1 = venv, $2 = expected Codex version, $3 = codex_bin ("" = discovery)
  local run; run=$(mktemp -d "$PYCACHE/wheel-run.XXXXXX")
  mkdir -p "$run/home" "$run/work" && cp "$PYCACHE/wheel-mock-home/config.toml" "$run/home/"
  (cd "$run" && env -u CODEX_BIN -u VIRTUAL_ENV -u PYTHONPATH PATH="$NO_RUST_PATH" SMOKE_HOME="$run/home" \
     SMOKE_WORK="$run/work" SMOKE_CODEX="$3" SMOKE_VERSION="$2" "$1/bin/python" - <<'PY' >&2
import os, sys, codexclient
kw = dict(codex_home=os.environ["SMOKE_HOME"], cwd=os.environ["SMOKE_WORK"], default_timeout=60.0)
if os.environ["SMOKE_CODEX"]:
    kw["codex_bin"] = os.environ["SMOKE_CODEX"]
assert codexclient.__file__.startswith(sys.prefix), codexclient.__file__
c = codexclient.Client(**kw)
try:
    ua = c.connect().user_agent or ""
    assert "/" + os.environ["SMOKE_VERSION"] in ua, (ua, os.environ["SMOKE_VERSION"])
    r = c.thread_start().run("MOCK_TEXT: hello from the wheel")
    assert r.final_response == "hello from the wheel", r.final_response
finally:
    c.close()
print(f"wheel turn ok: codexclient {codexclient.__version__}, Python {sys.version.split()[0]}, {ua}")
PY
  ) && rm -rf "$run"
}
for v in 3.9 3.13; do
  venv="$PYCACHE/wheel-venv-$v"; rm -rf "$venv"
  py=$(find_python "$v") || { log "FAILED: Python $v not found (pyenv install $v)"; exit 1; }
  "$py" -m venv "$venv"
  t0=$(date +%s)
  PATH="$NO_RUST_PATH" "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
    --only-binary :all: "$WHEEL" >&2
  wheel_turn "$venv" "$CODEX_DEFAULT" "$CODEX_REAL" || { log "FAILED: Python $v: a real turn from the wheel"; exit 1; }
  log "Python $v: the wheel installed without cargo and ran a real turn ($(( $(date +%s) - t0 )) s)"
done
CLI_DIR="$PYCACHE/cli-bin-$CLI_VERSION"
if ! ls "$CLI_DIR"/openai_codex_cli_bin-*.whl >/dev/null 2>&1; then
  log "downloading openai-codex-cli-bin==$CLI_VERSION (PyPI, ~140 MB) into $CLI_DIR"
  "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps --only-binary :all: \
    -d "$CLI_DIR" "openai-codex-cli-bin==$CLI_VERSION" >&2
fi
t0=$(date +%s)
PATH="$NO_RUST_PATH" "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
  --only-binary :all: --find-links "$WHEELS" --find-links "$CLI_DIR" "codexclient[cli]==$VERSION" >&2
wheel_turn "$venv" "$CLI_VERSION" "" || { log "FAILED: codexclient[cli]: a real turn with the bundled Codex"; exit 1; }
log "Python 3.13: codexclient[cli] found the bundled Codex $CLI_VERSION and ran a real turn ($(( $(date +%s) - t0 )) s)"
mock_in=${MOCK[1]}; exec {mock_in}>&-; wait "$MOCK_PID" 2>/dev/null || true
rm -rf "$venv" "$PYCACHE/wheel-venv-3.9"
if [ -n "${CODEXCLIENT_PYTHON_WHEEL_ONLY:-}" ]; then log "wheel checks passed"; exit 0; fi

# The whole pytest suite runs on one interpreter (CODEXCLIENT_PYTHON_FULL, default the first of
# $VERSIONS); the others get the install of the wheel, stubtest, mypy and pyright (the typing
# checks, which depend on the interpreter's typeshed and version) and the smoke files: real
# turns sync and asyncio (approvals, cancellation, interrupts, concurrent turns: the asyncio and
# threading paths whose behaviour changes between CPython versions), connect bounds, client
# lifecycle and garbage collection of cycles, and the typed protocol's runtime classes. The
# rest of the suite exercises the core through the same extension calls (MCP, OAuth, faults,
# options), so its outcome does not depend on the interpreter. CODEXCLIENT_PYTHON_FULL=all
# runs the whole suite on every interpreter.
FULL="${CODEXCLIENT_PYTHON_FULL:-${VERSIONS%% *}}"
SMOKE=(test_real_codex.py test_connect.py test_lifecycle.py test_protocol_types.py)
failed=()
# The Ray of the `ray` extra (pyproject.toml), installed from PyPI into the venv that runs the
# whole suite: tests/python/test_ray.py starts a real three-node Ray cluster on the loopback
# with it (a missing Ray fails that test with the install command).
RAY_PIN=$(sed -n 's/^ray = \["\(ray==[0-9.]*\)"\]$/\1/p' pyproject.toml)
[ -n "$RAY_PIN" ] || { log "FAILED: no ray = [\"ray==X.Y.Z\"] extra in pyproject.toml"; exit 1; }
for v in $VERSIONS; do
  PY=$(venv_for "$v")
  if [ "$FULL" = all ] || [ "$FULL" = "$v" ]; then
    if ! "$PY" -c "import ray, sys; sys.exit(ray.__version__ != '${RAY_PIN#ray==}')" 2>/dev/null; then
      log "Python $v: installing $RAY_PIN (PyPI) for tests/python/test_ray.py"
      "$PY" -m pip install -q --disable-pip-version-check "$RAY_PIN" >&2
    fi
  fi
  "$PY" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$WHEEL" >&2
  log "Python $v: stubtest"
  # Run outside the source tree so the installed package (with its extension) is checked.
  if ! (cd "$PYCACHE" && "$PY" -m mypy.stubtest codexclient \
        --allowlist "$ROOT/tests/python/stubtest-allowlist.txt"); then failed+=("$v:stubtest"); fi
  # The typed protocol: examples and tests/python/typing_check.py (assert_type) against the
  # installed package, under both checkers.
  TYPED=("$ROOT"/examples/python/*.py "$ROOT/tests/python/typing_check.py")
  log "Python $v: mypy --strict on the installed package, examples/python, tests/python/typing_check.py"
  if ! (cd "$PYCACHE" && "$PY" -m mypy --strict --no-incremental -p codexclient \
        && "$PY" -m mypy --strict --no-incremental "${TYPED[@]}"); then
    failed+=("$v:mypy")
  fi
  log "Python $v: pyright (strict) examples/python tests/python/typing_check.py"
  if ! (cd "$PYCACHE" && "$PYRIGHT" -p "$ROOT/tests/python/pyrightconfig.json" --pythonpath "$PY" \
        --pythonversion "$v" "${TYPED[@]}"); then
    failed+=("$v:pyright")
  fi
  if [ "$FULL" = all ] || [ "$FULL" = "$v" ]; then
    # PYTEST_JOBS worker processes (pytest-xdist, default 2), each file on one worker
    # (--dist loadfile: a file's module fixtures, the Ray cluster among them, start once); most
    # of a test's time is a real Codex or MCP server answering.
    log "Python $v: pytest tests/python (the whole suite, ${PYTEST_JOBS:-2} workers)"
    tests=(-n "${PYTEST_JOBS:-2}" --dist loadfile "$ROOT/tests/python")
  else
    log "Python $v: pytest ${SMOKE[*]} (smoke; the whole suite runs on $FULL)"
    tests=("${SMOKE[@]/#/$ROOT/tests/python/}")
  fi
  # shellcheck disable=SC2086
  if ! "$PY" -m pytest -p no:cacheprovider "${tests[@]}" ${PYTEST_ARGS:-}; then
    failed+=("$v:pytest")
  fi
done

# The smoke set (tests marked `smoke`) on the other Codex versions (CODEX_SMOKE), on one
# interpreter: smoke only, never the full suite per version.
PY=$(venv_for "${VERSIONS%% *}")
for cv in $CODEX_SMOKE; do
  bash scripts/page-in-codex.sh "$cv" # resident before its first spawn (see the script)
  log "Codex $cv: pytest -m smoke tests/python"
  # shellcheck disable=SC2086
  if ! CODEX_VERSION=$cv CODEX_BIN="$ROOT/.cache/codex-$cv" "$PY" -m pytest -p no:cacheprovider \
       -m smoke "$ROOT/tests/python" ${PYTEST_ARGS:-}; then
    failed+=("codex-$cv:smoke")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
log "all Python checks passed on: $VERSIONS"
