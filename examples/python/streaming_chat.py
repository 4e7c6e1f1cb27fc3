"""A streaming chat: read a line, stream the agent's answer, repeat (Ctrl-D to quit).

    python examples/python/streaming_chat.py [--codex-bin PATH] [--codex-home DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Optional

import codexclient


async def chat(codex_bin: Optional[str], codex_home: Optional[str]) -> None:
    """Run the chat loop on one thread."""
    async with codexclient.AsyncCodexClient(codex_bin=codex_bin, codex_home=codex_home) as client:
        thread = await client.thread_start()
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                return
            turn = await thread.run_streamed(line.strip())
            async with turn:  # leaving early (Ctrl-C) interrupts the turn
                async for event in turn:
                    if isinstance(event, codexclient.AgentMessageDelta) and event.delta:
                        print(event.delta, end="", flush=True)
                    elif isinstance(event, codexclient.TurnCompleted):
                        print(f"\n[{event.status}]")


def main() -> None:
    """Parse the options and chat."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--codex-bin")
    p.add_argument("--codex-home")
    a = p.parse_args()
    asyncio.run(chat(a.codex_bin, a.codex_home))


if __name__ == "__main__":
    main()
