#!/usr/bin/env python3
"""codexclient.ray side by side (a bench, not a timed test): the real Codex and the mock
model, on a real Ray cluster of up to three nodes on this machine's loopback
(tests/python/ray_cluster.py).

1. events/s of one streamed turn (``MOCK_TEXT`` of N characters: N/4 deltas): in this process
   (``CodexClient.run_streamed``) against the same turn on a Ray actor streamed to the driver
   (``Agent.stream``: a Ray streaming generator, every event pickled).
2. cost per task of ``AgentPool.map`` (small ``MOCK_TEXT`` turns, two agents per node) on 1, 2
   and 3 nodes, against the same tasks run one after the other on one in-process client.

    python bench/ray_bench.py [--chars 8000] [--rounds 3] [--tasks 30]

Needs ``codexclient[ray]``, the Codex of scripts/setup.sh (or CODEX_BIN) and the mock model
(MOCK_MODEL, else target/debug/mock-model). Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import ray  # noqa: E402

import codexclient  # noqa: E402
from conftest import CONFIG_TEMPLATE, CODEX_VERSION  # noqa: E402
from ray_cluster import IP, LocalCluster  # noqa: E402


def _turn_in_process(client: codexclient.CodexClient, prompt: str) -> "tuple[int, float]":
    t0 = time.perf_counter()
    turn = client.thread_start().run_streamed(prompt)
    n = sum(1 for _ in turn)
    turn.result(timeout=120)
    return n, time.perf_counter() - t0


def _turn_on_actor(agent: Any, prompt: str) -> "tuple[int, float]":
    t0 = time.perf_counter()
    turn = agent.stream(prompt, idle_timeout=120)
    n = sum(1 for _ in turn)
    assert turn.result is not None and turn.result.status == "completed"
    return n, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=8000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=30)
    args = ap.parse_args()
    codex_bin = os.environ.get("CODEX_BIN") or str(ROOT / ".cache" / f"codex-{CODEX_VERSION}")
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    mock_bin = os.environ.get("MOCK_MODEL") or str(target / "debug" / "mock-model")
    mock = subprocess.Popen([mock_bin, "--port", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert mock.stdout is not None and mock.stdin is not None
    port = int(mock.stdout.readline().split()[1])
    config = CONFIG_TEMPLATE.format(port=port)
    base = tempfile.mkdtemp(prefix="ray-bench-")
    home = pathlib.Path(base, "home")
    home.mkdir()
    (home / "config.toml").write_text(config)
    text = ("abcd" * (args.chars // 4))[: args.chars]
    prompt = f"MOCK_TEXT: {text}"
    out: Dict[str, Any] = {"chars": args.chars, "rounds": args.rounds, "tasks": args.tasks}
    cluster = LocalCluster(["node_a", "node_b", "node_c"], num_cpus=2, env={"RAY_AUTH_MODE": "disabled"})
    os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        import codexclient.ray as cr

        ray.init(address=cluster.address, _node_ip_address=IP, log_to_driver=False)
        kw = dict(config_toml=config, client_options={"codex_bin": codex_bin})

        # 1. events/s, in process vs actor -> driver.
        with codexclient.CodexClient(codex_bin=codex_bin, codex_home=home, cwd=base) as client:
            _turn_in_process(client, "MOCK_TEXT: warm up")
            local = [_turn_in_process(client, prompt) for _ in range(args.rounds)]
            small = [_turn_in_process(client, "MOCK_TEXT: one small task")[1] for _ in range(args.tasks)]
        agent = cr.Agent(resources={"node_b": 0.5}, **kw)
        agent.info()
        _turn_on_actor(agent, "MOCK_TEXT: warm up")
        remote = [_turn_on_actor(agent, prompt) for _ in range(args.rounds)]
        agent.close()
        ev_local = statistics.median(n / s for n, s in local)
        ev_remote = statistics.median(n / s for n, s in remote)
        out.update(events_per_turn=local[0][0], events_per_s_in_process=round(ev_local),
                   events_per_s_actor_to_driver=round(ev_remote),
                   turn_s_in_process=round(statistics.median(s for _, s in local), 3),
                   turn_s_actor_to_driver=round(statistics.median(s for _, s in remote), 3))

        # 2. the pool helper's cost per task on 1, 2, 3 nodes (two agents a node).
        out["in_process_sequential_ms_per_task"] = round(1000 * sum(small) / len(small), 1)
        nodes = ["node_a", "node_b", "node_c"]
        for n in (1, 2, 3):
            opts = [{"resources": {nodes[i // 2]: 0.5}} for i in range(2 * n)]
            with cr.AgentPool(actor_options=opts, **kw) as pool:
                t_up = time.perf_counter()
                pool.wait_ready()
                up = time.perf_counter() - t_up
                list(pool.map(["MOCK_TEXT: warm up"] * (2 * n)))
                t0 = time.perf_counter()
                results = list(pool.map([f"MOCK_TEXT: task {i}" for i in range(args.tasks)]))
                wall = time.perf_counter() - t0
            assert all(r.status == "completed" for r in results)
            out[f"pool_{n}_nodes_ms_per_task"] = round(1000 * wall / args.tasks, 1)
            out[f"pool_{n}_nodes_agents_up_s"] = round(up, 2)
    finally:
        ray.shutdown()
        cluster.stop()
        mock.stdin.close()
        mock.wait(timeout=10)
    print(f"streamed turn of {out['events_per_turn']} events ({args.chars} chars), median of {args.rounds}:")
    print(f"  in process           {out['events_per_s_in_process']:>8} events/s  ({out['turn_s_in_process']} s a turn)")
    print(f"  actor -> driver      {out['events_per_s_actor_to_driver']:>8} events/s  ({out['turn_s_actor_to_driver']} s a turn)")
    print(f"cost per task, {args.tasks} small turns:")
    print(f"  in process, one client, one after the other  {out['in_process_sequential_ms_per_task']} ms")
    for n in (1, 2, 3):
        print(f"  AgentPool.map, {n} node(s) x 2 agents          {out[f'pool_{n}_nodes_ms_per_task']} ms"
              f"  (agents up in {out[f'pool_{n}_nodes_agents_up_s']} s)")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
