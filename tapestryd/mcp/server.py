"""``tapestryctl mcp``: the tools of :mod:`tapestryd.mcp.tools` served over stdio.

Built on the official Python SDK's ``MCPServer`` (PyPI ``mcp``). stdout carries only the
protocol: the SDK points fd 1 at stderr while it serves, and every log line (the SDK's
and tapestry's structlog) goes to stderr, warnings and up. Each call asks the running
daemon over its socket and, when none runs, answers from the database read-only
(:func:`tapestryd.operations.dispatch.call`, with the typed requests of the table of
operations). A tool that fails returns a tool error (``isError``)
with a message naming the bad argument; the server itself keeps running.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from tapestryd import __version__
from tapestryd.config import Settings
from tapestryd.lazylog import warnings_to_stderr
from tapestryd.mcp.budget import compact_json
from tapestryd.mcp.tools import Caller, Tools

__all__ = ["INSTRUCTIONS", "TIMEOUT", "build_server", "serve"]

TIMEOUT = 30.0  # seconds one operation may take through the socket

INSTRUCTIONS = (
    "tapestry is the user's memory of past conversations with AI assistants (Claude Code, ChatGPT, "
    "Claude.ai), kept verbatim and summarized by day, week, month and year. Use `search` for words, names "
    "or a time phrase; `timeline` for what happened in a period; `get_messages` to read the messages behind "
    "a hit; `context` for the telescoping memory of a project or a day; `similar` for related discussions."
)


def build_server(caller: Caller) -> MCPServer[Any]:
    """The MCP server with the five tools over ``caller`` (read-only, closed-world)."""
    server: MCPServer[Any] = MCPServer(name="tapestry", title="tapestry memory", instructions=INSTRUCTIONS,
                                       version=__version__, log_level="WARNING")
    tools = Tools(caller)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    for method in (tools.search, tools.timeline, tools.get_messages, tools.similar):
        server.add_tool(_compact(method, compact_json), name=method.__name__, annotations=read_only)
    server.add_tool(_compact(tools.context, lambda answer: str(answer["text"])), name="context",
                    annotations=read_only)
    return server


def _compact(method: Any, text_of: Callable[[dict[str, Any]], str]) -> Any:
    """``method`` returning a CallToolResult whose text is ``text_of(answer)`` (one line of JSON,
    where the SDK would indent by 2; the markdown document itself for ``context``), with the
    answer as structured content; signature and docstring kept for the schema."""

    @functools.wraps(method)
    def run(**kwargs: Any) -> Any:
        answer = method(**kwargs)
        return CallToolResult(content=[TextContent(type="text", text=text_of(answer))], structured_content=answer)

    return run


def serve(settings: Settings) -> None:
    """Serve the tools over stdin/stdout until the client closes them."""
    from tapestryd.operations.dispatch import call
    from tapestryd.queries.dense import DenseKeeper

    warnings_to_stderr()
    dense = DenseKeeper()  # with the daemon down, searches share one dense index (weights and vectors load once)
    build_server(lambda request: call(settings, request, timeout=TIMEOUT, on_local=_say_local,
                                      dense=dense)).run("stdio")


def _say_local(op: str) -> None:
    """One line on stderr when the daemon is down and ``op`` is answered from the database."""
    sys.stderr.write(f"tapestry mcp: tapestryd is not running; answering {op} from the database read-only\n")
    sys.stderr.flush()
