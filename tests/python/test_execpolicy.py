"""The exec-policy amendment answer of a command approval, end to end against the real Codex and
the mock model (``MOCK_EXEC:`` asks for approval): a handler's
``{"acceptWithExecpolicyAmendment": {"execpolicy_amendment": prefix}}`` runs the command, Codex
writes the rule into ``CODEX_HOME/rules`` and does not ask again for a command the rule covers
(it still asks for one it does not cover); the same answer given later through ``req.answer``
and from an ``async def`` handler on the asyncio client; a wrongly worded amendment (the
camelCase inner key Codex rejects) is declined by the core and nothing runs."""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any, List

import codexclient
from codexclient import AsyncClient, Client, ServerRequest
from helpers import run

# Codex's rule for the prefix ["touch"] (its rules file, one `prefix_rule` per line).
TOUCH_RULE = 'prefix_rule(pattern=["touch"], decision="allow")'


def _amend(prefix: List[str]) -> Any:
    return {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": prefix}}


def _rules(codex_home: pathlib.Path) -> str:
    """Every rules file Codex keeps under CODEX_HOME/rules, concatenated."""
    d = codex_home / "rules"
    return "".join(p.read_text() for p in sorted(d.iterdir())) if d.is_dir() else ""


def _command_status(r: codexclient.TurnResult) -> str:
    cmds = [i for i in r.items if i["type"] == "commandExecution"]
    assert len(cmds) == 1, r.items
    return str(cmds[0]["status"])


def test_amendment_rule_spares_the_next_approval_sync(
    client_kwargs: dict, workdir: pathlib.Path, codex_home: pathlib.Path
) -> None:
    first, second = workdir / "amended-1.txt", workdir / "amended-2.txt"
    uncovered, proposed = workdir / "not-covered", workdir / "proposed"
    asked: List[ServerRequest] = []
    with Client(**client_kwargs) as c:
        answers: List[Any] = [_amend(["touch"])]

        def decide(req: ServerRequest) -> Any:
            asked.append(req)
            return answers.pop(0)

        c.on_command_approval(decide)
        thread = c.thread_start()

        # Turn 1: approved with the rule "touch ...": the command runs, the rule is written.
        r = thread.run(f"MOCK_EXEC: touch {first}")
        assert len(asked) == 1 and not asked[0].is_open
        assert isinstance(asked[0].params["proposedExecpolicyAmendment"], list)
        assert r.status == "completed" and _command_status(r) == "completed"
        assert first.exists(), "the approved command did not run"
        assert TOUCH_RULE in _rules(codex_home)

        # Turn 2: the rule covers `touch`: Codex does not ask, the command runs.
        r = thread.run(f"MOCK_EXEC: touch {second}")
        assert len(asked) == 1, f"asked again: {asked[-1].params}"
        assert r.status == "completed" and _command_status(r) == "completed"
        assert second.exists()

        # Turn 3: a command the rule does not cover is asked about; the amendment worded with
        # the camelCase inner key (which Codex rejects) is not sent: the core declines.
        answers.append({"acceptWithExecpolicyAmendment": {"execpolicyAmendment": ["mkdir"]}})
        r = thread.run(f"MOCK_EXEC: mkdir {uncovered}")
        assert len(asked) == 2
        assert _command_status(r) == "declined"
        assert not uncovered.exists()
        assert '"mkdir"' not in _rules(codex_home)

        # Turn 4: the handler answers later itself (returns None), through req.answer with the
        # amendment Codex proposed.
        def defer(req: ServerRequest) -> None:
            asked.append(req)
            req.answer(_amend(req.params["proposedExecpolicyAmendment"]))

        c.on_command_approval(defer)
        r = thread.run(f"MOCK_EXEC: mkdir {proposed}")
        assert len(asked) == 3
        assert asked[2].params["proposedExecpolicyAmendment"][0] == "mkdir"
        assert r.status == "completed" and proposed.exists()
        rules = _rules(codex_home)
        assert f'prefix_rule(pattern=["mkdir", "{proposed}"], decision="allow")' in rules
        assert TOUCH_RULE in rules


def test_amendment_from_an_async_handler(
    client_kwargs: dict, workdir: pathlib.Path, codex_home: pathlib.Path
) -> None:
    first, second = workdir / "async-1.txt", workdir / "async-2.txt"
    asked: List[str] = []

    async def main() -> None:
        async with AsyncClient(**client_kwargs) as c:

            async def decide(req: ServerRequest) -> Any:
                asked.append(req.params["command"])
                await asyncio.sleep(0)
                return _amend(["touch"])

            c.on_command_approval(decide)
            thread = await c.thread_start()
            r = await thread.run(f"MOCK_EXEC: touch {first}")
            assert r.status == "completed" and first.exists()
            r = await thread.run(f"MOCK_EXEC: touch {second}")
            assert r.status == "completed" and second.exists()

    run(main())
    assert len(asked) == 1 and str(first) in asked[0], asked
    assert TOUCH_RULE in _rules(codex_home)
