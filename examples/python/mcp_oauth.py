"""Call a tool of an MCP server that requires authorization (OAuth 2.1).

    python examples/python/mcp_oauth.py https://mcp.example.com/mcp                # system browser
    python examples/python/mcp_oauth.py --paste https://mcp.example.com/mcp        # copy and paste
    python examples/python/mcp_oauth.py --tokens ~/.cache/my-app https://…/mcp --tool whoami

The library does the whole flow (discovery, registration, PKCE, token, refresh, step-up);
the program gives the browser step and, if it wants its tokens kept across runs, a store.
By default the system browser opens and the redirect comes back to a loopback port
(``codexclient.LoopbackBrowser``). With ``--paste`` the program prints the authorization URL
and reads the address the browser ended at (for a terminal without a browser: the redirect
URI ``http://127.0.0.1:1/callback`` does not load; copy it from the address bar). With
``--tokens DIR`` the credentials are kept in DIR, one private file per server (a
``codexclient.TokenStore``): the next run starts without the browser.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import sys
from typing import Any, Dict, Optional, Union

import codexclient

PASTE_REDIRECT = "http://127.0.0.1:1/callback"


class DirStore:
    """A :class:`codexclient.TokenStore`: each server's credentials (JSON text the library
    writes) in a file of its own that only the user can read."""

    def __init__(self, directory: str) -> None:
        self.dir = pathlib.Path(directory).expanduser()

    def _path(self, server: str) -> pathlib.Path:
        return self.dir / (hashlib.sha256(server.encode()).hexdigest()[:16] + ".json")

    def load(self, server: str) -> Optional[str]:
        path = self._path(server)
        return path.read_text() if path.exists() else None

    def save(self, server: str, json: str) -> None:
        self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = self._path(server)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(json)
        os.replace(tmp, path)

    def clear(self, server: str) -> None:
        self._path(server).unlink(missing_ok=True)


def paste(url: str) -> str:
    """The browser step by hand: print the URL, read where the browser ended up."""
    print(f"Open this URL in a browser and sign in:\n{url}", flush=True)
    print("Then paste the address the browser was sent to:", flush=True)
    line = sys.stdin.readline().strip()
    if not line:
        raise RuntimeError("no redirect URL given")
    return line


def on_event(event: codexclient.ConnectionEvent) -> None:
    """Show the authorization steps (never a token)."""
    if event.kind == "auth":
        print(f"[auth {event.auth}] {event.message}", flush=True)


def main() -> None:
    """Parse the options, authorize as the server asks, call the tool."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("server", help="the MCP server's http(s):// URL")
    p.add_argument("--paste", action="store_true", help="print the URL and read the redirect instead of a browser")
    p.add_argument("--tokens", default=None, help="keep the credentials in this directory")
    p.add_argument("--tool", default=None, help="tool to call (default: list the tools)")
    p.add_argument("--args", default="{}", help="its arguments as JSON")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per request (the browser step included)")
    a = p.parse_args()

    options: Dict[str, Any] = {}
    authorize: Union[codexclient.LoopbackBrowser, codexclient.Authorize]
    if a.paste:
        authorize = paste
        options["oauth_redirect_uri"] = PASTE_REDIRECT
    else:
        authorize = codexclient.LoopbackBrowser()
    store = DirStore(a.tokens) if a.tokens else None
    client = codexclient.McpClient(
        transport=a.server, authorize=authorize, token_store=store, default_timeout=a.timeout,
        connect_timeout=a.timeout, **options,
    )
    client.on_connection_event(on_event)
    with client:
        if a.tool is None:
            for tool in client.list_tools():
                print(f"  {tool.name}")
            return
        result = client.call_tool(a.tool, json.loads(a.args))
        print(f"{a.tool} -> {result.text}")


if __name__ == "__main__":
    main()
