"""An old-style MCP server: the official Python SDK's (`mcp` 2.3.0) low-level `Server` over stdio,
handshake era only, patched to exit on a request whose method it does not serve — the way some
servers built on older SDKs end on the 2026-07-28 `server/discover` probe. Everything else is the
SDK's own handshake-era protocol (`initialize` with version negotiation, `tools/list`,
`tools/call`, `ping`). For core/tests/mcp_old_server.rs and the C and Python old-server tests.

  tool `echo(message)`: the text `echo: <message>`.

Usage: python old_server.py [--log PATH] [--die-on-initialize] [--close-stdout]
  --log PATH            append `<pid> <method>` for every request and notification received
                        (and `<pid> start` when the process starts);
  --die-on-initialize   `initialize` is unknown too (the server serves nothing);
  --close-stdout        on an unknown method, close stdout and keep reading stdin until it
                        ends, instead of exiting (exit status 0 at the end).
On an unknown method (without --close-stdout) it writes `unknown method <m>: exiting` to stderr
and exits with status 1.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--log")
    p.add_argument("--die-on-initialize", action="store_true")
    p.add_argument("--close-stdout", action="store_true")
    return p.parse_args()


ARGS = parse()


def log(what: str) -> None:
    if ARGS.log:
        with open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()} {what}\n")


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="echo",
                description="Echo a message.",
                input_schema={
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"],
                },
            )
        ]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name != "echo":
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"no tool {params.name}")], is_error=True
        )
    message = (params.arguments or {}).get("message", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"echo: {message}")])


server = Server("old-server", version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool)
# A handshake-era server: it has never heard of the stateless revision's discovery.
server._request_handlers.pop("server/discover", None)


def known(method: str) -> bool:
    if method == "initialize":
        return not ARGS.die_on_initialize
    return server.get_request_handler(method) is not None


async def main() -> None:
    # Explicit streams on fds 0 and 1 (the SDK leaves them alone then), so that
    # --close-stdout can close the wire itself.
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(0, "rb", buffering=0), encoding="utf-8"))
    stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), encoding="utf-8"))
    log("start")
    async with stdio_server(stdin, stdout) as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        closed = False

        async def relay() -> None:
            nonlocal closed
            async with send:
                async for msg in read:
                    if isinstance(msg, SessionMessage):
                        m = msg.message
                        if isinstance(m, (types.JSONRPCRequest, types.JSONRPCNotification)):
                            log(m.method)
                        if closed:
                            continue
                        if isinstance(m, types.JSONRPCRequest) and not known(m.method):
                            print(f"unknown method {m.method}: exiting", file=sys.stderr, flush=True)
                            if not ARGS.close_stdout:
                                os._exit(1)
                            closed = True
                            os.close(1)
                            continue
                    await send.send(msg)

        async with anyio.create_task_group() as tg:
            tg.start_soon(relay)
            await server.run(receive, write, server.create_initialization_options())
            tg.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
