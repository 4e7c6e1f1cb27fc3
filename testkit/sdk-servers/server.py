"""An MCP server written with the official Python SDK (`mcp` 2.3.0, installed into a venv by
scripts/setup-mcp.sh), for core/tests/mcp_sdk_servers.rs and the Python and C tests. The same
surface as server.mjs (the TypeScript SDK's twin):

  tools: `add` (structured output), `count` (progress), `ask_name` (an elicitation resolver),
         `summarize` (a sampling resolver), `log` (logging), `slow_job` (a task when asked);
  resources: `demo://greeting`, template `demo://items/{id}` (completion of `id`);
  prompts: `greet` (completion of `name`); the 2025-11-25 `tasks/*` methods (tasks.py).

Usage: python server.py stdio | python server.py http <port> (0: any; prints `PORT <n>`).
"""

from __future__ import annotations

import asyncio
import socket
import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve, Sample
from mcp.types import (
    Completion,
    CreateMessageResult,
    EmptyResult,
    PromptReference,
    ResourceTemplateReference,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
)

from tasks import install_tasks

NAMES = ["Ada", "Alan", "Barbara", "Grace"]

mcp = MCPServer("py-sdk-server", version="2.3.0")


class Sum(BaseModel):
    """The structured output of `add`."""

    sum: float


@mcp.tool()
def add(a: float, b: float) -> Sum:
    """Add two numbers."""
    return Sum(sum=a + b)


@mcp.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


class Name(BaseModel):
    """What `ask_name` asks for."""

    name: str


def ask() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool()
async def ask_name(who: Annotated[Name, Resolve(ask)]) -> str:
    """Ask the user for a name."""
    return f"hello {who.name}"


def sample(text: str) -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=50,
    )


@mcp.tool()
async def summarize(text: str, said: Annotated[CreateMessageResult, Resolve(sample)]) -> str:
    """Ask the client's model."""
    return f"model {said.model} said: {said.content.text}"


LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
# The level the client asked for with `logging/setLevel` (the SDK leaves filtering to the
# server; one level for the process: the tests start one server per client).
min_level = {"level": "debug"}


async def set_level(ctx, params: SetLevelRequestParams) -> EmptyResult:
    min_level["level"] = params.level
    return EmptyResult()


mcp._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)


@mcp.tool()
async def log(level: str, message: str, ctx: Context) -> str:
    """Log a message at a level (sent when at or above the session's level)."""
    session = ctx.request_context.session
    if LEVELS.index(level) >= LEVELS.index(min_level["level"]):
        await session.send_log_message(
            level=level, data=message, logger="py-sdk-server", related_request_id=ctx.request_id
        )
    return "logged"


@mcp.tool()
async def slow_job(ms: float) -> dict[str, float]:
    """A job that finishes after ms milliseconds."""
    await asyncio.sleep(ms / 1000)
    return {"ms": ms}


@mcp.resource("demo://greeting", mime_type="text/plain", description="A greeting")
def greeting() -> str:
    return "Hello from Python"


@mcp.resource("demo://items/{id}", mime_type="text/plain", description="An item by id")
def item(id: str) -> str:
    return f"item {id}"


@mcp.prompt()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Please greet {name}"


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, PromptReference) and argument.name == "name":
        values = [n for n in NAMES if n.startswith(argument.value)]
    elif isinstance(ref, ResourceTemplateReference) and argument.name == "id":
        values = [v for v in ["1", "2", "10", "20"] if v.startswith(argument.value)]
    else:
        values = []
    return Completion(values=values, total=len(values), has_more=False)


install_tasks(mcp)


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        mcp.run("stdio")
        return
    if mode != "http":
        sys.exit("usage: server.py stdio | http <port>")
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(sys.argv[2]) if len(sys.argv) > 2 else 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    main()
