"""Skills for a turn (``skills=[...]``) against the real Codex with the local mock model: native
on the app-server (0.169.0), emulated on the exec transport (a labelled ``<skill>`` block
reported in ``result.emulated_skills``); bad skills raise before anything is sent."""

from __future__ import annotations

import json
import pathlib
import urllib.request
from typing import List

import pytest

from codexclient import AsyncClient, Client, InvalidArgumentError
from helpers import run

HAIKU_BODY = "SKILL-BODY-py-4b1e: answer in haiku"
LINT_BODY = "SKILL-BODY-py-a90d: run the linter first"


def write_skill(folder: pathlib.Path, name: str, description: str, body: str) -> pathlib.Path:
    d = folder / name
    d.mkdir(parents=True)
    path = d / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n")
    return path


@pytest.fixture
def skills(codex_home: pathlib.Path, workdir: pathlib.Path) -> "tuple[pathlib.Path, pathlib.Path]":
    """A user skill ``haiku`` and a project skill ``lint-fix``."""
    user = write_skill(codex_home / "skills", "haiku", "Answer in haiku", HAIKU_BODY)
    project = write_skill(workdir / ".codex" / "skills", "lint-fix", "Fix lint warnings", LINT_BODY)
    return user, project


@pytest.fixture
def exec_kwargs(client_kwargs: dict) -> dict:
    return dict(client_kwargs, transport="exec", args=["--skip-git-repo-check"], skill_emulation="when_needed")


def model_requests(port: int, marker: str) -> List[str]:
    """The local model's requests (as JSON text) whose input holds ``marker``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_mock/requests", timeout=10) as r:
        reqs = json.load(r)
    return [t for t in (json.dumps(q["input"]) for q in reqs) if marker in t]


def test_sync_app_server_sends_skills_natively(client_kwargs: dict, skills: tuple, mock_port: int) -> None:
    with Client(**client_kwargs) as c:
        thread = c.thread_start()
        r = thread.run("MOCK_TEXT: py-native-1", skills=["haiku", skills[1].parent])
        # (Codex appends native skills after the user's message: the local model answers
        # its default text, not the directive.)
        assert r.completed
        assert r.emulated_skills == []
    sent = model_requests(mock_port, "py-native-1")[0]
    assert HAIKU_BODY in sent and LINT_BODY in sent
    assert "emulated=" not in sent


def test_async_exec_emulates_skills(exec_kwargs: dict, skills: tuple, mock_port: int) -> None:
    async def main() -> None:
        async with AsyncClient(**exec_kwargs) as c:
            thread = await c.thread_start()
            r = await thread.run("MOCK_TEXT: py-exec-1", skills=["haiku", skills[1]])
            assert r.completed and r.final_response == "py-exec-1"
            assert [s["name"] for s in r.emulated_skills] == ["haiku", "lint-fix"]
            assert r.emulated_skills[1]["description"] == "Fix lint warnings"
            assert pathlib.Path(r.emulated_skills[1]["path"]).resolve() == skills[1].resolve()
            turn = await thread.run_streamed("MOCK_TEXT: py-exec-2", skills=["lint-fix"])
            async for _ in turn:
                pass
            streamed = await turn.result()
            assert [s["name"] for s in streamed.emulated_skills] == ["lint-fix"]

    run(main())
    sent = model_requests(mock_port, "py-exec-1")[0]
    assert HAIKU_BODY in sent and LINT_BODY in sent
    assert '<skill name=\\"haiku\\" path=\\"' in sent and 'emulated=\\"true\\"' in sent
    # The second turn's request repeats the first turn (history): look at its last message.
    last = json.loads(model_requests(mock_port, "py-exec-2")[-1])
    assert LINT_BODY in json.dumps(last[-1]) and HAIKU_BODY not in json.dumps(last[-1])


def test_sync_exec_streamed_and_bad_skills_raise_before_sending(
    exec_kwargs: dict, skills: tuple, workdir: pathlib.Path, mock_port: int
) -> None:
    with Client(**exec_kwargs) as c:
        thread = c.thread_start()
        turn = thread.run_streamed("MOCK_TEXT: py-exec-3", skills=["haiku"])
        r = turn.result()
        assert [s["name"] for s in r.emulated_skills] == ["haiku"]
        with pytest.raises(InvalidArgumentError, match=r'unknown skill "nope"; available skills: .*haiku, .*lint-fix'):
            thread.run("MOCK_TEXT: py-never-1", skills=["nope"])
        with pytest.raises(InvalidArgumentError, match="cannot read skill"):
            thread.run("MOCK_TEXT: py-never-2", skills=[workdir / "missing" / "SKILL.md"])
        (workdir / "empty").mkdir()
        with pytest.raises(InvalidArgumentError, match="has no SKILL.md"):
            thread.run("MOCK_TEXT: py-never-3", skills=[workdir / "empty"])
        with pytest.raises(InvalidArgumentError, match="list of names or paths"):
            thread.run("MOCK_TEXT: py-never-4", skills="haiku")  # type: ignore[arg-type]
        assert thread.run("MOCK_TEXT: py-exec-4").final_response == "py-exec-4"
    assert len(model_requests(mock_port, "py-exec-3")) >= 1
    assert model_requests(mock_port, "py-never-") == []


def test_async_app_server_unknown_skill_raises(client_kwargs: dict, skills: tuple, mock_port: int) -> None:
    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:
            thread = await c.thread_start()
            with pytest.raises(InvalidArgumentError, match="available skills: .*haiku"):
                await thread.run("MOCK_TEXT: py-never-5", skills=["nope"])

    run(main())
    assert model_requests(mock_port, "py-never-5") == []


def test_skill_emulation_never_refuses_and_always_emulates(
    client_kwargs: dict, exec_kwargs: dict, skills: tuple, mock_port: int
) -> None:
    with Client(**dict(exec_kwargs, skill_emulation=None)) as c:  # the default: "never"
        with pytest.raises(InvalidArgumentError, match="skill_emulation"):
            c.thread_start().run("MOCK_TEXT: py-never-6", skills=["haiku"])
    assert model_requests(mock_port, "py-never-6") == []
    with Client(**client_kwargs, skill_emulation="always") as c:
        r = c.thread_start().run("MOCK_TEXT: py-always-1", skills=["haiku"])
        assert [s["name"] for s in r.emulated_skills] == ["haiku"]
    assert 'emulated=\\"true\\"' in model_requests(mock_port, "py-always-1")[0]
    with pytest.raises(InvalidArgumentError, match="skill_emulation"):
        Client(**client_kwargs, skill_emulation="sometimes")
