"""Codex agents as Ray actors (``pip install 'codexclient[ray]'``).

An integration on top of the public API, like :class:`codexclient.Pool`: placement,
scheduling, resources and process lifetime are Ray's; threads, turns, approvals and the
serialisable forms (events, server requests, results, thread references pickle) are the
library's. Nothing here speaks a protocol or runs a thread of its own.

- :class:`Agent` — one Ray actor (:data:`CodexActor`) owning one Codex app-server and
  :class:`~codexclient.CodexClient` on the node where Ray placed it, with its own
  ``CODEX_HOME`` and working directory. ``agent.stream(prompt)`` streams the turn to the
  driver (the actor's ``stream`` method is a Ray streaming generator: the thread's
  :class:`~codexclient.ThreadRef`, the turn's events, then its
  :class:`~codexclient.TurnResult`); ``agent.run(prompt)`` returns the result.
- Approvals: ``policy=`` is a picklable callable run on the actor (``policy(request)``
  returns the answer; the default, :func:`decline`, declines everything: fail-closed), or
  returns :data:`FORWARD` (``forward_approvals=True`` forwards every request) to send the
  request to the driver, where ``on_approval=`` (a plain function or ``async def``) answers
  it. The actor's client declines a forwarded request nobody answered within
  ``approval_timeout`` seconds; a later answer is refused (:class:`ApprovalError`).
- :class:`AgentPool` — many agents; :meth:`AgentPool.map` runs many :class:`Task` s over them
  with at most ``max_in_flight`` running at once and yields a :class:`TaskResult` per task as
  each finishes: ``completed``, ``failed`` (the turn or the actor's setup failed: the error
  names the node) or ``lost`` (the actor or its node died mid-task: ``thread`` is the
  reference of the thread it ran on). A lost task is run again on another agent only when
  ``max_retries`` says so, and its ``attempts`` then list every run: nothing runs twice
  unasked, no task yields two results, and every wait is bounded (``idle_timeout``).
"""

from __future__ import annotations

import importlib
from typing import Any

try:
    # Imported by name: Ray is optional (the extra), so the type checkers see it as Any
    # whether it is installed or not.
    ray: Any = importlib.import_module("ray")
    importlib.import_module("ray.exceptions")
    cloudpickle: Any = importlib.import_module("ray.cloudpickle")
except ImportError as _e:  # pragma: no cover - exercised by test_ray.py in a subprocess
    raise ImportError(
        "codexclient.ray needs Ray: install the extra, pip install 'codexclient[ray]' "
        f"(it pins the Ray version the library is tested with): {_e}"
    ) from _e

import asyncio
import dataclasses
import inspect
import logging
import os
import shutil
import tempfile
import time
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union

from ._errors import AlreadyRespondedError, CodexError
from ._native import ServerRequest, ThreadRef
from ._results import TurnResult
from ._sync import CodexClient

logger = logging.getLogger("codexclient.ray")

RAY_VERSION = "2.60.0"
"""The Ray version the ``ray`` extra pins and the tests run."""

DEFAULT_APPROVAL_TIMEOUT = 60.0
"""Seconds a forwarded approval waits for the driver's answer before the actor declines it."""

DEFAULT_IDLE_TIMEOUT = 300.0
"""Seconds the driver waits for the next item of a streamed turn before it gives the turn
up as lost (and kills the actor, so the turn cannot go on unseen)."""


# -- errors ---------------------------------------------------------------------------------


class CodexNodeError(CodexError):
    """The agent could not start Codex on its node (no Codex binary there, a bad
    ``CODEX_HOME``, a failed handshake). The message names the node (id and address)."""


class TaskLostError(CodexError):
    """The actor (or its node) died, or went silent past ``idle_timeout``, while the turn
    ran: ``thread`` is the thread's :class:`ThreadRef` (``None`` if the actor died before it
    started one), ``node_id`` the node it ran on, ``cause`` Ray's error. Whether the turn
    ran to its end on the lost node is unknown: it is not run again unless asked."""

    def __init__(self, message: str, *, thread: Optional[ThreadRef] = None,
                 node_id: Optional[str] = None, cause: Optional[BaseException] = None) -> None:
        super().__init__(message)
        self.thread = thread
        self.node_id = node_id
        self.cause = cause

    def __reduce__(self) -> Any:
        return (_lost_error, (str(self), self.thread, self.node_id))


def _lost_error(message: str, thread: Optional[ThreadRef], node_id: Optional[str]) -> TaskLostError:
    return TaskLostError(message, thread=thread, node_id=node_id)


class ApprovalError(CodexError):
    """The driver's answer to a forwarded approval was refused: it came after the actor's
    bound (``approval_timeout``: the request was declined), or twice."""


# -- approvals ------------------------------------------------------------------------------


class _Forward:
    """The type of :data:`FORWARD` (one instance, pickled by reference)."""

    def __repr__(self) -> str:
        return "codexclient.ray.FORWARD"

    def __reduce__(self) -> str:
        return "FORWARD"


FORWARD = _Forward()
"""What a policy returns to send the request to the driver (``on_approval=`` answers it)."""


def decline(request: ServerRequest) -> Any:
    """The default policy: every server request is answered fail-closed (approvals
    declined, other requests refused with an error)."""
    request.fail_closed()
    return None


def forward(request: ServerRequest) -> Any:
    """A policy that forwards every server request to the driver (``forward_approvals=True``)."""
    return FORWARD


@dataclasses.dataclass
class Forwarded:
    """A server request the actor's policy forwarded to the driver, as the actor's stream
    yields it: ``request`` (detached on the driver; answer it with :meth:`Agent.respond`),
    ``timeout`` (the actor's bound: declined past it), ``node_id``."""

    request: ServerRequest
    timeout: float
    node_id: str


def _check_policy(policy: Any) -> None:
    if not callable(policy):
        raise TypeError(f"policy must be a callable taking a ServerRequest, not {type(policy).__name__}")
    try:
        cloudpickle.dumps(policy)
    except Exception as e:
        raise TypeError(
            f"the approval policy {policy!r} does not pickle ({type(e).__name__}: {e}); it runs on "
            "the actor, so Ray must ship it there: use a module-level function or an object "
            "whose state pickles, or answer on the driver (return codexclient.ray.FORWARD from "
            "the policy, or forward_approvals=True, and pass on_approval=)"
        ) from e


# -- the actor ------------------------------------------------------------------------------

_STANDARD_RESOURCES = ("CPU", "GPU", "memory", "object_store_memory")


def _node_info() -> Dict[str, Any]:
    ctx = ray.get_runtime_context()
    node_id = ctx.get_node_id()
    address = ""
    custom: Dict[str, float] = {}
    for n in ray.nodes():
        if n.get("NodeID") == node_id:
            address = n.get("NodeManagerAddress", "")
            custom = {
                k: v for k, v in (n.get("Resources") or {}).items()
                if k not in _STANDARD_RESOURCES and not k.startswith(("node:", "accelerator_type"))
            }
    return {"node_id": node_id, "address": address, "node_resources": custom,
            "assigned": dict(ctx.get_assigned_resources()), "pid": os.getpid()}


class _CodexActor:
    """What runs in the actor (see :class:`Agent`, which makes it). Its methods are Ray
    actor methods; ``stream`` is a streaming generator."""

    def __init__(self, spec: Dict[str, Any]) -> None:
        self._node = _node_info()
        self._label = spec.get("label") or f"ray-{self._node['node_id'][:8]}-{os.getpid()}"
        self._base: Optional[str] = None
        self._policy: Callable[[ServerRequest], Any] = spec.get("policy") or decline
        self._approval_timeout = float(spec.get("approval_timeout") or DEFAULT_APPROVAL_TIMEOUT)
        self._forwarded: Dict[Any, bool] = {}
        self._client: Optional[CodexClient] = None
        self._error: Optional[str] = None
        try:
            self._start(spec)
        except Exception as e:  # kept: every call names it, the actor stays up to say so
            self._error = f"{self._where()}: {type(e).__name__}: {e}"
            logger.error("%s", self._error)
            if self._client is not None:
                self._client.close()
                self._client = None

    def _where(self) -> str:
        return f"Codex on node {self._node['node_id'][:12]} ({self._node['address']}, pid {os.getpid()})"

    def _start(self, spec: Dict[str, Any]) -> None:
        options: Dict[str, Any] = dict(spec.get("client_options") or {})
        home = spec.get("codex_home")
        cwd = spec.get("cwd")
        if home is None or cwd is None:
            self._base = tempfile.mkdtemp(prefix="codexclient-ray-", dir=spec.get("base_dir"))
        if home is None:
            home = os.path.join(self._base or "", "home")
            os.makedirs(home)
            if spec.get("config_toml"):
                with open(os.path.join(home, "config.toml"), "w") as f:
                    f.write(spec["config_toml"])
        if cwd is None:
            cwd = os.path.join(self._base or "", "work")
            os.makedirs(cwd)
        codex_bin = options.get("codex_bin")
        if codex_bin is not None and not os.access(str(codex_bin), os.X_OK):
            raise CodexNodeError(f"no Codex binary at {codex_bin} (codex_bin) on this node")
        self._home, self._cwd = str(home), str(cwd)
        options.update(codex_home=self._home, cwd=self._cwd, label=self._label,
                       parked_request_timeout=self._approval_timeout)
        self._client = CodexClient(**options)
        self._client.on_server_request("*", self._handle)
        init = self._client.connect()
        self._node["codex"] = init.user_agent

    def _handle(self, request: ServerRequest) -> Any:
        """The client's handler of every server request: the policy's answer, or ``None``
        (answered later by reference) for one it forwards."""
        value = self._policy(request)
        if value is FORWARD:
            self._forwarded[request.id] = True
            return None
        return value

    def _ready(self) -> CodexClient:
        if self._client is None:
            raise CodexNodeError(self._error or f"{self._where()}: closed")
        return self._client

    def info(self) -> Dict[str, Any]:
        """Where the actor runs: ``node_id``, ``address``, ``node_resources`` (the node's
        custom resources), ``assigned`` (what Ray gave the actor), ``pid``, ``label``,
        ``codex_home``, ``cwd``, ``codex`` (the server's user agent). Raises
        :class:`CodexNodeError` when Codex did not start."""
        self._ready()
        return dict(self._node, label=self._label, codex_home=self._home, cwd=self._cwd)

    def stream(self, prompt: Any, cwd: Optional[str] = None, thread: Optional[ThreadRef] = None,
               thread_options: Optional[Mapping[str, Any]] = None,
               turn_options: Optional[Mapping[str, Any]] = None,
               timeout: Optional[float] = None) -> Iterator[Any]:
        """One turn, streamed: the thread's reference, the turn's events (a forwarded
        server request as :class:`Forwarded`), then its :class:`TurnResult`."""
        client = self._ready()
        topts = dict(thread_options or {})
        if thread is not None:
            t = client.thread_resume_ref(thread, topts or None)
        else:
            if cwd is not None:
                topts.setdefault("cwd", str(cwd))
            t = client.thread_start(topts or None)
        yield t.reference()
        turn = t.run_streamed(prompt, **dict(turn_options or {}))
        with turn:  # leaving early (the generator closed) interrupts the turn
            for ev in turn:
                if type(ev) is ServerRequest and self._forwarded.pop(ev.id, False) and ev.is_open:
                    ev.park()
                    yield Forwarded(ev, self._approval_timeout, self._node["node_id"])
                else:
                    yield ev
            result = turn.result(timeout=timeout)
        yield result

    def run(self, prompt: Any, cwd: Optional[str] = None, thread: Optional[ThreadRef] = None,
            thread_options: Optional[Mapping[str, Any]] = None,
            turn_options: Optional[Mapping[str, Any]] = None,
            timeout: Optional[float] = None) -> TurnResult:
        """One turn to its end on the actor: its :class:`TurnResult`. Nobody can answer a
        forwarded request here: it is declined at its bound."""
        result: Any = None
        for item in self.stream(prompt, cwd, thread, thread_options, turn_options, timeout):
            result = item
        return result  # type: ignore[no-any-return]

    def respond(self, request: Any, answer: Any) -> None:
        """Answer a forwarded request by reference (``request`` detached, or its
        ``reference_json``)."""
        try:
            self._ready().respond(request, answer)
        except AlreadyRespondedError as e:
            raise ApprovalError(
                f"{self._where()}: the answer {answer!r} came too late or twice ({e}); a forwarded "
                f"request is declined after approval_timeout={self._approval_timeout} s"
            ) from None

    def close(self) -> None:
        """Stop the app-server and remove the directories the actor made."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)
            self._base = None


CodexActor = ray.remote(max_restarts=0, max_task_retries=0, max_concurrency=16)(_CodexActor)
"""The Ray actor class (``CodexActor.options(...).remote(spec)``); :class:`Agent` makes one
with the checks and defaults. Ray never restarts it nor retries its calls: a lost turn is
the driver's to report."""


# -- the driver -----------------------------------------------------------------------------

ApprovalHandler = Callable[[ServerRequest], Any]

_LOST = (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError, ray.exceptions.NodeDiedError,
         ray.exceptions.WorkerCrashedError, ray.exceptions.LocalRayletDiedError)


def _is_lost(e: BaseException) -> bool:
    if isinstance(e, ray.exceptions.RayTaskError):
        return isinstance(e.cause, _LOST) if hasattr(e, "cause") else False
    return isinstance(e, _LOST)


def _cause(e: BaseException) -> BaseException:
    if isinstance(e, ray.exceptions.RayTaskError):
        c = getattr(e, "cause", None)
        if isinstance(c, BaseException):
            return c
    return e


class Agent:
    """A Codex agent as a Ray actor on the node where Ray places it.

    Ray options say where and with what: ``num_cpus`` (default 1: "one CPU per agent"),
    ``resources`` (custom resources, e.g. ``{"gpu_box": 1}`` to pin it), ``ray_options``
    (anything else :meth:`ray.actor.ActorClass.options` takes: ``scheduling_strategy``,
    ``name``, ``runtime_env``...). Codex options: ``config_toml`` (text of the
    ``config.toml`` written into the actor's own new ``CODEX_HOME``), or ``codex_home`` and
    ``cwd`` (paths on the node); ``client_options`` (the :class:`~codexclient.CodexClient`
    keywords, e.g. ``codex_bin``; without it the library's discovery runs on the node:
    ``CODEX_BIN``, the ``codexclient[cli]`` binary, ``codex`` on ``PATH``).

    Approvals: ``policy`` runs on the actor (picklable; checked here, not at the first
    approval: :class:`TypeError`), default :func:`decline`; return :data:`FORWARD` from it
    (or ``forward_approvals=True``) to answer on the driver (``on_approval=`` of
    :meth:`stream`/:meth:`run`). ``approval_timeout`` (seconds) bounds a forwarded request.

    Creating an agent returns at once; :meth:`info` waits (``timeout``) for it to be up and
    raises :class:`CodexNodeError` naming the node when Codex could not start there.
    """

    def __init__(
        self,
        *,
        config_toml: Optional[str] = None,
        codex_home: Optional[str] = None,
        cwd: Optional[str] = None,
        base_dir: Optional[str] = None,
        client_options: Optional[Mapping[str, Any]] = None,
        policy: Optional[Callable[[ServerRequest], Any]] = None,
        forward_approvals: bool = False,
        approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
        num_cpus: float = 1,
        resources: Optional[Mapping[str, float]] = None,
        ray_options: Optional[Mapping[str, Any]] = None,
        label: Optional[str] = None,
    ) -> None:
        if forward_approvals and policy is not None:
            raise ValueError("pass either policy= or forward_approvals=True, not both")
        chosen = forward if forward_approvals else (policy or decline)
        _check_policy(chosen)
        if not approval_timeout > 0:
            raise ValueError(f"approval_timeout must be > 0 seconds, not {approval_timeout!r}")
        spec = {
            "config_toml": config_toml, "codex_home": codex_home, "cwd": cwd, "base_dir": base_dir,
            "client_options": dict(client_options or {}), "policy": chosen,
            "approval_timeout": float(approval_timeout), "label": label,
        }
        opts: Dict[str, Any] = {"num_cpus": num_cpus, **dict(ray_options or {})}
        if resources:
            opts["resources"] = dict(resources)
        self.approval_timeout = float(approval_timeout)
        self.actor = CodexActor.options(**opts).remote(spec)
        self._info: Optional[Dict[str, Any]] = None
        self.dead: Optional[str] = None

    def info(self, timeout: float = 120.0) -> Dict[str, Any]:
        """Where the agent runs (see ``_CodexActor.info``: ``node_id``, ``address``,
        ``node_resources``, ``label``, ``codex``...), waiting up to ``timeout`` s for it to be
        placed and up. Raises :class:`CodexNodeError` naming the node when Codex did not
        start, :class:`TaskLostError` when the actor died."""
        if self._info is None:
            try:
                self._info = ray.get(self.actor.info.remote(), timeout=timeout)
            except ray.exceptions.RayTaskError as e:
                raise _cause(e) from None
        return self._info

    @property
    def node_id(self) -> Optional[str]:
        return self._info["node_id"] if self._info else None

    def stream(self, prompt: Any, *, cwd: Optional[str] = None, thread: Optional[ThreadRef] = None,
               thread_options: Optional[Mapping[str, Any]] = None,
               turn_options: Optional[Mapping[str, Any]] = None,
               on_approval: Optional[ApprovalHandler] = None,
               idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
               timeout: Optional[float] = None) -> "RemoteTurn":
        """Start a turn on the actor (a new thread in ``cwd``, or ``thread`` resumed: a
        reference of a thread of this agent's ``CODEX_HOME``) and stream it here: iterate the
        returned :class:`RemoteTurn` for the events, then take ``.result``."""
        task = Task(prompt, cwd=cwd, thread=thread, thread_options=thread_options, options=turn_options)
        return RemoteTurn(self, task, on_approval, idle_timeout, timeout)

    def run(self, prompt: Any, **kwargs: Any) -> TurnResult:
        """:meth:`stream` to its end: the :class:`TurnResult` (raises
        :class:`TaskLostError` when the actor or its node died meanwhile)."""
        turn = self.stream(prompt, **kwargs)
        for _ in turn:
            pass
        assert turn.result is not None
        return turn.result

    def respond(self, request: Any, answer: Any, *, timeout: float = 30.0) -> None:
        """Answer a forwarded request (:class:`Forwarded` ``.request``) by reference on the
        actor. Raises :class:`ApprovalError` after the bound (it was declined) or twice."""
        ref = request.reference_json if isinstance(request, ServerRequest) else request
        try:
            ray.get(self.actor.respond.remote(ref, answer), timeout=timeout)
        except ray.exceptions.RayTaskError as e:
            raise _cause(e) from None

    def kill(self) -> None:
        """Kill the actor now (its app-server goes with its process)."""
        ray.kill(self.actor, no_restart=True)
        self.dead = self.dead or "killed"

    def close(self, timeout: float = 30.0) -> None:
        """Stop the app-server, remove the actor's directories, and end the actor."""
        if self.dead is None:
            try:
                ray.get(self.actor.close.remote(), timeout=timeout)
            except Exception as e:  # already dead, or stuck: killed below either way
                logger.debug("closing agent: %s", e)
        self.kill()


@dataclasses.dataclass
class Task:
    """One task for :meth:`AgentPool.map`: ``prompt``, ``cwd`` (on the actor's node; default
    the actor's own working directory), ``options`` (``run_streamed`` keywords),
    ``thread_options`` (``thread_start`` params), ``thread`` (a thread to resume instead),
    ``key`` (anything, handed back on the result)."""

    prompt: Any
    cwd: Optional[str] = None
    options: Optional[Mapping[str, Any]] = None
    thread_options: Optional[Mapping[str, Any]] = None
    thread: Optional[ThreadRef] = None
    key: Any = None


@dataclasses.dataclass
class Attempt:
    """One run of a task: ``node_id``, ``label`` (the agent), ``thread`` (its reference),
    ``status`` (``completed``, ``failed``, ``lost``), ``error``."""

    node_id: Optional[str]
    label: Optional[str]
    thread: Optional[ThreadRef]
    status: str
    error: Optional[str] = None


@dataclasses.dataclass
class TaskResult:
    """What :meth:`AgentPool.map` yields once per task: ``index`` (its place in the input),
    ``task``, ``status`` (``completed``, ``failed`` or ``lost``), ``result`` (the
    :class:`TurnResult` when completed), ``events`` (the turn's events in order, from the
    last attempt), ``thread`` (the last attempt's :class:`ThreadRef`), ``node_id``,
    ``error``, ``attempts`` (every run, in order: more than one only with ``max_retries``),
    ``approval_errors`` (answers from the driver that were refused: too late)."""

    index: int
    task: Task
    status: str
    result: Optional[TurnResult] = None
    events: List[Any] = dataclasses.field(default_factory=list)
    thread: Optional[ThreadRef] = None
    node_id: Optional[str] = None
    error: Optional[str] = None
    attempts: List[Attempt] = dataclasses.field(default_factory=list)
    approval_errors: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class TaskEvent:
    """What ``on_event`` of :meth:`AgentPool.map` gets for each item of a running task."""

    index: int
    task: Task
    node_id: Optional[str]
    label: Optional[str]
    event: Any


def _answer_on_driver(handler: Optional[ApprovalHandler], fwd: Forwarded) -> Any:
    """The driver's answer to a forwarded request (``None``: no answer, so the actor
    declines it at its bound). An ``async def`` handler is bounded by the request's
    timeout; a plain one is not interrupted (an answer after the bound is refused)."""
    if handler is None:
        return None
    value = handler(fwd.request)
    if inspect.isawaitable(value):
        async def bounded() -> Any:
            return await asyncio.wait_for(value, fwd.timeout)

        try:
            value = asyncio.run(bounded())
        except asyncio.TimeoutError:
            logger.warning("on_approval for %s gave no answer within %s s: declined",
                           fwd.request.method, fwd.timeout)
            return None
    return value


class _Run:
    """One attempt of one task on one agent: its stream and what came out of it."""

    def __init__(self, agent: Agent, index: int, task: Task, timeout: Optional[float], start: bool = True) -> None:
        self.agent, self.index, self.task = agent, index, task
        self.gen: Any = None
        if start:
            self.gen = agent.actor.stream.options(num_returns="streaming").remote(
                task.prompt, task.cwd, task.thread, task.thread_options, task.options, timeout)
        self.thread: Optional[ThreadRef] = None
        self.events: List[Any] = []
        self.result: Optional[TurnResult] = None
        self.last = time.monotonic()
        self.approval_errors: List[str] = []

    def take(self, on_approval: Optional[ApprovalHandler]) -> Any:
        """The next item (its stream is ready): raises ``StopIteration`` at its end, Ray's
        error when the actor failed or died."""
        ref = next(self.gen)
        item = ray.get(ref, timeout=60.0)
        self.last = time.monotonic()
        if isinstance(item, ThreadRef):
            self.thread = item
        elif isinstance(item, Forwarded):
            value = _answer_on_driver(on_approval, item)
            if value is not None:
                try:
                    self.agent.respond(item.request, value)
                except (ApprovalError, ray.exceptions.GetTimeoutError) as e:
                    logger.warning("%s", e)
                    self.approval_errors.append(str(e))
            self.events.append(item.request)
        elif isinstance(item, TurnResult):
            self.result = item
        else:
            self.events.append(item)
        return item


def _wait_ready(runs: Sequence[_Run], timeout: float) -> List[_Run]:
    if not runs:
        return []
    ready, _ = ray.wait([r.gen for r in runs], num_returns=1, timeout=timeout)
    ids = {id(g) for g in ready}
    return [r for r in runs if id(r.gen) in ids]


class RemoteTurn:
    """A turn streamed from an :class:`Agent` (:meth:`Agent.stream`): iterate it for the
    events (a forwarded request is answered by ``on_approval`` before it is yielded, as a
    local turn hands its requests to the handlers first); then ``result`` holds the
    :class:`TurnResult`, ``thread`` the thread's :class:`ThreadRef`. Raises
    :class:`TaskLostError` (with ``thread``) when the actor or its node died, or when no
    item came for ``idle_timeout`` seconds (the actor is then killed: the turn cannot go on
    unseen); the turn's own failure as the library raised it on the actor."""

    def __init__(self, agent: Agent, task: Task, on_approval: Optional[ApprovalHandler],
                 idle_timeout: float, timeout: Optional[float]) -> None:
        self._run = _Run(agent, 0, task, timeout)
        self._on_approval = on_approval
        self._idle = idle_timeout
        self.result: Optional[TurnResult] = None

    @property
    def thread(self) -> Optional[ThreadRef]:
        return self._run.thread

    @property
    def approval_errors(self) -> List[str]:
        return self._run.approval_errors

    @property
    def generator(self) -> Any:
        """Ray's ``ObjectRefGenerator`` of the actor's ``stream`` call."""
        return self._run.gen

    def __iter__(self) -> Iterator[Any]:
        run = self._run
        while self.result is None:
            if not _wait_ready([run], self._idle):
                run.agent.kill()
                raise TaskLostError(f"no event from the agent for {self._idle} s: killed it",
                                    thread=run.thread, node_id=run.agent.node_id)
            try:
                item = run.take(self._on_approval)
            except StopIteration:
                raise TaskLostError("the stream ended without a result", thread=run.thread,
                                    node_id=run.agent.node_id) from None
            except Exception as e:
                if _is_lost(e):
                    run.agent.dead = str(e)
                    raise TaskLostError(f"the agent died mid-turn: {type(e).__name__}: {e}",
                                        thread=run.thread, node_id=run.agent.node_id, cause=e) from None
                raise _cause(e) from None
            if isinstance(item, TurnResult):
                self.result = item
            elif not isinstance(item, ThreadRef):
                yield item.request if isinstance(item, Forwarded) else item


TaskLike = Union[Task, str, Mapping[str, Any]]


def _as_task(t: TaskLike) -> Task:
    if isinstance(t, Task):
        return t
    if isinstance(t, str):
        return Task(t)
    return Task(**dict(t))


class AgentPool:
    """Many :class:`Agent` s (``size`` of them made with ``agent_options``, the keywords of
    :class:`Agent`; ``actor_options`` a list of per-agent overrides, e.g. resources pinning
    each to a node; or ``agents`` made by you). Ray places them.
    ``with AgentPool(...) as pool:`` closes them on exit."""

    def __init__(self, size: Optional[int] = None, *, agents: Optional[Sequence[Agent]] = None,
                 actor_options: Optional[Sequence[Mapping[str, Any]]] = None, **agent_options: Any) -> None:
        if agents is not None:
            self.agents = list(agents)
        else:
            per = list(actor_options or [])
            n = size if size is not None else len(per)
            if n < 1:
                raise ValueError("an AgentPool needs size >= 1 (or agents=)")
            self.agents = [Agent(**{**agent_options, **(per[i] if i < len(per) else {})}) for i in range(n)]

    def wait_ready(self, timeout: float = 120.0) -> List[Dict[str, Any]]:
        """Wait (bounded) for every agent to be up: their :meth:`Agent.info`. Raises the
        first :class:`CodexNodeError`."""
        deadline = time.monotonic() + timeout
        return [a.info(timeout=max(0.1, deadline - time.monotonic())) for a in self.agents]

    def live_agents(self) -> List[Agent]:
        return [a for a in self.agents if a.dead is None]

    def map(self, tasks: Iterable[TaskLike], *, max_in_flight: Optional[int] = None, max_retries: int = 0,
            on_approval: Optional[ApprovalHandler] = None,
            on_event: Optional[Callable[[TaskEvent], Any]] = None,
            idle_timeout: float = DEFAULT_IDLE_TIMEOUT, turn_timeout: Optional[float] = None,
            keep_events: bool = True) -> Iterator[TaskResult]:
        """Run ``tasks`` (each a :class:`Task`, a prompt, or a dict of its fields) over the
        live agents, one task per agent at a time and at most ``max_in_flight`` (default:
        one per agent) at once; yield one :class:`TaskResult` per task as each finishes.

        A task whose agent or node died mid-turn (or went silent for ``idle_timeout`` s: the
        agent is killed) is ``lost``, with its thread's reference; it runs again on another
        agent only while its lost attempts are at most ``max_retries`` (default 0: never),
        and ``attempts`` lists every run. A task whose turn failed or whose agent could not
        start Codex is ``failed`` (not retried). When no agent is left, the tasks not run
        are ``lost`` with ``error`` saying so. Forwarded approvals go to ``on_approval``;
        ``on_event`` sees every item of every running task (on this thread, in order)."""
        queue: List[Tuple[int, Task, List[Any]]] = [(i, _as_task(t), []) for i, t in enumerate(tasks)]
        queue.reverse()  # pop() takes the first
        bound = max_in_flight if max_in_flight is not None else len(self.agents)
        if bound < 1:
            raise ValueError("max_in_flight must be >= 1")
        running: List[_Run] = []
        attempts_of: Dict[int, List[Attempt]] = {}
        busy: Dict[int, _Run] = {}
        started: Dict[int, int] = {}
        suspect: Set[int] = set()  # agents on a node where an actor was lost: probed before use

        def node_lost_an_actor(node_id: Optional[str]) -> None:
            for a in self.live_agents():
                if node_id is not None and a.node_id == node_id:
                    suspect.add(id(a))

        def finish(run: _Run, status: str, error: Optional[str]) -> TaskResult:
            info = run.agent._info or {}
            attempts = attempts_of.setdefault(run.index, [])
            attempts.append(Attempt(info.get("node_id"), info.get("label"), run.thread, status, error))
            return TaskResult(run.index, run.task, status, run.result, run.events if keep_events else [],
                              run.thread, info.get("node_id"), error, list(attempts), run.approval_errors)

        while queue or running:
            # Start what the bound and the idle agents allow.
            while queue and len(running) < bound:
                idle = [a for a in self.live_agents() if id(a) not in busy]
                if not idle:
                    break
                index, task, _ = queue.pop()
                agent = min(idle, key=lambda a: started.get(id(a), 0))  # the least used idle agent
                started[id(agent)] = started.get(id(agent), 0) + 1
                try:
                    agent.info(timeout=idle_timeout)
                    if id(agent) in suspect:  # its node lost an actor: is this one still there?
                        ray.get(agent.actor.info.remote(), timeout=min(idle_timeout, 30.0))
                        suspect.discard(id(agent))
                except CodexNodeError as e:
                    agent.dead = str(e)
                    yield finish(_Run(agent, index, task, None, start=False), "failed", str(e))
                    continue
                except Exception as e:  # died before it was up, or with its node: nothing ran
                    agent.dead = str(e)
                    agent.kill()
                    queue.append((index, task, []))
                    continue
                run = _Run(agent, index, task, turn_timeout)
                running.append(run)
                busy[id(agent)] = run
            if not running:
                if queue:  # nobody left to run them
                    for index, task, _ in reversed(queue):
                        attempts = attempts_of.get(index, [])
                        last = attempts[-1] if attempts else None
                        yield TaskResult(index, task, "lost", None, [], last.thread if last else None,
                                         last.node_id if last else None,
                                         "no live agent left to run it", list(attempts))
                    queue.clear()
                break
            now = time.monotonic()
            wait = max(0.0, min(r.last + idle_timeout for r in running) - now)
            ready = _wait_ready(running, min(wait, 5.0))
            if not ready:
                for run in [r for r in running if time.monotonic() - r.last > idle_timeout]:
                    run.agent.kill()
                    running.remove(run)
                    busy.pop(id(run.agent), None)
                    yield from self._lost(run, f"no event for {idle_timeout} s: agent killed",
                                          max_retries, attempts_of, queue, finish)
                continue
            for run in ready:
                done: Optional[TaskResult] = None
                try:
                    item = run.take(on_approval)
                    if on_event is not None and not isinstance(item, TurnResult):
                        info = run.agent._info or {}
                        shown = item.request if isinstance(item, Forwarded) else item
                        on_event(TaskEvent(run.index, run.task, info.get("node_id"), info.get("label"), shown))
                    if isinstance(item, TurnResult):
                        done = finish(run, "completed", None)
                except StopIteration:
                    done = finish(run, "failed", "the stream ended without a result")
                except Exception as e:
                    running.remove(run)
                    busy.pop(id(run.agent), None)
                    if _is_lost(e):
                        run.agent.dead = str(e)
                        run.agent.kill()
                        node_lost_an_actor(run.agent.node_id)
                        yield from self._lost(run, f"{type(_cause(e)).__name__}: {_cause(e)}",
                                              max_retries, attempts_of, queue, finish)
                    else:
                        c = _cause(e)
                        yield finish(run, "failed", f"{type(c).__name__}: {c}")
                    continue
                if done is not None:
                    running.remove(run)
                    busy.pop(id(run.agent), None)
                    yield done

    @staticmethod
    def _lost(run: _Run, error: str, max_retries: int, attempts_of: Dict[int, List[Attempt]],
              queue: List[Tuple[int, Task, List[Any]]], finish: Callable[[_Run, str, Optional[str]], TaskResult]) -> Iterator[TaskResult]:
        result = finish(run, "lost", error)
        lost = sum(1 for a in attempts_of[run.index] if a.status == "lost")
        if lost <= max_retries:
            logger.warning("task %d lost on node %s (%s): running it again (%d of %d retries)",
                           run.index, result.node_id, error, lost, max_retries)
            queue.append((run.index, run.task, []))
            return
        yield result

    def close(self) -> None:
        """Close every agent (app-servers stopped, actors ended)."""
        for a in self.agents:
            a.close()

    def __enter__(self) -> "AgentPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = [
    "Agent", "AgentPool", "ApprovalError", "Attempt", "CodexActor", "CodexNodeError", "FORWARD",
    "Forwarded", "RAY_VERSION", "RemoteTurn", "Task", "TaskEvent", "TaskLostError", "TaskResult",
    "decline", "forward",
]
