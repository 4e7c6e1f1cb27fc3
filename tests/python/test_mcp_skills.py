"""Skills over MCP (SEP-2640) from Python, sync and asyncio, against the TypeScript SDK 2.4.0's
own skills extension (``testkit/sdk-servers/skills.mjs`` over stdio, serving a folder the test
writes): ``list_skills`` and ``load_skill`` (the core checks size, digest and frontmatter), and
a real Codex (the default, CODEX_DEFAULT) turn that uses a skill of that server (``skills=["pdf-tools@docs"]``),
loaded when the turn starts and handed to the local model as a block naming its server."""

from __future__ import annotations

import os
import pathlib
from typing import Any, Dict

import pytest

from codexclient import AsyncMcpClient, CodexClient, InvalidArgumentError, McpClient
from conftest import ROOT, mcp_everything
from helpers import run
from test_skills import model_requests

BODY = "MCP-SKILL-BODY-py-5c07: convert with pdftotext"


@pytest.fixture
def skills_server(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """MCP client options for skills.mjs serving a folder with the skill ``pdf-tools``."""
    d = tmp_path / "mcp-skills" / "pdf-tools"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: pdf-tools\ndescription: Work with PDF files\n---\n\n{BODY}\n")
    modules = pathlib.Path(os.environ.get("MCP_MODULES") or ROOT / ".cache" / "mcp-modules")
    if not modules.exists():
        pytest.fail(f"{modules} is missing: run `bash scripts/setup-mcp.sh`", pytrace=False)
    monkeypatch.setenv("MCP_MODULES", str(modules))
    node, _ = mcp_everything()
    script = str(ROOT / "testkit" / "sdk-servers" / "skills.mjs")
    return dict(command=[node, script, str(tmp_path / "mcp-skills")], default_timeout=30)


def test_sync_list_load_and_a_codex_turn(skills_server: Dict[str, Any], client_kwargs: dict, mock_port: int) -> None:
    with McpClient(**skills_server) as mcp:
        entries = mcp.list_skills()
        assert [e["uri"] for e in entries] == ["skill://pdf-tools/SKILL.md"]
        assert entries[0]["resources"][0]["digest"].startswith("sha256:")
        skill = mcp.load_skill("pdf-tools")
        assert skill["body"].startswith(BODY)
        assert skill["entry"]["frontmatter"]["description"] == "Work with PDF files"
        with pytest.raises(InvalidArgumentError, match="pdf-tools"):
            mcp.load_skill("nope")
        with CodexClient(**client_kwargs, skill_emulation="when_needed") as codex:
            with pytest.raises(InvalidArgumentError):
                codex.add_skill_source("a b", mcp)
            codex.add_skill_source("docs", mcp)
            r = codex.thread_start().run("MOCK_TEXT: py-mcp-skill", skills=["pdf-tools@docs"])
            assert r.completed
            assert r.emulated_skills == [
                {"name": "pdf-tools", "description": "Work with PDF files",
                 "path": "skill://pdf-tools/SKILL.md", "server": "docs"}
            ]
            assert codex.remove_skill_source("docs") and not codex.remove_skill_source("docs")
    sent = model_requests(mock_port, "py-mcp-skill")[0]
    assert BODY in sent
    assert 'server=\\"docs\\"' in sent


def test_async_list_and_load(skills_server: Dict[str, Any]) -> None:
    async def main() -> None:
        async with AsyncMcpClient(**skills_server) as mcp:
            entries = await mcp.list_skills()
            assert entries[0]["frontmatter"]["name"] == "pdf-tools"
            skill = await mcp.load_skill("skill://pdf-tools/SKILL.md")
            assert BODY in skill["text"]

    run(main())
