#!/usr/bin/env python3
"""Codex agents on Ray: many prompts over a pool of Ray actors, each owning one Codex
app-server on the node where Ray placed it (``pip install 'codexclient[ray]'``).

On a laptop (a local Ray, started by ``ray.init()``)::

    python examples/ray/agents.py --agents 2 "Say hello" "Name three primes"

On a cluster (``ray start --head`` ... on the machines; Codex installed on every node)::

    python examples/ray/agents.py --address HEAD:6379 --agents 8 --num-cpus 2 "..." "..."

Each agent gets its own new ``CODEX_HOME`` (``--config-toml FILE`` is written into it; or
``--codex-home PATH``, a home that exists on every node, e.g. one holding your login).
Commands are approved on the actor when they only ``echo`` (the policy below, shipped to
the actors by Ray) and forwarded to this process for anything else, where you answer them
(``--yes`` accepts them all; with no answer within ``--approval-timeout`` seconds they are
declined). The first prompt's turn is streamed here as it runs (``--stream``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Any, Optional

import ray

from codexclient import AgentMessageDelta, ServerRequest
from codexclient.ray import FORWARD, AgentPool, TaskEvent


def echo_only(request: ServerRequest) -> Any:
    """The policy, run on the actors: accept a plain ``echo``; ask the driver otherwise."""
    command = str(request.params.get("command", ""))
    try:
        argv = shlex.split(command)
    except ValueError:
        return FORWARD
    if len(argv) == 3 and argv[0].endswith("sh") and argv[1] in ("-c", "-lc"):
        command = argv[2]  # Codex runs a command line as `/bin/bash -c '...'`
    if command.startswith("echo ") and not any(c in command for c in ";&|`$<>()\n"):
        return "accept"
    return FORWARD


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("prompts", nargs="+")
    ap.add_argument("--address", help="a running Ray cluster (default: a local Ray, ray.init())")
    ap.add_argument("--agents", type=int, default=2)
    ap.add_argument("--num-cpus", type=float, default=1, help="Ray CPUs per agent")
    ap.add_argument("--in-flight", type=int, default=None, help="tasks running at once (default: one per agent)")
    ap.add_argument("--codex-bin", help="the codex binary on every node (default: the library's discovery)")
    ap.add_argument("--config-toml", help="a config.toml for each agent's new CODEX_HOME")
    ap.add_argument("--codex-home", help="a CODEX_HOME that exists on every node")
    ap.add_argument("--approval-timeout", type=float, default=60.0)
    ap.add_argument("--retries", type=int, default=0, help="run a task lost with its node again (max_retries)")
    ap.add_argument("--yes", action="store_true", help="accept every forwarded approval")
    ap.add_argument("--stream", action="store_true", help="print the first task's text as it streams")
    args = ap.parse_args()

    ray.init(address=args.address, log_to_driver=False)
    config = open(args.config_toml).read() if args.config_toml else None
    client_options = {"codex_bin": args.codex_bin} if args.codex_bin else {}

    def on_approval(request: ServerRequest) -> Optional[str]:
        command = request.params.get("command")
        if args.yes:
            print(f"approved on the driver: {command} -> accept", flush=True)
            return "accept"
        answer = input(f"run {command!r}? [y/N] ").strip().lower()
        return "accept" if answer == "y" else "decline"

    def on_event(ev: TaskEvent) -> None:
        if args.stream and ev.index == 0 and isinstance(ev.event, AgentMessageDelta):
            print(ev.event.delta, end="", flush=True)

    with AgentPool(args.agents, num_cpus=args.num_cpus, config_toml=config, codex_home=args.codex_home,
                   client_options=client_options, policy=echo_only,
                   approval_timeout=args.approval_timeout) as pool:
        nodes = {i["node_id"][:8] for i in pool.wait_ready()}
        print(f"{args.agents} agents on {len(nodes)} node(s)", flush=True)
        failed = 0
        for r in pool.map(args.prompts, max_in_flight=args.in_flight, max_retries=args.retries,
                          on_approval=on_approval, on_event=on_event):
            where = (r.node_id or "?")[:8]
            if args.stream and r.index == 0:
                print()
            if r.status == "completed" and r.result is not None:
                print(f"[{where}] {r.task.prompt!r} -> {r.result.final_response!r} ({r.result.status})")
            else:
                failed += 1
                thread = r.thread.thread_id if r.thread else None
                print(f"[{where}] {r.task.prompt!r} {r.status}: {r.error} (thread {thread})")
    ray.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
