"""Fixtures: the real Codex (``CODEX_VERSION``, else ``CODEX_DEFAULT`` of
``scripts/codex-versions.sh``), the project's local mock model and the fake app-server. Tests
marked ``smoke`` also run on each version of ``CODEX_SMOKE`` (``scripts/test-python.sh`` loops
``pytest -m smoke`` with ``CODEX_VERSION`` and ``CODEX_BIN``).

A missing Codex binary FAILS the tests with install instructions; nothing is skipped.
"""

from __future__ import annotations

import fcntl
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from typing import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _versions_file_value(name: str) -> str:
    """A value of ``scripts/codex-versions.sh`` (``NAME="..."``): the one place the Codex
    versions the tests use live."""
    for line in (ROOT / "scripts" / "codex-versions.sh").read_text().splitlines():
        if line.startswith(name + "="):
            return line.split("=", 1)[1].strip().strip('"')
    raise AssertionError(f"no {name}= in scripts/codex-versions.sh")


CODEX_VERSION = os.environ.get("CODEX_VERSION") or _versions_file_value("CODEX_DEFAULT")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "smoke: the smoke set, also run on every Codex version of CODEX_SMOKE"
    )

CONFIG_TEMPLATE = """model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
supports_websockets = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
in_app_updates = false
shell_snapshot = false
"""


def mcp_everything() -> "tuple[str, str]":
    """Node and the MCP everything server's entry script: ``MCP_NODE`` / ``MCP_EVERYTHING``,
    else the ``.cache/mcp-node`` / ``.cache/mcp-everything`` links of ``scripts/setup-mcp.sh``.
    A missing one FAILS the test with the install instruction."""
    found = []
    for var, link in (("MCP_NODE", "mcp-node"), ("MCP_EVERYTHING", "mcp-everything")):
        path = pathlib.Path(os.environ.get(var) or ROOT / ".cache" / link)
        if not path.exists():
            pytest.fail(
                f"{path} is missing: run `bash scripts/setup-mcp.sh` (installs Node 22 and "
                f"@modelcontextprotocol/server-everything from the npm registry) or set {var}",
                pytrace=False,
            )
        found.append(str(path))
    return found[0], found[1]


def _target_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")


_built = False


def _testkit_bin(name: str, env_var: str) -> str:
    """A testkit binary: ``$env_var`` or built with cargo (once per session)."""
    global _built
    given = os.environ.get(env_var)
    if given:
        return given
    if not _built:
        r = subprocess.run(
            ["cargo", "build", "--quiet", "-p", "codex-mock-model", "-p", "codex-fake-app-server", "--bins"],
            cwd=ROOT,
        )
        assert r.returncode == 0, "cargo build of the testkit binaries failed"
        _built = True
    path = _target_dir() / "debug" / name
    assert path.exists(), f"{path} missing after cargo build"
    return str(path)


@pytest.fixture(scope="session")
def codex_bin() -> str:
    """The real codex binary of ``CODEX_VERSION`` (CODEX_BIN, else ./.cache/codex-<version>)."""
    given = os.environ.get("CODEX_BIN")
    path = pathlib.Path(given) if given else ROOT / ".cache" / f"codex-{CODEX_VERSION}"
    if not path.exists():
        pytest.fail(
            f"the real Codex {CODEX_VERSION} is not installed at {path}: run `scripts/setup.sh` "
            f"(installs @openai/codex@{CODEX_VERSION} from the npm registry) or set CODEX_BIN "
            f"to a codex {CODEX_VERSION} binary",
            pytrace=False,
        )
    return str(path)


@pytest.fixture(scope="session")
def codex_092_bin() -> str:
    """The real codex 0.92.0 binary (CODEX_092_BIN, else ./.cache/codex-0.92.0)."""
    given = os.environ.get("CODEX_092_BIN")
    path = pathlib.Path(given) if given else ROOT / ".cache" / "codex-0.92.0"
    if not path.exists():
        pytest.fail(
            f"the real Codex 0.92.0 is not installed at {path}: run `scripts/setup.sh` "
            "(installs @openai/codex@0.92.0 from the npm registry) or set CODEX_092_BIN",
            pytrace=False,
        )
    return str(path)


@pytest.fixture(scope="session")
def fake_bin() -> str:
    """The fake app-server (fault injection)."""
    return _testkit_bin("fake-app-server", "FAKE_APP_SERVER")


@pytest.fixture(scope="session")
def mock_port() -> Iterator[int]:
    """A running mock model (stdin piped: it exits when we close it or die)."""
    exe = _testkit_bin("mock-model", "MOCK_MODEL")
    p = subprocess.Popen([exe, "--port", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdout is not None and p.stdin is not None
    line = p.stdout.readline().decode()
    assert line.startswith("PORT "), f"mock-model printed {line!r}"
    try:
        yield int(line.split()[1])
    finally:
        p.stdin.close()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


# Codex's ChatGPT browser login listens on the fixed port 1455 of the machine, and a second
# login started meanwhile cancels the first (it asks the running login server to stop):
# measured with two `codex login` at once. Tests that start one take this lock, machine-wide
# (pytest-xdist workers, and tests/c beside them; scripts/test-c.sh takes the same file).
CHATGPT_LOGIN_LOCK = pathlib.Path(tempfile.gettempdir()) / "codexclient-test-chatgpt-login.lock"


@pytest.fixture
def chatgpt_login_lock() -> Iterator[None]:
    """Hold the machine's ChatGPT-login lock for the test (waits at most 300 s for it)."""
    with open(CHATGPT_LOGIN_LOCK, "a") as f:
        deadline = time.monotonic() + 300
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{CHATGPT_LOGIN_LOCK} held by another test for 300 s")
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@pytest.fixture
def codex_home(tmp_path: pathlib.Path, mock_port: int) -> pathlib.Path:
    """A throwaway CODEX_HOME wired to the mock model (and nothing off this machine)."""
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(CONFIG_TEMPLATE.format(port=mock_port))
    return home


@pytest.fixture
def workdir(tmp_path: pathlib.Path) -> pathlib.Path:
    """A working directory for the server and its commands."""
    d = tmp_path / "work"
    d.mkdir()
    return d


@pytest.fixture
def client_kwargs(codex_bin: str, codex_home: pathlib.Path, workdir: pathlib.Path) -> dict:
    """Options of a client of the real Codex with the mock model."""
    return dict(
        codex_bin=codex_bin,
        codex_home=codex_home,
        cwd=workdir,
        client_name="codexclient-pytest",
        default_timeout=60.0,
        # On the CI machine a real Codex took 30-31 s to answer `initialize` in IO stalls
        # (tests/c/test_util.h's TEST_CONNECT_TIMEOUT_MS says more); start-up latency is not
        # what these tests test.
        connect_timeout=120.0,
    )


def pytest_report_header(config: pytest.Config) -> str:
    import codexclient

    return f"codexclient {codexclient.__version__} from {codexclient.__file__} on Python {sys.version.split()[0]}"
