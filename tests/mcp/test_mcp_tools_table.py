"""Each MCP tool is a thin front end: it builds one typed request of the table of operations."""

from __future__ import annotations

from typing import Any

from tapestryd.mcp.tools import Tools
from tapestryd.operations.codec import encode
from tapestryd.operations.registry import operation_for


def test_every_tool_asks_an_operation_the_table_knows() -> None:
    """The requests the five tools build are the table's own types, their fields the table's fields."""
    asked: list[Any] = []

    def record(request: Any) -> Any:
        asked.append(request)
        return operation_for(request).result.from_json({})

    tools = Tools(record)
    tools.search(query="garlic", project="/p/garden", role="user", since="last week", limit=5)
    tools.timeline(when="2026-10")
    tools.get_messages(conversation="garden-1")
    tools.get_messages(message_ids=[3, 4], before=1, after=0)
    tools.context(date="yesterday", project="/p/garden", max_tokens=900)
    tools.similar(text="garlic cloves", level="summaries", limit=3)
    names = [operation_for(request).name for request in asked]
    assert names == ["search", "recall", "show", "messages", "context", "similar"]
    search, _, _, messages, context, _ = (encode(r) for r in asked)
    assert (search["project"], search["role"], search["since"], search["limit"]) == ("/p/garden", "user",
                                                                                    "last week", 5)
    assert (messages["ids"], messages["before"], messages["after"]) == ([3, 4], 1, 0)
    assert (context["format"], context["max_tokens"]) == ("markdown", 900)
