"""The compatibility report from Python: ``codexclient._native.compat_report`` and
``python -m codexclient compat`` against the real Codex of the library's schema version (no
differences, inside the supported window), the default Codex and 0.92.0 (older than the window)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict, List

import pytest

from codexclient import TransportError, _native, protocol
from codexclient.__main__ import main
from conftest import CODEX_VERSION, ROOT

SCHEMA_CODEX = str(ROOT / ".cache" / f"codex-{protocol.SCHEMA_VERSION}")


def _find(differences: List[Dict[str, Any]], section: str, name: str, member: Any = None) -> Dict[str, Any]:
    for d in differences:
        if d["section"] == section and d["name"] == name and d["member"] == member:
            return d
    raise AssertionError(f"no {section} {name} {member} in the report")


def test_compat_report_same_version() -> None:
    text, json_text, identical = _native.compat_report(SCHEMA_CODEX)
    assert identical
    assert "No differences" in text
    assert f"this Codex is inside it: window version {protocol.SCHEMA_VERSION}" in text
    report = json.loads(json_text)
    assert report["identical"] is True
    assert report["codex_version"] == protocol.SCHEMA_VERSION
    assert report["experimental_compared"] is True
    assert report["window_position"] == "inside" and report["window_match"] == protocol.SCHEMA_VERSION
    assert "0.163.0" in report["window"]


def test_compat_report_places_the_default_codex_in_the_window(codex_bin: str) -> None:
    text, json_text, _ = _native.compat_report(codex_bin)
    report = json.loads(json_text)
    assert report["window_position"] == "inside" and report["window_match"] == CODEX_VERSION
    assert f"window version {CODEX_VERSION}" in text


def test_compat_report_0_92_0(codex_092_bin: str) -> None:
    text, json_text, identical = _native.compat_report(codex_092_bin)
    assert not identical
    assert text.startswith("Codex 0.92.0 (")
    assert "this Codex 0.92.0 is OLDER than the window" in text
    report = json.loads(json_text)
    diffs = report["differences"]
    steer = _find(diffs, "client_method", "turn/steer")
    assert (steer["change"], steer["verdict"]) == ("removed", "refused")
    assert "steer helper fails" in steer["detail"]
    compact = _find(diffs, "client_method", "thread/compact/start")
    assert compact["verdict"] == "refused"
    added = _find(diffs, "server_notification", "sessionConfigured")
    assert (added["change"], added["verdict"]) == ("added", "kept_raw")
    variant = _find(diffs, "union_variant", "AskForApproval", "on-failure")
    assert variant["verdict"] == "kept_raw"
    assert report["counts"]["refused"] == sum(d["verdict"] == "refused" for d in diffs)


def test_compat_report_missing_binary() -> None:
    with pytest.raises(TransportError, match="npm install -g @openai/codex"):
        _native.compat_report("/nonexistent/codex")


def test_compat_command(codex_092_bin: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compat", "--codex", SCHEMA_CODEX]) == 0
    assert "No differences" in capsys.readouterr().out
    assert main(["compat", "--codex", codex_092_bin, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["window_position"] == "older"
    assert _find(report["differences"], "client_method", "fs/readFile")["verdict"] == "refused"
    assert main(["compat", "--codex", "/nonexistent/codex"]) == 2
    assert "npm install" in capsys.readouterr().err


def test_compat_python_dash_m(codex_092_bin: str) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "codexclient", "compat", "--codex", codex_092_bin],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    assert "removed  thread/compact/start" in r.stdout
