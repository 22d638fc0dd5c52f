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
import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
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


class _Server(MCPServer[Any]):
    """MCPServer that refuses an argument a tool does not take, naming it: the SDK drops unknown
    arguments silently, so an AI passing ``since`` to ``timeline`` or ``max_results`` to ``search``
    got an answer that ignored it, without knowing. ``arguments`` maps each tool's name to the
    names of its arguments."""

    def __init__(self, arguments: Mapping[str, frozenset[str]], **options: Any) -> None:
        super().__init__(**options)
        self.arguments = arguments

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        taken = self.arguments.get(name, frozenset(arguments))
        unknown = sorted(set(arguments) - taken)
        if unknown:
            raise ToolError(f"{name} takes no argument {', '.join(map(repr, unknown))}; its arguments are "
                            f"{', '.join(sorted(taken))}")
        return await super().call_tool(name, arguments, context)


def build_server(caller: Caller) -> MCPServer[Any]:
    """The MCP server with the five tools over ``caller`` (read-only, closed-world); an argument a tool
    does not take is a tool error naming it."""
    tools = Tools(caller)
    served: tuple[tuple[Callable[..., dict[str, Any]], Callable[[dict[str, Any]], str]], ...] = (
        (tools.search, compact_json), (tools.timeline, compact_json), (tools.get_messages, compact_json),
        (tools.similar, compact_json), (tools.context, lambda answer: str(answer["text"])))
    server = _Server({m.__name__: frozenset(inspect.signature(m).parameters) for m, _ in served}, name="tapestry",
                     title="tapestry memory", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)
    for method, text_of in served:
        server.add_tool(_compact(method, text_of), name=method.__name__, annotations=read_only)
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
