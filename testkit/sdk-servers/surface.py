"""server.py (the official Python SDK `mcp` 2.3.0) plus the 2025-11-25 client-surface tools of
core/tests/mcp_surface.rs and the C and Python surface tests:

  `shaped(mode)`     structuredContent against a hand-written JSON Schema 2020-12 outputSchema
                     (`$defs`/`$ref`), "good", "bad" (`/items/1/n` is a string) or "none";
  `reshape()`        changes `shaped`'s outputSchema (`n` must then be a string) and sends
                     `notifications/tools/list_changed`;
  `connect()`        fails with -32042 (URLElicitationRequiredError, elicitation `connect-1`)
                     until `finish_connect()` ran, which sends `notifications/elicitation/complete`;
  `ask_url()`        a URL-mode `elicitation/create`, then `notifications/elicitation/complete`;
  `weather_agent()`  `sampling/createMessage` with `tools` (needs `sampling.tools`);
  `linked()`         a `resource_link` content block; icons on it, the server, a resource and a
                     prompt.

Usage: python surface.py stdio | python surface.py http <port>.
"""

from __future__ import annotations

import mcp_types as types
from mcp import UrlElicitationRequiredError
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, ElicitRequestURLParams, Icon, ResourceLink, TextContent

from server import main, mcp

ICON = Icon(src="data:image/png;base64,iVBORw0KGgo=", mime_type="image/png", sizes=["16x16"], theme="light")
mcp._lowlevel_server.icons = [ICON]

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}}},
    "required": ["items"],
    "$defs": {"item": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
}


@mcp.tool()
def shaped(mode: str) -> CallToolResult:
    """Structured output: good, bad or none."""
    items = {"good": [{"n": 1}], "bad": [{"n": 1}, {"n": "two"}]}.get(mode)
    text = [TextContent(type="text", text=mode)]
    if items is None:
        return CallToolResult(content=text)
    return CallToolResult(content=text, structured_content={"items": items})


# A schema published by hand (no output model: the SDK advertises it and checks nothing).
mcp._tool_manager.get_tool("shaped").fn_metadata.output_schema = SCHEMA


@mcp.tool()
async def reshape(ctx: Context) -> str:
    """`shaped`'s items now have a string `n`; the tool list changed."""
    # In place: the SDK serves the schema object it was given.
    mcp._tool_manager.get_tool("shaped").fn_metadata.output_schema["$defs"]["item"]["properties"]["n"] = {
        "type": "string"
    }
    await ctx.request_context.session.send_tool_list_changed()
    return "reshaped"


connected = {"done": False}


@mcp.tool()
async def connect() -> str:
    """Needs the user to visit a URL first (-32042)."""
    if not connected["done"]:
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    mode="url",
                    message="Connect your account",
                    url="https://127.0.0.1:9/connect?session=1",
                    elicitation_id="connect-1",
                )
            ]
        )
    return "connected"


@mcp.tool()
async def finish_connect(ctx: Context) -> str:
    """What the browser step would do: the elicitation is complete."""
    connected["done"] = True
    await ctx.request_context.session.send_elicit_complete("connect-1")
    return "finished"


@mcp.tool()
async def ask_url(ctx: Context) -> str:
    """A URL-mode elicitation, completed at once when accepted."""
    r = await ctx.elicit_url("Open the page", "https://127.0.0.1:9/page", "page-1")
    if r.action == "accept":
        await ctx.request_context.session.send_elicit_complete("page-1")
    return f"url {r.action}"


WEATHER = types.Tool(
    name="weather",
    description="The weather in a city",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@mcp.tool()
async def weather_agent(ctx: Context) -> str:
    """Sampling with tools: what tool the client's model calls."""
    said = await ctx.request_context.session.create_message(
        [types.SamplingMessage(role="user", content=TextContent(type="text", text="Weather in Oslo?"))],
        max_tokens=50,
        tools=[WEATHER],
        tool_choice=types.ToolChoice(mode="auto"),
    )
    content = said.content if isinstance(said.content, list) else [said.content]
    uses = [f"{c.name}({c.input['city']})" for c in content if c.type == "tool_use"]
    return f"{said.stop_reason}: {', '.join(uses)}"


@mcp.tool(icons=[ICON])
def linked() -> list:
    """A resource link."""
    return [
        TextContent(type="text", text="see the greeting"),
        ResourceLink(
            type="resource_link",
            uri="demo://greeting",
            name="greeting",
            mime_type="text/plain",
            icons=[ICON],
        ),
    ]


@mcp.resource("demo://iconic", mime_type="text/plain", description="A resource with an icon", icons=[ICON])
def iconic() -> str:
    return "iconic"


@mcp.prompt(icons=[ICON])
def pictured() -> str:
    """A prompt with an icon."""
    return "pictured"


if __name__ == "__main__":
    main()
