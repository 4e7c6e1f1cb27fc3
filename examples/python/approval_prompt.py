"""Ask the user before Codex runs a command or changes a file (sync client).

    python examples/python/approval_prompt.py "run ls" [--codex-bin PATH] [--codex-home DIR]
"""

from __future__ import annotations

import argparse

import codexclient


def ask(request: codexclient.ServerRequest) -> str:
    """Show an approval request and return the user's decision."""
    params = request.params
    what = params.get("command") or params.get("reason") or request.method
    answer = input(f"Allow {what!r}? [y/N] ").strip().lower()
    return "accept" if answer in ("y", "yes") else "decline"


def main() -> None:
    """Run one turn, prompting for each approval."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("prompt")
    p.add_argument("--codex-bin")
    p.add_argument("--codex-home")
    a = p.parse_args()
    with codexclient.CodexClient(codex_bin=a.codex_bin, codex_home=a.codex_home) as client:
        client.on_command_approval(ask)
        client.on_file_change_approval(ask)
        result = client.thread_start().run(a.prompt)
        print(result.final_response)
        print(f"[{result.status}; {len(result.items)} items]")


if __name__ == "__main__":
    main()
