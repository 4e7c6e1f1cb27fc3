"""The compatibility report from Python: ``codexclient._native.compat_report`` and
``python -m codexclient compat`` against the real Codex 0.169.0 (no differences) and 0.92.0."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Dict, List

import pytest

from codexclient import TransportError, _native
from codexclient.__main__ import main


def _find(differences: List[Dict[str, Any]], section: str, name: str, member: Any = None) -> Dict[str, Any]:
    for d in differences:
        if d["section"] == section and d["name"] == name and d["member"] == member:
            return d
    raise AssertionError(f"no {section} {name} {member} in the report")


def test_compat_report_same_version(codex_bin: str) -> None:
    text, json_text, identical = _native.compat_report(codex_bin)
    assert identical
    assert "No differences" in text
    report = json.loads(json_text)
    assert report["identical"] is True
    assert report["codex_version"] == "0.169.0"
    assert report["experimental_compared"] is True


def test_compat_report_0_92_0(codex_092_bin: str) -> None:
    text, json_text, identical = _native.compat_report(codex_092_bin)
    assert not identical
    assert text.startswith("Codex 0.92.0 (")
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


def test_compat_command(codex_bin: str, codex_092_bin: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compat", "--codex", codex_bin]) == 0
    assert "No differences" in capsys.readouterr().out
    assert main(["compat", "--codex", codex_092_bin, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
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
