"""Run several prompts at once, one thread each, on one connection (asyncio).

    python examples/python/concurrent_threads.py "prompt one" "prompt two" ...
"""

from __future__ import annotations

import argparse
import asyncio
from typing import List, Optional

import codexclient


async def run_all(
    prompts: List[str], codex_bin: Optional[str], codex_home: Optional[str]
) -> List[codexclient.TurnResult]:
    """Start one thread per prompt and run the turns concurrently."""
    async with codexclient.AsyncCodexClient(codex_bin=codex_bin, codex_home=codex_home) as client:
        threads = await asyncio.gather(*(client.thread_start() for _ in prompts))
        return list(await asyncio.gather(*(t.run(p) for t, p in zip(threads, prompts))))


def main() -> None:
    """Parse the options, run, print each answer."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("prompts", nargs="+")
    p.add_argument("--codex-bin")
    p.add_argument("--codex-home")
    a = p.parse_args()
    results = asyncio.run(run_all(a.prompts, a.codex_bin, a.codex_home))
    for prompt, r in zip(a.prompts, results):
        print(f"{prompt!r} -> {r.final_response!r} ({r.status})")


if __name__ == "__main__":
    main()
