"""A third-party MCP server for `capout --mcp-wrap` to wrap, on the
official Python SDK's MCPServer (FastMCP as it was called before 2.0):
tools whose results are long, JSON, images, that ask the client for a
sample, report progress, take long enough to be cancelled, or end the
server.

    python wrap_server.py          serves on stdin and stdout
"""

import asyncio
import json
import os
import sys
import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning
from pydantic import BaseModel

# Sampling is deprecated in the newest protocol, not in the one the
# tests speak: its warning would be the last lines of stderr.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

server = MCPServer("wrapped")


@server.tool()
def lines(n: int) -> str:
    """`line 1` to `line N`, one a line."""
    return "".join(f"line {i}\n" for i in range(1, n + 1))


@server.tool()
def json_document(n: int) -> str:
    """A JSON document of N items, as text."""
    return json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(n)]})


class Item(BaseModel):
    id: int
    name: str


class Document(BaseModel):
    items: list[Item]


@server.tool()
def structured(n: int) -> Document:
    """A JSON document of N items, as structured content (and its text)."""
    return Document(items=[Item(id=i, name=f"item {i}") for i in range(n)])


@server.tool()
def image(size: int) -> Image:
    """A PNG of SIZE bytes (its bytes, not a picture)."""
    return Image(data=bytes(i % 251 for i in range(size)), format="png")


@server.tool()
def echo(text: str) -> str:
    """TEXT itself."""
    return text


@server.tool()
async def sample(prompt: str, ctx: Context) -> str:
    """What the client's model says to PROMPT."""
    result = await ctx.session.create_message(
        messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
        max_tokens=100,
    )
    return f"sampled: {result.content.text}"


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports progress STEPS times."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"{steps} steps"


@server.tool()
async def wait(seconds: float, ctx: Context) -> str:
    """Returns after SECONDS, once it has said it started (progress 0); a
    cancelled call leaves a mark in $WRAP_MARKS."""
    await ctx.report_progress(0, 1, "started")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        marks = os.environ.get("WRAP_MARKS")
        if marks:
            with open(marks, "a") as f:
                f.write("cancelled\n")
        raise
    return "waited"


@server.tool()
def crash(code: int) -> str:
    """Ends the server with exit status CODE, a line on stderr first."""
    sys.stderr.write(f"wrapped: crashing with {code}\n")
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    server.run("stdio")
