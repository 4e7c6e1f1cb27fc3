"""Issue 40's serialisable forms in Python: every event class, server requests (pickling
parks them; unpickled they are detached and answered by reference through the owning
client), connection events, turn results and thread references pickle; through a real
``ProcessPoolExecutor`` an approval raised in a worker process is answered by a handler in
this process (once, twice → ``AlreadyRespondedError``, never → declined at the bound).
Against the real Codex and the mock model, the fake app-server where Codex cannot be made to
do it (a request the server resolves, a malformed line)."""

from __future__ import annotations

import json
import multiprocessing
import pathlib
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, List

import pytest

import codexclient
from codexclient import (
    AlreadyRespondedError,
    AsyncCodexClient,
    CodexClient,
    ConnectionEvent,
    InvalidArgumentError,
    InvalidStateError,
    Notification,
    ServerRequest,
    ThreadRef,
    TurnResult,
)

import distributed_worker
from helpers import fake, run, wait_until


def _approve_if_safe(request: ServerRequest) -> str:
    """The parent's handler: it sees only the unpickled request."""
    command = request.params["command"]
    return "accept" if "echo ran" in command else "decline"


def _same_event(a: Any, b: Any) -> None:
    assert type(a) is type(b), (type(a), type(b))
    assert a.method == b.method
    assert a.params_json == b.params_json
    assert a.endpoint == b.endpoint
    assert a.thread_id == b.thread_id and a.turn_id == b.turn_id


def test_labels_and_ids(fake_bin: str) -> None:
    a = CodexClient(**fake(fake_bin, "approval"), label="east")
    b = CodexClient(**fake(fake_bin, "approval"))
    assert a.label == "east" and b.label is None
    assert len(a.id) == 32 and a.id != b.id
    seen: List[Any] = []
    a.on_notification(seen.append)
    with a:
        t = a.thread_start()
        wait_until(lambda: any(n.method == "thread/started" for n in seen), what="thread/started")
        assert all(n.endpoint == "east" for n in seen)
        ref = t.reference()
        assert ref.endpoint == "east" and ref.thread_id == t.id
        back = pickle.loads(pickle.dumps(ref))
        assert back == ref and isinstance(back, ThreadRef)
        assert ThreadRef.from_json(ref.to_json()) == ref
        with pytest.raises(TypeError, match="thread.reference"):
            pickle.dumps(t)


def test_requests_answered_by_reference_and_their_errors(fake_bin: str) -> None:
    a = CodexClient(**fake(fake_bin, "approval"), label="east")
    b = CodexClient(**fake(fake_bin, "approval"), label="west")
    pickled: List[bytes] = []
    notes: List[Notification] = []
    a.on_command_approval(lambda r: pickled.append(pickle.dumps(r)))
    a.on_notification(notes.append)
    with a, b:
        a._request("test/approval", {}, None)
        wait_until(lambda: len(pickled) == 1, what="the approval")
        request = pickle.loads(pickled[0])
        assert isinstance(request, ServerRequest)
        assert request.detached and not request.is_open
        assert request.endpoint == "east" and request.thread_id == "thr_fake_1"
        with pytest.raises(InvalidStateError, match="respond"):
            request.accept()
        # Parked: the handler let it go, and it was not declined.
        assert a._request("test/lastAnswers", {}, None)["answers"] == []
        with pytest.raises(InvalidArgumentError) as e:
            b.respond(request, "accept")
        for part in (a.id, b.id, "east", "west"):
            assert part in str(e.value)
        with pytest.raises(InvalidArgumentError):
            a.respond(42, "accept")  # type: ignore[arg-type]
        with pytest.raises(InvalidArgumentError):
            a.respond(request, "maybe")  # not a decision of the method: still open
        a.respond(request.reference_json, "accept")
        assert a._request("test/lastAnswers", {}, None)["answers"][0]["result"] == {"decision": "accept"}
        with pytest.raises(AlreadyRespondedError):
            a.respond(request, "decline")

        # Resolved by the server before the answer came: refused, nothing sent.
        a._request("test/approval", {}, None)
        wait_until(lambda: len(pickled) == 2, what="the second approval")
        second = pickle.loads(pickled[1])
        a._request("test/resolve", {"requestId": second.id}, None)
        wait_until(lambda: any(n.method == "serverRequest/resolved" for n in notes), what="the resolve")
        with pytest.raises(AlreadyRespondedError):
            a.respond_error(json.loads(second.reference_json), -32000, "too late")
        assert len(a._request("test/lastAnswers", {}, None)["answers"]) == 1


def test_connection_events_pickle(fake_bin: str) -> None:
    got: List[ConnectionEvent] = []
    c = CodexClient(**fake(fake_bin, "garbage", "die"))
    c.on_connection_event(got.append)
    with c:
        c._request("test/garbage", {}, None)
        wait_until(lambda: any(e.kind == "error" for e in got), what="an error event")
        with pytest.raises(codexclient.ConnectionClosedError):
            c._request("test/die", {}, None)
        wait_until(lambda: any(e.kind == "disconnected" for e in got), what="the disconnect")
    for ev in got:
        back = pickle.loads(pickle.dumps(ev))
        assert type(back) is ConnectionEvent
        assert (back.kind, back.message, back.reason, back.stderr_tail) == (
            ev.kind, ev.message, ev.reason, ev.stderr_tail,
        )
        assert back.endpoint is None


def test_every_event_of_a_real_turn_pickles_as_its_class(client_kwargs: Dict[str, Any], workdir: pathlib.Path) -> None:
    marker = workdir / "ran.txt"
    with CodexClient(**client_kwargs, label="here") as c:
        c.on_command_approval(lambda r: "accept")
        turn = c.thread_start().run_streamed(f"MOCK_EXEC: touch {marker} && echo ran")
        events = list(turn)
        result = turn.result(timeout=60)
    kinds = {type(e) for e in events}
    for cls in (codexclient.ItemStarted, codexclient.ItemCompleted, codexclient.TurnStarted,
                codexclient.TurnCompleted, codexclient.AgentMessageDelta, ServerRequest):
        assert cls in kinds, (cls, kinds)
    for ev in events:
        back = pickle.loads(pickle.dumps(ev))
        if isinstance(ev, ServerRequest):
            assert type(back) is ServerRequest and back.detached
            assert (back.id, back.method, back.params) == (ev.id, ev.method, ev.params)
        else:
            _same_event(back, ev)
            assert back.endpoint == "here"
    assert isinstance(result, TurnResult)
    back_result = pickle.loads(pickle.dumps(result))
    assert back_result.final_response == result.final_response and back_result.items == result.items


def test_a_thread_reference_resumes_on_another_client(client_kwargs: Dict[str, Any]) -> None:
    with CodexClient(**client_kwargs, label="a") as a:
        t = a.thread_start(approval_policy="never")
        assert t.run("MOCK_TEXT: one").final_response == "one"
        ref = pickle.loads(pickle.dumps(t.reference()))
    assert ref.endpoint == "a" and ref.resume["approvalPolicy"] == "never"
    assert {"cwd", "model", "modelProvider"} <= set(ref.resume)
    with CodexClient(**client_kwargs, label="b") as b:
        resumed = b.thread_resume_ref(ref)
        assert resumed.id == ref.thread_id
        assert resumed.reference().endpoint == "b"
        assert resumed.run("MOCK_TEXT: two").final_response == "two"
        with pytest.raises(InvalidArgumentError):
            b.thread_resume_ref("not a ref")  # type: ignore[arg-type]

    async def resume_async() -> str:
        async with AsyncCodexClient(**client_kwargs, label="c") as c:
            again = await c.thread_resume_ref(ref, {"model": ref.resume["model"]})
            r = await again.run("MOCK_TEXT: three")
            return r.final_response or ""

    assert run(resume_async()) == "three"


@pytest.mark.parametrize("mode", ["once", "twice", "never"])
def test_an_approval_raised_in_a_worker_process_is_answered_by_the_parent(
    mode: str, client_kwargs: Dict[str, Any], workdir: pathlib.Path
) -> None:
    marker = workdir / f"ran-{mode}.txt"
    options = dict(client_kwargs, label="worker-1", parked_request_timeout=2.0)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as m, ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        requests, answers = m.Queue(), m.Queue()
        prompt = f"MOCK_EXEC: touch {marker} && echo ran"
        fut = pool.submit(distributed_worker.run_turn, options, prompt, requests, answers, mode)
        # This process holds no client: only the pickled request, and a handler.
        request = pickle.loads(requests.get(timeout=120))
        assert isinstance(request, ServerRequest) and request.detached
        assert request.method == codexclient.COMMAND_APPROVAL
        assert request.endpoint == "worker-1"
        decision = _approve_if_safe(request)
        assert decision == "accept"
        answers.put((request, decision))
        out = fut.result(timeout=180)
    assert request.reference_json.count(out["client_id"]) == 1, "owned by the worker's client"
    result: TurnResult = out["result"]
    cmd = next(i for i in result.items if i["type"] == "commandExecution")
    events = out["events"]
    # Every event came back from the worker as its own class.
    assert any(isinstance(e, codexclient.TurnCompleted) for e in events)
    assert all(isinstance(e, Notification) for e in events)
    assert all(e.endpoint == "worker-1" for e in events)
    if mode == "never":
        assert cmd["status"] == "declined", cmd
        assert not marker.exists(), "declined at the bound: the command must not run"
        assert out["late_answer"] == "AlreadyRespondedError"
    else:
        assert cmd["status"] == "completed", cmd
        assert marker.exists()
        assert out["second_answer"] == ("AlreadyRespondedError" if mode == "twice" else None)
