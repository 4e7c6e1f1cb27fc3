"""codexclient.protocol (generated) at run time: it imports, its TypedDicts have the schema's
required keys, its tables agree with each other and with the request() overloads, the typed
events are generic aliases of the native classes, and what the real codex app-server (the default, CODEX_DEFAULT)
sends conforms to the generated types."""

from __future__ import annotations

import sys
import typing
from typing import Any, Dict, List, Union

import pytest

import codexclient
from codexclient import AsyncClient, Client, protocol as p
from codexclient import _requests
from codexclient._requests import AsyncRequests, SyncRequests
from helpers import run

_TD = getattr(typing, "_TypedDictMeta")


def conforms(value: Any, tp: Any, path: str = "$") -> List[str]:
    """Where ``value`` does not fit type ``tp`` (empty: it fits)."""
    if isinstance(tp, typing.ForwardRef):
        tp = eval(tp.__forward_arg__, vars(p))
    if isinstance(tp, str):
        tp = eval(tp, vars(p))
    if tp is Any:
        return []
    if isinstance(tp, _TD):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} is no {tp.__name__}"]
        errors = [f"{path}: {tp.__name__} lacks {k!r}" for k in sorted(tp.__required_keys__ - value.keys())]
        hints = {}
        for klass in reversed(tp.__mro__):
            hints.update(getattr(klass, "__annotations__", {}))
        for k, v in value.items():
            if k in hints:
                errors += conforms(v, hints[k], f"{path}.{k}")
        return errors
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Union:
        tries = [conforms(value, a, path) for a in args]
        return [] if any(not t for t in tries) else min(tries, key=len)
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} not in {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__} is no list"]
        return [e for i, v in enumerate(value) for e in conforms(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} is no dict"]
        return [e for k, v in value.items() for e in conforms(v, args[1], f"{path}.{k}")]
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r} is not None"]
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, tp)
    return [] if ok else [f"{path}: {value!r} is no {getattr(tp, '__name__', tp)}"]


def test_typeddicts_have_the_schema_required_keys() -> None:
    assert p.AgentMessageDeltaNotification.__required_keys__ == {"delta", "itemId", "threadId", "turnId"}
    assert p.TextUserInput.__required_keys__ == {"type", "text"}
    assert p.TextUserInput.__optional_keys__ == {"text_elements"}
    assert "model" in p.ThreadStartParams.__optional_keys__
    assert not p.ThreadStartParams.__required_keys__
    # keys that are no identifiers (functional form)
    assert "$schema" in p.McpElicitationSchema.__optional_keys__ | p.McpElicitationSchema.__required_keys__


def test_tagged_unions_narrow_on_distinct_tags() -> None:
    tags = [typing.get_args(m.__annotations__["type"])[0] for m in typing.get_args(p.ThreadItem)]
    assert "agentMessage" in tags and "commandExecution" in tags
    assert len(tags) == len(set(tags))
    assert conforms({"type": "agentMessage", "id": "i", "text": "hi"}, p.ThreadItem) == []
    assert conforms({"type": "agentMessage", "id": "i"}, p.ThreadItem) != []
    assert conforms({"type": "noSuchItem", "id": "i"}, p.ThreadItem) != []


def test_method_tables_and_request_overloads_agree() -> None:
    methods = set(typing.get_args(p.ClientRequestMethod))
    assert methods == set(p.CLIENT_REQUESTS) and "thread/start" in methods
    assert p.CLIENT_REQUESTS["thread/start"] == (p.ThreadStartParams, p.ThreadStartResponse)
    assert set(typing.get_args(p.ServerNotificationMethod)) == set(p.SERVER_NOTIFICATIONS)
    assert p.SERVER_REQUESTS["item/commandExecution/requestApproval"] == (
        p.CommandExecutionRequestApprovalParams, p.CommandExecutionRequestApprovalResponse)
    assert issubclass(Client, SyncRequests) and issubclass(AsyncClient, AsyncRequests)
    if sys.version_info >= (3, 11):
        for cls in (SyncRequests, AsyncRequests):
            overloads = typing.get_overloads(cls.request)
            names = dict(vars(_requests), p=p)
            literals = [typing.get_type_hints(o, names)["method"] for o in overloads]
            keyed = {typing.get_args(lit)[0] for lit in literals if typing.get_origin(lit) is typing.Literal}
            assert keyed == methods and len(overloads) == len(methods) + 1


def test_typed_events_are_generic_aliases_of_the_native_classes() -> None:
    ev = p.ItemAgentMessageDeltaEvent
    assert typing.get_origin(ev) is codexclient.Notification
    assert typing.get_args(ev) == (typing.Literal["item/agentMessage/delta"], p.AgentMessageDeltaNotification)
    assert issubclass(codexclient.AgentMessageDelta, codexclient.Notification)
    members = typing.get_args(p.Event)
    assert codexclient.ConnectionEvent in members
    notes = {typing.get_args(typing.get_args(m)[0])[0] for m in members
             if typing.get_origin(m) is codexclient.Notification and m is not p.McpNotificationEvent}
    assert notes == set(p.SERVER_NOTIFICATIONS)
    requests = [m for m in members if typing.get_origin(m) is codexclient.ServerRequest]
    assert len(requests) == len(p.SERVER_REQUESTS) + 1
    with pytest.raises(TypeError):
        codexclient.ConnectionEvent["x"]  # type: ignore[index]


def test_what_the_real_server_sends_conforms(client_kwargs: Dict[str, Any]) -> None:
    """Every notification of a real turn, its items and the thread/start result fit the
    generated types (required keys, literals, nested unions)."""

    async def main() -> List[str]:
        errors: List[str] = []
        async with AsyncClient(**client_kwargs) as c:
            started = await c.request("thread/start", {})
            errors += conforms(started, p.ThreadStartResponse, "thread/start")
            thread = c.thread(started["thread"]["id"])
            seen = set()
            async for ev in thread.run_streamed("MOCK_TEXT: typed protocol"):
                if isinstance(ev, codexclient.Notification):
                    tp = p.SERVER_NOTIFICATIONS.get(ev.method)
                    assert tp is not None, f"{ev.method} is not in the schema"
                    errors += conforms(ev.params, tp, ev.method)
                    seen.add(ev.method)
            assert {"turn/started", "item/completed", "item/agentMessage/delta", "turn/completed"} <= seen
            read = await c.request("thread/read", {"threadId": thread.id, "includeTurns": True})
            errors += conforms(read, p.ThreadReadResponse, "thread/read")
        return errors

    assert run(main()) == []
