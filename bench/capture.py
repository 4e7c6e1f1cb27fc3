#!/usr/bin/env python3
"""Capture the messages of one real Codex 0.169.0 turn, as templates for the bench server.

Runs the real `codex app-server` against the project's mock model (both from the repo: run
`scripts/setup.sh` first) and writes `bench/fixtures/real-0.169.0.jsonl`: the server's
`initialize`, `thread/start` and `turn/start` results, one `item/agentMessage/delta`
notification and the `turn/completed` notification, each as `{"kind": ..., "message": ...}`.
The bench server replays them so every client (ours and OpenAI's SDK, which validates shapes
with pydantic) sees exactly what the real server sends.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    codex = os.path.join(ROOT, ".cache", "codex-0.169.0")
    mock = os.path.join(ROOT, "target", "debug", "mock-model")
    home = tempfile.mkdtemp(prefix="bench-capture-", dir=os.path.join(ROOT, "target"))
    m = subprocess.Popen([mock, "--codex-home", home], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = m.stdout.readline().split()[1]
    assert port
    env = dict(os.environ, CODEX_HOME=home)
    p = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env, cwd=home)

    def send(obj):
        p.stdin.write(json.dumps(obj) + "\n")
        p.stdin.flush()

    def until(pred):
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("server closed")
            msg = json.loads(line)
            if pred(msg):
                return msg

    out = []
    send({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "bench-capture", "version": "0"}}})
    out.append({"kind": "initialize", "message": until(lambda m: m.get("id") == 1)})
    send({"method": "initialized"})
    send({"id": 2, "method": "thread/start", "params": {}})
    out.append({"kind": "thread/start", "message": until(lambda m: m.get("id") == 2)})
    tid = out[-1]["message"]["result"]["thread"]["id"]
    send({"id": 3, "method": "turn/start", "params": {"threadId": tid, "input": [{"type": "text", "text": "MOCK_TEXT: abcdefgh", "text_elements": []}]}})
    out.append({"kind": "turn/start", "message": until(lambda m: m.get("id") == 3)})
    out.append({"kind": "delta", "message": until(lambda m: m.get("method") == "item/agentMessage/delta")})
    out.append({"kind": "turn/completed", "message": until(lambda m: m.get("method") == "turn/completed")})
    send({"id": 4, "method": "thread/name/set", "params": {"threadId": tid, "name": "x"}})
    out.append({"kind": "thread/name/set", "message": until(lambda m: m.get("id") == 4)})
    p.stdin.close()
    p.wait(timeout=10)
    m.stdin.close()
    m.wait(timeout=10)
    dest = os.path.join(ROOT, "bench", "fixtures", "real-0.169.0.jsonl")
    with open(dest, "w") as f:
        for o in out:
            f.write(json.dumps(o, sort_keys=True) + "\n")
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
