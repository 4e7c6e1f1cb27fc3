"""A real multi-node Ray cluster on this machine's loopback, for ``test_ray.py`` and
``bench/ray_bench.py``: a head node and worker nodes, each a ``ray start --block`` process
with its own ``--temp-dir``, free ports, a custom resource naming it (``node_a``, ``node_b``,
...) and logical CPUs. Nothing listens beyond loopback: every node's IP is ``127.0.0.2``
(Ray rewrites ``127.0.0.1`` itself to the machine's outward address for a multi-node
cluster; any other 127/8 address is kept). Stopped by :meth:`LocalCluster.stop`: SIGTERM to
each ``ray start`` (workers first), then SIGKILL to whatever process of this cluster is
left, found by the marker in its environment — never by name; its temp dirs are removed
(``CODEXCLIENT_RAY_KEEP_LOGS=1`` keeps them)."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Dict, List, Optional

IP = "127.0.0.2"
RAY_PIN = "ray==2.60.0"


def ray_cli() -> str:
    """The ``ray`` command beside this interpreter (what ``pip install 'codexclient[ray]'``
    installs); raises ``FileNotFoundError`` naming the install command."""
    exe = pathlib.Path(sys.executable).with_name("ray")
    if not exe.exists():
        raise FileNotFoundError(
            f"{exe} is missing: install Ray into this interpreter: "
            f"{sys.executable} -m pip install '{RAY_PIN}' (or pip install 'codexclient[ray]')"
        )
    return str(exe)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((IP, 0))
        return int(s.getsockname()[1])


def _pids_with_marker(marker: str) -> List[int]:
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(d))
        except OSError:
            pass
    return [p for p in found if p != os.getpid()]


class LocalCluster:
    """``LocalCluster(["node_a", "node_b", "node_c"], num_cpus=2)``: the first is the head.
    ``address`` is what ``ray.init(address=..., _node_ip_address=IP)`` takes."""

    def __init__(self, nodes: List[str], *, num_cpus: int = 2, object_store_mb: int = 80,
                 env: Optional[Dict[str, str]] = None, start_timeout: float = 90.0) -> None:
        self.cli = ray_cli()
        self.marker = f"CODEXCLIENT_RAY_CLUSTER={uuid.uuid4().hex}"
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="ccray-"))  # short: Ray's socket paths
        self.env = dict(os.environ, **(env or {}))
        k, v = self.marker.split("=")
        self.env[k] = v
        # No usage report, no 30 s drain on SIGTERM; node death seen in about a second.
        # Token authentication off, said explicitly: else a token a local ray.init() left in
        # ~/.ray turns it on, half-way (loopback only here).
        self.env.update(RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0", RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0",
                        RAY_health_check_initial_delay_ms="0", RAY_health_check_period_ms="500",
                        RAY_health_check_timeout_ms="500", RAY_health_check_failure_threshold="2")
        self.num_cpus = num_cpus
        self.object_store = object_store_mb * 1024 * 1024
        self.procs: Dict[str, subprocess.Popen] = {}
        self.port = _free_port()
        self.address = f"{IP}:{self.port}"
        self.start_timeout = start_timeout
        try:
            for i, name in enumerate(nodes):
                self.add_node(name, head=(i == 0))
        except BaseException:
            self.stop()
            raise

    def _common(self, name: str) -> List[str]:
        return [
            "--block", "--disable-usage-stats", f"--node-ip-address={IP}", f"--num-cpus={self.num_cpus}",
            f'--resources={{"{name}": 1}}', f"--object-store-memory={self.object_store}",
            f"--temp-dir={self.dir / name}", f"--dashboard-agent-listen-port={_free_port()}",
            f"--dashboard-agent-grpc-port={_free_port()}", f"--metrics-export-port={_free_port()}",
            f"--runtime-env-agent-port={_free_port()}",
        ]

    def add_node(self, name: str, head: bool = False) -> None:
        """Start node ``name`` and wait (bounded) until ``ray start`` says it runs."""
        if head:
            args = [self.cli, "start", "--head", f"--port={self.port}", "--include-dashboard=false",
                    f"--dashboard-port={_free_port()}"]
        else:
            args = [self.cli, "start", f"--address={self.address}"]
        log = self.dir / f"{name}.log"
        p = subprocess.Popen(args + self._common(name), env=self.env, stdout=open(log, "wb"),
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[name] = p
        deadline = time.monotonic() + self.start_timeout
        while b"Ray runtime started" not in log.read_bytes():
            if p.poll() is not None:
                raise RuntimeError(f"ray start of {name} exited {p.returncode}: {log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"ray start of {name} not up in {self.start_timeout} s: {log.read_text()[-3000:]}")
            time.sleep(0.1)

    def raylet_pid(self, name: str) -> int:
        """The raylet of node ``name`` (a child of its ``ray start``)."""
        parent = self.procs[name].pid
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                stat = open(f"/proc/{d}/stat").read()
                cmd = open(f"/proc/{d}/cmdline", "rb").read()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == parent and cmd.split(b"\0")[0].endswith(b"/raylet"):
                return int(d)
        raise RuntimeError(f"no raylet process under ray start of {name} (pid {parent})")

    def kill_node(self, name: str) -> None:
        """SIGKILL node ``name``'s raylet: the node dies as a crashed machine's would (its
        ``ray start --block`` then stops the rest of that node)."""
        os.kill(self.raylet_pid(name), signal.SIGKILL)

    def stop(self, timeout: float = 30.0) -> None:
        """Stop every node (workers first) and kill anything of this cluster left."""
        names = list(self.procs)
        for group in (names[1:], names[:1]):
            for n in group:
                if self.procs[n].poll() is None:
                    self.procs[n].send_signal(signal.SIGTERM)
            deadline = time.monotonic() + timeout
            for n in group:
                try:
                    self.procs[n].wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    self.procs[n].kill()
                    self.procs[n].wait(timeout=10)
        for pid in self.leftovers():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not os.environ.get("CODEXCLIENT_RAY_KEEP_LOGS"):  # else the nodes' logs stay
            shutil.rmtree(self.dir, ignore_errors=True)

    def leftovers(self) -> List[int]:
        """Processes of this cluster still alive (by the marker in their environment)."""
        return _pids_with_marker(self.marker)
