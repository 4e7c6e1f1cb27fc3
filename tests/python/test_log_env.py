"""``CODEXCLIENT_LOG`` reaches Python's ``logging``: the core forwards from the level it names
and the ``codexclient`` logger is set to it (a fresh interpreter per value: the variable is
read at import). Against the real Codex (the default, CODEX_DEFAULT) and the mock model."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import logging, sys, codexclient
logging.basicConfig(stream=sys.stdout, format="%(name)s %(levelname)s %(message)s")
print("LOGGER-LEVEL", logging.getLogger("codexclient").level, flush=True)
with codexclient.Client(**{k: v for k, v in eval(sys.argv[1]).items()}) as c:
    c.config_read()
"""


def _run(level: str, client_kwargs: dict) -> str:
    env = dict(os.environ, CODEXCLIENT_LOG=level)
    kw = {k: str(v) if not isinstance(v, (int, float)) else v for k, v in client_kwargs.items()}
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT, repr(kw)], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_trace_logs_every_raw_line(client_kwargs: dict) -> None:
    out = _run("trace", client_kwargs)
    assert "LOGGER-LEVEL 5" in out, out
    # The raw lines in and out, at TRACE (level 5, "Level 5" in logging's words).
    assert '"method":"initialize"' in out, out
    assert '"method":"config/read"' in out, out


def test_warn_keeps_debug_and_trace_out(client_kwargs: dict) -> None:
    out = _run("warn", client_kwargs)
    assert "LOGGER-LEVEL 30" in out, out
    assert '"method":"initialize"' not in out and "DEBUG" not in out, out
