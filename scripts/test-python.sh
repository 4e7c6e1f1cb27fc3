#!/usr/bin/env bash
# Python binding checks: builds the codexclient extension (one abi3 wheel, CPython 3.9+) and,
# on CPython 3.11, 3.12 and 3.13, runs mypy's stubtest on the installed package, `mypy --strict`
# and `pyright` (strict) on examples/python and tests/python/typing_check.py (the typed
# protocol's assert_type checks), and the pytest suite in tests/python (real codex app-server
# 0.169.0 + the local mock model + the fake app-server). Exits non-zero on any failure.
#
# Idempotent and cached: venvs under ~/.cache/libcodexclient/python/ (tools from PyPI once),
# cargo target dir $CARGO_TARGET_DIR (default ~/.cache/libcodexclient/target-py) so re-runs
# are incremental. pyright (pinned, $PYRIGHT_VERSION) comes from the npm registry, installed
# once under the same cache with the machine's npm/node. `pip install .` is exercised on 3.11; the same wheel is installed on 3.12
# and 3.13. Needs the real Codex installed by scripts/setup.sh (or CODEX_BIN); without it the
# tests fail with instructions.
#
# Env: CODEXCLIENT_PYTHON_VERSIONS (default "3.11 3.12 3.13"), PYTEST_ARGS (extra pytest args).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE="${LIBCODEXCLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libcodexclient}"
PYCACHE="$CACHE/python"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target-py}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
VERSIONS="${CODEXCLIENT_PYTHON_VERSIONS:-3.11 3.12 3.13}"
TOOLS="maturin>=1.7,<2 pytest>=7 mypy>=1.18"
PYRIGHT_VERSION=1.1.414
mkdir -p "$PYCACHE"

log() { printf '[test-python] %s\n' "$*" >&2; }

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
PYRIGHT=$(pyright_bin)

find_python() { # $1 = X.Y; prints an interpreter path
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
cargo build --quiet -p codex-mock-model -p codex-fake-app-server --bins
export MOCK_MODEL="$CARGO_TARGET_DIR/debug/mock-model"
export FAKE_APP_SERVER="$CARGO_TARGET_DIR/debug/fake-app-server"

first=""
for v in $VERSIONS; do first="$v"; break; done
PY_FIRST=$(venv_for "$first")

log "pip install . (Python $first; maturin release build, cargo target $CARGO_TARGET_DIR)"
t0=$(date +%s)
# The maturin build backend runs the `maturin` executable found on PATH.
export PATH="$(dirname "$PY_FIRST"):$PATH"
"$PY_FIRST" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps \
  --force-reinstall "$ROOT" >&2
WHEELS="$PYCACHE/wheels"
rm -rf "$WHEELS" && mkdir -p "$WHEELS"
# The distributable wheel, with its manylinux tag (pip's build keeps the local linux tag).
(cd "$ROOT" && "$(dirname "$PY_FIRST")/maturin" build --release -q -o "$WHEELS" >&2)
WHEEL=$(ls "$WHEELS"/codexclient-*-cp39-abi3-*.whl)
log "built $(basename "$WHEEL") in $(( $(date +%s) - t0 )) s"

# The artefacts a user gets: a manylinux wheel of at most 5 MB (release profile without debug
# info, stripped), an sdist, and the wheel working in a fresh venv.
wheel_bytes=$(stat -c %s "$WHEEL")
log "wheel: $(basename "$WHEEL"), $((wheel_bytes / 1024)) KiB"
case "$(basename "$WHEEL")" in
  *-manylinux_2_*_x86_64.whl|*-manylinux_2_*_aarch64.whl) ;;
  *) log "FAILED: the wheel has no manylinux platform tag: $(basename "$WHEEL")"; exit 1 ;;
esac
[ "$wheel_bytes" -le $((5 * 1024 * 1024)) ] || { log "FAILED: the wheel is over 5 MB"; exit 1; }
"$(dirname "$PY_FIRST")/maturin" sdist -o "$WHEELS" >&2
SDIST=$(ls "$WHEELS"/codexclient-*.tar.gz)
log "sdist: $(basename "$SDIST"), $(( $(stat -c %s "$SDIST") / 1024 )) KiB"
SMOKE="$PYCACHE/smoke-venv"
rm -rf "$SMOKE"
"$PY_FIRST" -m venv "$SMOKE"
"$SMOKE/bin/python" -m pip install -q --disable-pip-version-check --no-deps "$WHEEL" >&2
cargo build -q -p codex-fake-app-server
FAKE_BIN="$CARGO_TARGET_DIR/debug/fake-app-server" "$SMOKE/bin/python" - <<'PY' >&2
import os, codexclient
with codexclient.Client(codex_bin=os.environ["FAKE_BIN"]) as c:
    assert c.request("smoke/test", {"a": 1}) == {"method": "smoke/test", "params": {"a": 1}}
print("wheel smoke test: codexclient", codexclient.__version__, "from", codexclient.__file__)
PY

failed=()
for v in $VERSIONS; do
  PY=$(venv_for "$v")
  if [ "$v" != "$first" ]; then
    "$PY" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$WHEEL" >&2
  fi
  log "Python $v: stubtest"
  # Run outside the source tree so the installed package (with its extension) is checked.
  if ! (cd "$PYCACHE" && "$PY" -m mypy.stubtest codexclient \
        --allowlist "$ROOT/tests/python/stubtest-allowlist.txt"); then failed+=("$v:stubtest"); fi
  # The typed protocol: examples and tests/python/typing_check.py (assert_type) against the
  # installed package, under both checkers.
  TYPED=("$ROOT"/examples/python/*.py "$ROOT/tests/python/typing_check.py")
  log "Python $v: mypy --strict examples/python tests/python/typing_check.py"
  if ! (cd "$PYCACHE" && "$PY" -m mypy --strict --no-incremental "${TYPED[@]}"); then
    failed+=("$v:mypy")
  fi
  log "Python $v: pyright (strict) examples/python tests/python/typing_check.py"
  if ! (cd "$PYCACHE" && "$PYRIGHT" -p "$ROOT/tests/python/pyrightconfig.json" --pythonpath "$PY" \
        --pythonversion "$v" "${TYPED[@]}"); then
    failed+=("$v:pyright")
  fi
  log "Python $v: pytest tests/python"
  # shellcheck disable=SC2086
  if ! "$PY" -m pytest -p no:cacheprovider "$ROOT/tests/python" ${PYTEST_ARGS:-}; then
    failed+=("$v:pytest")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  log "FAILED: ${failed[*]}"
  exit 1
fi
log "all Python checks passed on: $VERSIONS"
