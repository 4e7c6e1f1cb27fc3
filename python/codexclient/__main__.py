"""``python -m codexclient compat [--codex PATH] [--json]``: the compatibility report.

Compares the protocol of a Codex binary (default: ``codex`` on ``PATH``) with the schema the
library was generated from and says, for every difference, what the library does with it
(typed, kept raw, may fail, refused, unused). Exit status: 0 no differences, 1 differences,
2 error.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import _native
from ._errors import CodexError


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m codexclient")
    commands = parser.add_subparsers(dest="command", required=True)
    compat = commands.add_parser(
        "compat", help="compare a Codex binary's protocol with the library's"
    )
    compat.add_argument("--codex", help="the codex binary (default: `codex` on PATH)")
    compat.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args(argv)
    try:
        text, json_text, identical = _native.compat_report(args.codex)
    except CodexError as e:
        print(f"python -m codexclient compat: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(json_text + "\n" if args.json else text)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
