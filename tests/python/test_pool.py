"""``codexclient.Pool`` against real ``codex app-server --listen ws://127.0.0.1:…`` 0.171.0
processes, each with its own ``CODEX_HOME`` wired to the mock model, half in each WebSocket
auth mode (capability token, signed bearer token): 200 threads placed evenly and every answer
right, every endpoint's events through the pool's one handler table tagged with their
endpoint; an endpoint killed mid-turn ends its turn with an error naming the endpoint and the
thread (never a hang); a drained endpoint takes no thread; no healthy endpoint →
``UnavailableError`` at once. The fake app-server where Codex cannot be made to do it
(an endpoint that answers ``thread/start`` overloaded)."""

from __future__ import annotations

import os
import pathlib
import secrets
import signal
import socket
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterator, List

import pytest

import codexclient
from codexclient import ConnectionClosedError, InvalidArgumentError, Pool, UnavailableError

from conftest import CONFIG_TEMPLATE
from helpers import fake, wait_until

ISSUER = "py-pool-tests"
AUDIENCE = "codex-app-server"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Host:
    """One app-server host: its own CODEX_HOME (the mock model), working directory and
    listening server; ``signed`` picks the signed-bearer-token mode, else a capability
    token."""

    def __init__(self, codex_bin: str, root: pathlib.Path, mock_port: int, signed: bool) -> None:
        root.mkdir(parents=True)
        home, work = root / "home", root / "work"
        home.mkdir()
        work.mkdir()
        (home / "config.toml").write_text(CONFIG_TEMPLATE.format(port=mock_port))
        self.port = _free_port()
        self.url = f"ws://127.0.0.1:{self.port}"
        self.secret = secrets.token_hex(32)
        auth_file = root / ("ws-secret" if signed else "ws-token")
        auth_file.write_text(self.secret + "\n")
        auth_file.chmod(0o600)
        if signed:
            auth = ["--ws-auth", "signed-bearer-token", "--ws-shared-secret-file", str(auth_file),
                    "--ws-issuer", ISSUER, "--ws-audience", AUDIENCE]
            self.options: Dict[str, Any] = dict(
                ws_auth="signed-bearer-token", ws_shared_secret_file=auth_file,
                ws_issuer=ISSUER, ws_audience=AUDIENCE)
        else:
            auth = ["--ws-auth", "capability-token", "--ws-token-file", str(auth_file)]
            self.options = dict(token=self.secret)
        self.options.update(transport=self.url, client_name="codexclient-pytest",
                            default_timeout=60.0, heartbeat_interval=1.0, heartbeat_timeout=2.0)
        self.proc = subprocess.Popen(
            [codex_bin, "app-server", "--listen", self.url, *auth],
            env={**os.environ, "CODEX_HOME": str(home)}, cwd=work,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

    def wait_ready(self) -> None:
        wait_until(lambda: _accepts(self.port), timeout=30, what=f"{self.url} listening")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def hosts(codex_bin: str, tmp_path: pathlib.Path, mock_port: int) -> Iterator[List[Host]]:
    made = [Host(codex_bin, tmp_path / f"host{i}", mock_port, signed=i % 2 == 1) for i in range(4)]
    try:
        for h in made:
            h.wait_ready()
        yield made
    finally:
        for h in made:
            h.stop()


def test_two_hundred_threads_on_four_real_app_servers_placed_evenly_all_right(
    hosts: List[Host],
) -> None:
    tagged: Dict[str, int] = {}
    lock = threading.Lock()
    with Pool() as pool:

        @pool.on_notification
        def _count(n: Any) -> None:
            if n.method == "turn/completed":
                with lock:
                    tagged[n.endpoint] = tagged.get(n.endpoint, 0) + 1

        for i, h in enumerate(hosts):
            init = pool.add_endpoint(f"h{i}", **h.options)
            assert init is not None
        assert [e["state"] for e in pool.endpoints()] == ["ready"] * 4

        def one(i: int) -> str:
            t = pool.thread_start()
            r = t.run(f"MOCK_TEXT: answer number {i}")
            assert r.status == "completed", r
            assert r.final_response == f"answer number {i}", r
            name = pool.endpoint_of(t.id)
            assert name is not None and pool.thread(t.id).id == t.id
            return name

        t0 = time.monotonic()
        with ThreadPoolExecutor(8) as ex:
            placed = list(ex.map(one, range(200)))
        took = time.monotonic() - t0
        per = {n: placed.count(n) for n in set(placed)}
        print(f"200 threads on 4 real app-servers in {took:.1f} s: {per}")
        assert sum(per.values()) == 200
        for name, n in per.items():
            assert 40 <= n <= 60, f"{name} took {n} of 200 (even is 50 ± 20 %): {per}"
        # Every endpoint's events came through the pool's handlers, tagged with the endpoint.
        wait_until(lambda: sum(tagged.values()) == 200, timeout=10, what="200 turn/completed")
        assert tagged == per
        rows = {e["name"]: e for e in pool.endpoints()}
        assert {n: rows[n]["threads_placed"] for n in per} == per
        assert all(rows[n]["running_turns"] == 0 for n in rows)
        for h in hosts:  # no secret or token in what the pool reports
            assert h.secret not in repr(pool.endpoints())


def test_a_killed_endpoint_ends_its_turn_naming_it_and_the_thread_and_the_rest_go_on(
    hosts: List[Host],
) -> None:
    names = ["alive", "killed", "drained", "alive2"]
    with Pool() as pool:
        for n, h in zip(names, hosts):
            pool.add_endpoint(n, **h.options)
        # One slow turn on every endpoint (least busy placement puts one on each).
        slow = []
        for _ in names:
            t = pool.thread_start()
            slow.append((pool.endpoint_of(t.id), t.id, t.run_streamed("MOCK_SLOW: 30 200")))
        assert sorted(e for e, _, _ in slow) == sorted(names)
        pool.drain_endpoint("drained")
        assert {e["name"]: e["state"] for e in pool.endpoints()}["drained"] == "draining"
        killed_at = time.monotonic()
        hosts[1].proc.kill()
        for endpoint, thread_id, turn in slow:
            if endpoint == "killed":
                with pytest.raises(ConnectionClosedError) as info:
                    turn.result(timeout=30)
                took = time.monotonic() - killed_at
                assert took < 10, f"noticed after {took:.1f} s (heartbeat 1 s + 2 s)"
                assert "`killed`" in str(info.value) and thread_id in str(info.value), info.value
            else:
                r = turn.result(timeout=60)
                assert r.status == "completed", (endpoint, r)
        # The drained endpoint leaves once idle; the killed one is reported lost.
        wait_until(lambda: "drained" not in {e["name"] for e in pool.endpoints()}, timeout=20,
                   what="the drained endpoint to leave")
        states = {e["name"]: e["state"] for e in pool.endpoints()}
        assert states["killed"] == "lost" and states["alive"] == "ready", states
        assert thread_id_in(pool.threads_on("killed"), slow, "killed")
        # New threads go only to the healthy endpoints.
        for i in range(6):
            t = pool.thread_start()
            assert pool.endpoint_of(t.id) in ("alive", "alive2")
            assert t.run(f"MOCK_TEXT: after {i}").final_response == f"after {i}"
        pool.remove_endpoint("alive")
        pool.remove_endpoint("alive2")
        t0 = time.monotonic()
        with pytest.raises(UnavailableError, match="killed"):
            pool.thread_start()
        assert time.monotonic() - t0 < 2, "no healthy endpoint must be refused at once"


def thread_id_in(ids: List[str], slow: List[Any], endpoint: str) -> bool:
    return all(tid in ids for e, tid, _ in slow if e == endpoint)


def test_overloaded_thread_start_moves_on_and_bad_names_are_refused(fake_bin: str) -> None:
    with Pool(place_timeout=10) as pool:
        pool.add_endpoint("busy", **fake(fake_bin, "overload-start"))
        pool.add_endpoint("free", **fake(fake_bin, "turns"))
        for _ in range(4):
            assert pool.endpoint_of(pool.thread_start().id) == "free"
        with pytest.raises(InvalidArgumentError, match="busy"):
            pool.add_endpoint("busy", **fake(fake_bin, "turns"))
        with pytest.raises(InvalidArgumentError, match="nowhere"):
            pool.endpoint("nowhere")
        with pytest.raises(InvalidArgumentError):
            Pool(place_timeout=-1)
        assert {"place_timeout", "max_running_turns", "overload_backoff"} <= {
            r["name"] for r in Pool.option_rows()["pool"]}
    assert isinstance(codexclient.Pool, type)
