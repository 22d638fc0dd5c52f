"""The MCP server as an AI client meets it: ``tapestryctl mcp`` over stdio, driven by the SDK's own client.

Each test starts the real server as a subprocess against a small home written as real events;
the daemon is down unless a test starts it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import CODE, GARDEN, Daemon, mcp_client, seed

TOOLS = {"search", "timeline", "get_messages", "context", "similar"}


@pytest.fixture
def small_home(home: Path) -> Path:
    """The test's home with two conversations and one daily summary."""
    seed(home)
    return home


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[Any]:
    """A file for the server's stderr (the SDK's stdio client hands it to the subprocess)."""
    with (tmp_path / "mcp-stderr.txt").open("w+") as fh:
        yield fh


def answer(result: Any) -> dict[str, Any]:
    """A tool's answer: its one-line JSON text, checked equal to its structured content."""
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    assert "\n" not in text
    data = json.loads(text)
    assert data == result.structured_content
    return data  # type: ignore[no-any-return]


def error_text(result: Any) -> str:
    assert result.is_error
    return str(result.content[0].text)


async def calls(home: Path, errlog: Any, *steps: tuple[str, dict[str, Any]]) -> list[Any]:
    """Start the server, call each (tool, arguments) in turn, return the raw results."""
    async with mcp_client(home, errlog) as client:
        return [await client.call_tool(name, args) for name, args in steps]


def test_the_five_tools_are_listed_with_typed_schemas_and_descriptions(small_home: Path, errlog: Any) -> None:
    """An AI sees each tool's arguments typed and bounded, a description it can act on, and read-only hints."""

    async def listing() -> Any:
        async with mcp_client(small_home, errlog) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in asyncio.run(listing())}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 200 and tool.annotations.read_only_hint
        assert tool.input_schema["type"] == "object"
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    search = tools["search"].input_schema
    assert search["required"] == ["query"] and search["properties"]["limit"]["maximum"] == 50
    assert search["properties"]["limit"]["default"] == 10
    assert set(search["properties"]) == {"query", "agent", "project", "role", "since", "until", "limit", "machine"}
    assert tools["get_messages"].input_schema["properties"]["max_tokens"]["default"] == 4000
    assert tools["context"].input_schema["properties"]["max_tokens"]["maximum"] == 20_000


def test_each_tool_answers_from_the_database_when_the_daemon_is_down(small_home: Path, errlog: Any) -> None:
    """search → ids → get_messages reads the verbatim text in order; timeline, context and similar answer too."""
    found, by_id, whole, timeline, context, similar, project = asyncio.run(calls(
        small_home, errlog,
        ("search", {"query": "garlic in October 2026", "limit": 5}),
        ("get_messages", {"message_ids": [3], "before": 1, "after": 1}),
        ("get_messages", {"conversation": "garden-1"}),
        ("timeline", {"when": "2026-10-02"}),
        ("context", {"date": "2026-10-06", "max_tokens": 600}),
        ("similar", {"text": "planting garlic cloves in autumn", "limit": 3}),
        ("search", {"query": "config", "project": "/p/homeauto"}),
    ))
    hits = answer(found)["hits"]
    assert answer(found)["time"]["phrase"] and len(hits) <= 5
    first = next(h for h in hits if "id" in h)
    assert first["conversation"] == GARDEN and "[garlic]" in first["snippet"].lower()
    assert {"id", "conversation", "title", "agent", "time", "role", "snippet"} <= set(first)
    window = answer(by_id)["messages"]
    assert [m["id"] for m in window] == [2, 3, 4] and [m.get("asked", False) for m in window] == [False, True, False]
    assert window[1]["text"] == "I planted 40 garlic cloves of the Germidour variety in bed one."
    assert [m["role"] for m in answer(whole)["messages"]] == ["user", "assistant", "user", "assistant"]
    nodes = answer(timeline)["nodes"]
    assert nodes[0]["title"] == "Garlic planted" and nodes[0]["level"] == "L1"
    assert nodes[0]["conversation_days"][0]["conversation"] == GARDEN
    assert not context.is_error and context.content[0].text == context.structured_content["text"]
    doc = context.structured_content
    assert doc["text"].startswith("# Memory context for") and doc["tokens"] <= 600 and "tokens;" not in doc["text"]
    assert GARDEN in [h["conversation"] for h in answer(similar)["hits"]]
    assert {h["conversation"] for h in answer(project)["hits"]} == {CODE}
    errlog.seek(0)
    assert "tapestryd is not running" in errlog.read()


def test_answers_are_bounded_by_max_tokens(small_home: Path, errlog: Any) -> None:
    """A budget smaller than a conversation keeps the first messages and counts the rest."""
    (short,) = asyncio.run(calls(small_home, errlog, ("get_messages", {"conversation": GARDEN, "max_tokens": 100})))
    data = answer(short)
    assert 1 <= len(data["messages"]) < 4 and data["more"] == 4 - len(data["messages"])
    assert len(short.content[0].text) <= 4 * 100 + 40


def test_bad_arguments_are_tool_errors_naming_the_argument_and_the_server_lives_on(small_home: Path,
                                                                                     errlog: Any) -> None:
    """Out-of-range, missing, conflicting or unknown values each come back as one error; the next call works."""
    results = asyncio.run(calls(
        small_home, errlog,
        ("search", {"query": "garlic", "limit": 500}),
        ("search", {"limit": 3}),
        ("search", {"query": "garlic", "agent": "nobody"}),
        ("search", {"query": "garlic", "role": "robot"}),
        ("get_messages", {"conversation": GARDEN, "message_ids": [1]}),
        ("get_messages", {"message_ids": ["three"]}),
        ("timeline", {"when": "the twelfth of never"}),
        ("context", {"max_tokens": 5}),
        ("nosuchtool", {}),
        ("search", {"query": "garlic", "limit": 1}),
    ))
    *bad, good = results
    texts = [error_text(r) for r in bad]
    for text, name in zip(texts, ["limit", "query", "nobody", "role", "message_ids", "message_ids", "never",
                                  "max_tokens", "nosuchtool"]):
        assert name in text, text
    assert "conversation" in texts[4]
    assert len(answer(good)["hits"]) == 1


@pytest.fixture
def daemon(small_home: Path) -> Iterator[Daemon]:
    running = Daemon(small_home).start()
    yield running
    running.stop()


def test_with_the_daemon_up_the_tools_ask_it(daemon: Daemon, errlog: Any) -> None:
    """Through the socket: the same answers, and no 'answering from the database' note on stderr."""
    found, window, similar = asyncio.run(calls(
        daemon.home, errlog,
        ("search", {"query": "garlic", "limit": 3}),
        ("get_messages", {"message_ids": [3], "after": 1}),
        ("similar", {"text": "garlic cloves", "limit": 2}),
    ))
    assert answer(found)["hits"][0]["conversation"] == GARDEN
    assert [m["id"] for m in answer(window)["messages"]] == [1, 2, 3, 4]
    assert answer(similar)["hits"]
    errlog.seek(0)
    assert "not running" not in errlog.read()
