"""Issue 41: Codex agents as Ray actors (``codexclient.ray``) on a real three-node Ray cluster
on this machine's loopback (``ray start --head`` plus two ``ray start --address`` worker
nodes, each with a custom resource naming it: ``node_a``, ``node_b``, ``node_c``; see
``ray_cluster.py``), each actor driving the real Codex and the local mock model. No Ray
mocks. The node-loss tests come last: they kill worker nodes' raylets."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from typing import Any, Dict, Iterator, List, Set

import pytest

import codexclient
from conftest import CONFIG_TEMPLATE, ROOT
from helpers import text_of, wait_until

try:
    import ray
except ImportError:  # a missing real dependency fails, with the command that installs it
    ray = None

from ray_cluster import IP, RAY_PIN, LocalCluster

HERE = pathlib.Path(__file__).resolve().parent
IDLE = 60.0  # the driver's bound on silence in every stream here


def _need_ray() -> None:
    if ray is None:
        pytest.fail(
            f"Ray is not installed: {sys.executable} -m pip install '{RAY_PIN}' "
            "(scripts/test-python.sh installs it into the test venv)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    _need_ray()
    t0 = time.monotonic()
    c = LocalCluster(["node_a", "node_b", "node_c"], num_cpus=2, env={"PYTHONPATH": str(HERE)})
    # The drivers (this process, the example's) as the cluster: token authentication off.
    old_auth = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        ray.init(address=c.address, _node_ip_address=IP, log_to_driver=False)
        wait_until(lambda: sum(1 for n in ray.nodes() if n["Alive"]) == 3, timeout=60, what="3 Ray nodes")
        print(f"3-node Ray cluster up in {time.monotonic() - t0:.1f} s")
        yield c
    finally:
        ray.shutdown()
        c.stop()
        if old_auth is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = old_auth
        left = c.leftovers()
        assert not left, f"processes of the cluster left: {left}"


@pytest.fixture(scope="module")
def cr(cluster: LocalCluster) -> Any:
    import codexclient.ray as module

    return module


@pytest.fixture
def agent_kwargs(codex_bin: str, mock_port: int, tmp_path: pathlib.Path) -> Dict[str, Any]:
    return dict(
        config_toml=CONFIG_TEMPLATE.format(port=mock_port),
        base_dir=str(tmp_path),
        client_options={"codex_bin": codex_bin, "default_timeout": 60.0},
    )


def _node_names() -> Dict[str, str]:
    """Node id -> its custom resource's name (node_a, ...)."""
    out = {}
    for n in ray.nodes():
        names = [k for k in n["Resources"] if k.startswith("node_") and not k.startswith("node:")]
        if names:
            out[n["NodeID"]] = names[0]
    return out


def _mock_prompts(port: int, tag: str) -> List[str]:
    """The user texts holding ``tag`` of every request the mock model got (one per run)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_mock/requests", timeout=10) as r:
        bodies = json.loads(r.read())
    found = []
    for body in bodies:
        users = [m for m in body.get("input", []) if isinstance(m, dict) and m.get("role") == "user"]
        if not users:
            continue
        text = json.dumps(users[-1])
        if tag in text:
            found.append(text)
    return found


def _count(texts: List[str], token: str) -> int:
    return sum(1 for t in texts if f"{token} " in t or f"{token}\\" in t or f"{token}\"" in t)


def _check_events_in_order(events: List[Any], thread_id: str, text: str) -> None:
    kinds = [type(e) for e in events]
    assert codexclient.TurnStarted in kinds, kinds
    started = kinds.index(codexclient.TurnStarted)
    assert all(k is not codexclient.ItemStarted for k in kinds[:started]), "an item before turn/started"
    assert isinstance(events[-1], codexclient.TurnCompleted), kinds[-3:]
    assert events[-1].status == "completed"
    assert all(e.thread_id in (None, thread_id) for e in events)
    assert text_of(events) == text
    deltas = [e for e in events if isinstance(e, codexclient.AgentMessageDelta)]
    assert len(deltas) >= 2, "the turn was streamed piece by piece"
    item_ids = [e.item["id"] for e in events if isinstance(e, codexclient.ItemStarted)]
    done_ids = [e.item["id"] for e in events if isinstance(e, codexclient.ItemCompleted)]
    for i in item_ids:  # every item completed after it started
        assert i in done_ids
        assert item_ids.index(i) <= done_ids.index(i)


def _codex_of(home: str) -> List[int]:
    """Live processes whose CODEX_HOME is ``home`` (the app-server of one agent)."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                env = open(f"/proc/{d}/environ", "rb").read().split(b"\0")
            except OSError:
                continue
            if f"CODEX_HOME={home}".encode() in env:
                pids.append(int(d))
    return pids


def test_import_needs_the_extra_and_codexclient_does_not_import_ray() -> None:
    code = "import sys; sys.modules['ray'] = None\ntry:\n import codexclient.ray\nexcept ImportError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "pip install 'codexclient[ray]'" in out.stdout, out.stdout
    code = "import sys, codexclient; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", "import codexclient must not import Ray"
    pins = (ROOT / "pyproject.toml").read_text()
    assert f'ray = ["{RAY_PIN}' in pins, "the extra pins the Ray the tests run"
    if ray is not None:
        assert ray.__version__ == RAY_PIN.split("==")[1], ray.__version__


def test_thirty_tasks_over_three_nodes(cr: Any, agent_kwargs: Dict[str, Any], mock_port: int) -> None:
    tag = uuid.uuid4().hex[:8]
    t0 = time.monotonic()
    with cr.AgentPool(6, num_cpus=1, **agent_kwargs) as pool:  # 2 CPUs a node: Ray spreads them
        infos = pool.wait_ready(timeout=120)
        t_ready = time.monotonic() - t0
        names = _node_names()
        placed = [names[i["node_id"]] for i in infos]
        assert len(set(placed)) >= 2, placed
        assert all(i["codex"] and "0.171.0" in i["codex"] for i in infos)
        assert len({i["codex_home"] for i in infos}) == 6, "each actor has its own CODEX_HOME"
        prompts = {i: f"{tag}-{i:02d} says: " + "word " * (i % 5 + 1) + f"end {i}" for i in range(30)}
        active: Set[int] = set()
        peak = [0]
        seen_items: Dict[int, int] = {}

        def on_event(ev: Any) -> None:
            active.add(ev.index)
            peak[0] = max(peak[0], len(active))
            seen_items[ev.index] = seen_items.get(ev.index, 0) + 1

        results = []
        t1 = time.monotonic()
        for r in pool.map([cr.Task(f"MOCK_TEXT: {p}", key=i) for i, p in prompts.items()],
                          max_in_flight=4, on_event=on_event, idle_timeout=IDLE):
            active.discard(r.index)
            results.append(r)
        t_map = time.monotonic() - t1
    assert sorted(r.index for r in results) == list(range(30)), "one result per task, none twice"
    by_node: Dict[str, int] = {}
    for r in results:
        assert r.status == "completed", (r.index, r.status, r.error)
        assert r.task.key == r.index
        assert r.result.final_response == prompts[r.index].strip()
        assert r.thread is not None and r.thread.thread_id
        assert len(r.attempts) == 1 and r.attempts[0].status == "completed"
        _check_events_in_order(r.events, r.thread.thread_id, prompts[r.index].strip())
        assert seen_items[r.index] == len(r.events) + 1  # the events and the thread reference
        by_node[names[r.node_id]] = by_node.get(names[r.node_id], 0) + 1
    assert peak[0] <= 4, f"{peak[0]} tasks in flight, bound 4"
    assert len(by_node) >= 2, by_node
    runs = _mock_prompts(mock_port, tag)
    for i in range(30):
        assert _count(runs, f"{tag}-{i:02d}") == 1, f"task {i} ran {_count(runs, f'{tag}-{i:02d}')} times"
    print(f"6 agents on {sorted(set(placed))} up in {t_ready:.1f} s; 30 tasks in {t_map:.1f} s "
          f"({by_node}), peak in flight {peak[0]}")


def test_approvals_on_the_actor_on_the_driver_and_unanswered(
    cr: Any, agent_kwargs: Dict[str, Any], tmp_path: pathlib.Path
) -> None:
    import ray_policies

    marks = {k: tmp_path / f"{k}.txt" for k in ("policy", "driver", "nobody", "default")}
    # One actor, so the files its commands touch are on this (the same) machine anyway.
    agent = cr.Agent(policy=ray_policies.by_command, approval_timeout=3.0, **agent_kwargs)
    asked: List[str] = []

    async def on_approval(request: codexclient.ServerRequest) -> Any:
        assert request.detached and request.method == codexclient.COMMAND_APPROVAL
        command = request.params["command"]
        asked.append(command)
        if "driver-ok" in command:
            return "accept"
        # No answer: wait for something that never comes; the driver's bound ends the wait
        # (the request's own timeout) and the actor declines it.
        await asyncio.Event().wait()

    tasks = [cr.Task(f"MOCK_EXEC: touch {marks[k]} && echo {k}-ok", key=k) for k in ("policy", "driver", "nobody")]
    try:
        results = {r.task.key: r for r in cr.AgentPool(agents=[agent]).map(tasks, on_approval=on_approval, idle_timeout=IDLE)}

        def command_status(r: Any) -> str:
            return next(i for i in r.result.items if i["type"] == "commandExecution")["status"]

        assert {k: r.status for k, r in results.items()} == dict.fromkeys(("policy", "driver", "nobody"), "completed")
        assert command_status(results["policy"]) == "completed" and marks["policy"].exists()
        assert command_status(results["driver"]) == "completed" and marks["driver"].exists()
        assert command_status(results["nobody"]) == "declined" and not marks["nobody"].exists()
        assert len(asked) == 2 and "policy-ok" not in " ".join(asked), asked  # the policy's stayed there
        # Every approval is in its task's events, as the detached request.
        for r in results.values():
            reqs = [e for e in r.events if isinstance(e, codexclient.ServerRequest)]
            assert len(reqs) == 1 and reqs[0].detached

        # A sync handler on one streamed turn, and an answer after the bound: a clear error.
        late: List[Any] = []
        turn = agent.stream(f"MOCK_EXEC: touch {marks['default']} && echo late", on_approval=lambda r: late.append(r))
        events = list(turn)
        assert any(isinstance(e, codexclient.ServerRequest) for e in events)
        assert next(i for i in turn.result.items if i["type"] == "commandExecution")["status"] == "declined"
        with pytest.raises(cr.ApprovalError, match="too late or twice"):
            agent.respond(late[0], "accept")
    finally:
        agent.close()

    # The default policy declines (fail-closed), on the actor, with no driver involved.
    default = cr.Agent(**agent_kwargs)
    try:
        r = default.run(f"MOCK_EXEC: touch {marks['default']} && echo default-ok", idle_timeout=IDLE)
        assert next(i for i in r.items if i["type"] == "commandExecution")["status"] == "declined"
        assert not marks["default"].exists()
    finally:
        default.close()


def test_bad_inputs_are_clear_errors(cr: Any, agent_kwargs: Dict[str, Any], tmp_path: pathlib.Path) -> None:
    lock = threading.Lock()
    with pytest.raises(TypeError, match="does not pickle.*runs on the actor"):
        cr.Agent(policy=lambda r: "accept" if lock.acquire(False) else "decline", **agent_kwargs)
    with pytest.raises(TypeError, match="callable"):
        cr.Agent(policy="accept", **agent_kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="approval_timeout"):
        cr.Agent(approval_timeout=0, **agent_kwargs)

    missing = str(tmp_path / "no" / "codex")
    kw = dict(agent_kwargs, client_options={"codex_bin": missing})
    agent = cr.Agent(resources={"node_b": 0.1}, **kw)
    try:
        with pytest.raises(cr.CodexNodeError) as e:
            agent.info(timeout=60)
        b = next(n for n, name in _node_names().items() if name == "node_b")
        assert b[:12] in str(e.value) and missing in str(e.value), str(e.value)
        (r,) = list(cr.AgentPool(agents=[agent]).map(["MOCK_TEXT: never"], idle_timeout=IDLE))
        assert r.status == "failed" and b[:12] in (r.error or ""), r
    finally:
        agent.close()


def _slow_tasks(cr: Any, tag: str, n: int) -> List[Any]:
    # 20 deltas 150 ms apart: each turn runs ~3 s, long enough to be cut mid-turn.
    return [cr.Task(f"MOCK_SLOW: 20 150 {tag}-{i:02d} x", key=i) for i in range(n)]


def test_a_node_killed_mid_turn_its_tasks_are_lost_with_thread_refs(
    cr: Any, cluster: LocalCluster, agent_kwargs: Dict[str, Any], mock_port: int
) -> None:
    tag = uuid.uuid4().hex[:8]
    with cr.AgentPool(6, num_cpus=1, **agent_kwargs) as pool:
        infos = pool.wait_ready(timeout=120)
        names = _node_names()
        homes_c = [i["codex_home"] for i in infos if names[i["node_id"]] == "node_c"]
        assert homes_c, f"no agent on node_c: {[names[i['node_id']] for i in infos]}"
        killed: List[float] = []
        on_c: Set[int] = set()

        def on_event(ev: Any) -> None:
            if names.get(ev.node_id) == "node_c" and isinstance(ev.event, codexclient.AgentMessageDelta):
                on_c.add(ev.index)
                if not killed:
                    cluster.kill_node("node_c")  # mid-turn: a delta of a node_c task just came
                    killed.append(time.monotonic())

        t0 = time.monotonic()
        results = list(pool.map(_slow_tasks(cr, tag, 12), max_in_flight=6, on_event=on_event, idle_timeout=IDLE))
        elapsed = time.monotonic() - t0
    assert killed, "no task ran on node_c"
    assert sorted(r.index for r in results) == list(range(12)), "one result per task, none twice"
    lost = [r for r in results if r.status == "lost"]
    assert lost, "the tasks running on node_c were lost"
    for r in lost:
        assert names[r.node_id] == "node_c", (r.index, r.node_id)
        assert isinstance(r.thread, codexclient.ThreadRef) and r.thread.thread_id, r
        assert len(r.attempts) == 1 and r.attempts[0].status == "lost" and r.error
    for r in results:
        if r.status != "lost":
            assert r.status == "completed", (r.index, r.error)
            assert names[r.node_id] != "node_c" or r.index not in on_c
            assert r.result.final_response == "".join(f"tick {k} " for k in range(20))
    runs = _mock_prompts(mock_port, tag)
    for i in range(12):  # never run twice: the lost ones were not run again
        assert _count(runs, f"{tag}-{i:02d}") == 1, (i, _count(runs, f"{tag}-{i:02d}"))
    # The dead node's app-servers went with their actors.
    for home in homes_c:
        wait_until(lambda: not _codex_of(home), timeout=30, what=f"the app-server of {home} to exit")
    assert elapsed < 120, f"the driver took {elapsed:.0f} s"
    print(f"node_c killed mid-turn: {len(lost)} tasks lost with thread refs, "
          f"{len(results) - len(lost)} completed, {elapsed:.1f} s")


def test_a_node_killed_with_max_retries_runs_its_tasks_again_elsewhere(
    cr: Any, cluster: LocalCluster, agent_kwargs: Dict[str, Any], mock_port: int
) -> None:
    wait_until(lambda: sum(1 for n in ray.nodes() if n["Alive"]) == 2, timeout=60, what="node_c seen dead")
    tag = uuid.uuid4().hex[:8]
    # node_a and node_b are left: agents pinned a, b, b, a (tasks go to the least used idle
    # agent, first in this order), so the lost task's retry is first offered to node_b's idle
    # agent, dead with its node: probed, found dead, the retry goes on to node_a.
    pins = [{"resources": {n: 0.5}} for n in ("node_a", "node_b", "node_b", "node_a")]
    with cr.AgentPool(actor_options=pins, num_cpus=1, **agent_kwargs) as pool:
        infos = pool.wait_ready(timeout=120)
        names = _node_names()
        assert [names[i["node_id"]] for i in infos] == ["node_a", "node_b", "node_b", "node_a"]
        killed: List[int] = []

        def on_event(ev: Any) -> None:
            if names.get(ev.node_id) == "node_b" and isinstance(ev.event, codexclient.AgentMessageDelta) and not killed:
                cluster.kill_node("node_b")
                killed.append(ev.index)

        t0 = time.monotonic()
        results = list(pool.map(_slow_tasks(cr, tag, 6), max_in_flight=2, max_retries=1, on_event=on_event,
                                idle_timeout=IDLE))
        elapsed = time.monotonic() - t0
        assert pool.agents[2].dead, "node_b's idle agent was found dead when offered the retry"
        assert [a.dead is None for a in pool.agents] == [True, False, False, True]
    assert killed
    assert sorted(r.index for r in results) == list(range(6)), "one result per task, none twice"
    retried = [r for r in results if len(r.attempts) > 1]
    assert retried, "the tasks of node_b were run again"
    for r in results:
        assert r.status == "completed", (r.index, r.status, r.error)
        assert names[r.node_id] == "node_a"
        assert r.result.final_response == "".join(f"tick {k} " for k in range(20))
    runs = _mock_prompts(mock_port, tag)
    for r in results:
        n = _count(runs, f"{tag}-{r.index:02d}")
        if len(r.attempts) > 1:
            first, second = r.attempts
            assert first.status == "lost" and names[first.node_id] == "node_b"
            assert isinstance(first.thread, codexclient.ThreadRef) and first.thread.thread_id
            assert second.status == "completed" and names[second.node_id] == "node_a"
            assert second.thread.thread_id != first.thread.thread_id
            assert n == 2, "run twice: once lost, once asked for (max_retries=1)"
        else:
            assert n == 1
    assert elapsed < 120, f"the driver took {elapsed:.0f} s"
    print(f"node_b killed mid-turn: {len(retried)} tasks lost and run again on node_a, {elapsed:.1f} s")


EXAMPLE = ROOT / "examples" / "ray" / "agents.py"


def _run_example(args: List[str], env: Dict[str, str], timeout: float = 180) -> str:
    r = subprocess.run([sys.executable, str(EXAMPLE), *args], capture_output=True, text=True,
                       timeout=timeout, env=dict(os.environ, **env), stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr[-4000:])
    return r.stdout


@pytest.mark.parametrize("where", ["cluster", "local"])
def test_the_example_runs_as_documented(
    where: str, cluster: LocalCluster, codex_bin: str, mock_port: int, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(CONFIG_TEMPLATE.format(port=mock_port))
    marker = tmp_path / f"{where}.txt"
    args = ["--agents", "2", "--codex-bin", codex_bin, "--config-toml", str(config), "--yes", "--stream",
            "MOCK_TEXT: streamed here", "MOCK_EXEC: echo by the policy", f"MOCK_EXEC: touch {marker}"]
    if where == "cluster":  # ray.init(address=...): the running three-node cluster
        out = _run_example(["--address", cluster.address, *args], {})
    else:  # ray.init(): a local Ray of its own, kept on 127.0.0.1, in a temp dir of its own
        short = tempfile.mkdtemp(prefix="ccray-")  # (a Unix socket's path has at most 107 bytes)
        try:
            # (RAY_AUTH_MODE: no token written into ~/.ray by a test.)
            out = _run_example(args, {"RAY_TMPDIR": short, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
                                      "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"})
        finally:
            shutil.rmtree(short, ignore_errors=True)
    assert "2 agents on " in out, out
    assert "streamed here\n" in out, out
    assert "'MOCK_TEXT: streamed here' -> 'streamed here' (completed)" in out, out
    assert "'MOCK_EXEC: echo by the policy' -> 'command output: by the policy' (completed)" in out, out
    assert f"approved on the driver: /bin/bash -c 'touch {marker}' -> accept" in out, out
    assert "echo by the policy' -> accept" not in out, "the policy answered it on the actor"
    assert marker.exists()
