"""List the tools of any MCP server and call one.

    python examples/python/mcp_tools.py node server.js stdio          # a stdio server's command
    python examples/python/mcp_tools.py http://127.0.0.1:3001/mcp     # Streamable HTTP
    python examples/python/mcp_tools.py --tool get-sum --args '{"a": 1, "b": 2}' node server.js stdio

The default call is the everything server's ``echo`` (when the server has one). Progress
updates of the call are printed as they come. A server of MCP 2026-07-28 is asked, with
``subscriptions/listen``, to tell about changes of its tool list while the example runs.
"""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from typing import Any, Dict, List, Optional

import codexclient


def connect_options(server: List[str], token: Optional[str]) -> Dict[str, Any]:
    """McpClient options for a server given as a URL or a command line."""
    if len(server) == 1 and server[0].startswith(("http://", "https://")):
        return {"transport": server[0], "token": token}
    return {"command": server}


def main() -> None:
    """Parse the options, list the tools, call one."""
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("server", nargs="+", help="an http(s):// URL, or the server's command line")
    p.add_argument("--tool", default="echo", help="tool to call (default: echo)")
    p.add_argument("--args", default=None, help="its arguments as JSON (default for echo: a message)")
    p.add_argument("--token", default=None, help="bearer token for an HTTP server")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    a = p.parse_args()

    options = connect_options(a.server, a.token)
    with codexclient.McpClient(default_timeout=a.timeout, **options) as client, ExitStack() as stack:
        init = client.initialize_result
        assert init is not None
        name = (init.server_info or {}).get("name", "an MCP server")
        print(f"connected to {name} (MCP {init.protocol_version})")
        if init.mcp_era == "stateless":
            # 2026-07-28: list changes come on a subscription stream, open until the end.
            @client.on_notification
            def changed(n: codexclient.Notification) -> None:
                print(f"  ({n.method})")

            sub = stack.enter_context(client.listen(tools_list_changed=True))
            print(f"listening: {sub.acknowledged}")
        tools = client.list_tools()
        for tool in tools:
            summary = tool.description.splitlines()[0] if tool.description else ""
            print(f"  {tool.name}: {summary}")
        if a.tool not in {t.name for t in tools}:
            print(f"no tool {a.tool!r} to call")
            return
        arguments: Dict[str, Any] = {}
        if a.args:
            arguments = json.loads(a.args)
        elif a.tool == "echo":
            arguments = {"message": "hello from codexclient"}

        def progress(update: codexclient.Progress) -> None:
            total = f"/{update.total:g}" if update.total is not None else ""
            print(f"  progress {update.progress:g}{total} {update.message or ''}".rstrip())

        result = client.call_tool(a.tool, arguments, on_progress=progress)
        print(f"{a.tool} -> {'error: ' if result.is_error else ''}{result.text}")
        if result.structured_content is not None:
            print(json.dumps(result.structured_content, indent=2))


if __name__ == "__main__":
    main()
