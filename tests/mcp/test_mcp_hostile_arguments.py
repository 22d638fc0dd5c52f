"""Arguments an AI (or a stored title) gets wrong, met through the SDK's own stdio client: each is a
tool error naming the argument, or an answer that stays within its bound; the server lives on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_helpers import GARDEN, ROOT, UTC, Daemon, mcp_client, seed, server_params
from waiting import wait_for

from tapestryd.config import load_settings
from tapestryd.events import ConversationTitled, MessageRecorded, NewEvent, event_id
from tapestryd.operations.runtime import Runtime

LONG_TITLE = "Garlic beds " + "and a title that goes on " * 4000  # about 100,000 characters


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[Any]:
    with (tmp_path / "mcp-stderr.txt").open("w+") as fh:
        yield fh


async def calls(home: Path, errlog: Any, *steps: tuple[str, dict[str, Any]]) -> list[Any]:
    async with mcp_client(home, errlog) as client:
        return [await client.call_tool(name, args) for name, args in steps]


def error_text(result: Any) -> str:
    assert result.is_error, result.content[0].text[:300]
    return str(result.content[0].text)


def answer(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


BAD_CALLS = [  # (tool, arguments, the argument the error must name, as the error names it)
    ("get_messages", {"message_ids": [10 ** 22]}, "message_ids"),
    ("search", {"query": "   "}, "query"),
    ("similar", {"text": " \n "}, "text"),
    ("search", {"query": '"?!"'}, "query"),  # only punctuation: the search error named --regex
    ("similar", {"text": "??"}, "text"),
    # a value that is no time: 'cannot read ...' named no argument, and a reversed range or a date out of range
    # named CLI flags ('--until (…) must come after --since (…)')
    # (the hint "try … 'since March' …" holds 'since' too)
    ("search", {"query": "garlic", "since": "the day we met"}, "since: cannot read"),
    ("search", {"query": "garlic", "until": "the day we met"}, "until: cannot read"),
    ("search", {"query": "garlic", "since": "2026-10-05", "until": "2026-10-01"}, "until (2026-10-01) must come after"),
    ("search", {"query": "garlic", "since": "1900-01-01"}, "since: '1900-01-01' is outside"),
    ("context", {"date": "the day we met"}, "date: cannot read"),
    # an argument the tool does not take was dropped without a word, and the answer ignored it
    ("timeline", {"when": "2026", "since": "2026-10-01"}, "no argument 'since'"),
    ("search", {"query": "garlic", "max_results": 3, "agnet": "claude-ai"}, "no argument 'agnet', 'max_results'"),
]


def check_bad_calls(results: list[Any]) -> None:
    *bad, good = results
    for (tool, args, name), result in zip(BAD_CALLS, bad):
        text = error_text(result)
        assert name in text and "--" not in text and "internal error" not in text, (tool, args, text)
    assert answer(good)["hits"]


def test_a_huge_id_and_blank_text_are_errors_naming_the_argument(home: Path, errlog: Any) -> None:
    """An id past SQLite's integers, or a query of spaces, names the argument (not an empty 'Error executing
    tool' from an OverflowError, nor a CLI flag the AI cannot pass); the next call answers."""
    seed(home)
    check_bad_calls(asyncio.run(calls(home, errlog, *((t, a) for t, a, _ in BAD_CALLS),
                                      ("search", {"query": "garlic"}))))


def test_with_the_daemon_up_the_same_errors_name_the_argument(home: Path, errlog: Any) -> None:
    """Through the socket the daemon answered 'internal error: OverflowError'; now the tool refuses first."""
    seed(home)
    daemon = Daemon(home).start()
    try:
        results = asyncio.run(calls(home, errlog, *((t, a) for t, a, _ in BAD_CALLS), ("search", {"query": "garlic"})))
    finally:
        daemon.stop()
    check_bad_calls(results)
    errlog.seek(0)
    assert "not running" not in errlog.read()


def test_a_very_long_title_does_not_flood_the_answers(home: Path, errlog: Any) -> None:
    """Export titles are not capped at import (a prompt's is): a 100,000-character title made a 100-token
    get_messages answer 100 KB, and 50 search hits of it megabytes."""
    seed(home)
    titled = NewEvent(event_id("mcp-test", "long-title"), ConversationTitled(GARDEN, LONG_TITLE),
                      datetime(2026, 10, 3, tzinfo=UTC), "claude-ai", "test")
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append([titled])
        runtime.projector.catch_up()
    found, read, timeline = asyncio.run(calls(
        home, errlog,
        ("search", {"query": "garlic", "limit": 50}),
        ("get_messages", {"conversation": GARDEN, "max_tokens": 100}),
        ("timeline", {"when": "2026-10", "max_tokens": 100}),
    ))
    hits = answer(found)["hits"]
    assert hits and all(len(h["title"]) <= 200 for h in hits) and hits[0]["title"].startswith("Garlic beds")
    assert len(found.content[0].text) < 1000 * len(hits)
    assert len(read.content[0].text) <= 4 * 100 + 400 and answer(read)["messages"]
    assert len(timeline.content[0].text) <= 4 * 100 + 400


def test_similar_without_the_daemon_says_its_scores_are_not_cosines(home: Path, errlog: Any) -> None:
    """The tool promises a cosine from 0 to 1; the full-text index that answers without the daemon scores
    otherwise (55.1 on the demo), so the answer says which index scored it."""
    seed(home)
    (cold,) = asyncio.run(calls(home, errlog, ("similar", {"text": "garlic cloves planted", "limit": 3})))
    data = answer(cold)
    assert data["hits"] and data["scored_by"].startswith("full-text")
    daemon = Daemon(home).start()
    try:
        wait_for(lambda: "similarity.fitted" in (home / "daemon.log").read_text())
        (warm,) = asyncio.run(calls(home, errlog, ("similar", {"text": "garlic cloves planted", "limit": 3})))
    finally:
        daemon.stop()
    data = answer(warm)
    assert data["scored_by"] == "cosine" and all(0 < h["score"] <= 1 for h in data["hits"])


def test_every_text_argument_is_bounded_and_named(home: Path, errlog: Any) -> None:
    """An AI may paste a user's whole message into any field: a value past its bound is refused naming the
    field, instead of coming back whole inside the error ('cannot read '<10 KB>' as a date …')."""
    seed(home)
    pasted = "the week we talked about garlic " * 300
    results = asyncio.run(calls(home, errlog, *((tool, {**base, name: pasted}) for tool, base, name in [
        ("search", {"query": "garlic"}, "since"), ("search", {"query": "garlic"}, "until"),
        ("search", {"query": "garlic"}, "agent"), ("search", {"query": "garlic"}, "machine"),
        ("get_messages", {}, "conversation"), ("context", {}, "date"), ("context", {}, "agent"),
        ("timeline", {"when": "2026"}, "agent")])))
    for result, name in zip(results, ["since", "until", "agent", "machine", "conversation", "date", "agent", "agent"]):
        text = error_text(result)
        assert name in text and len(text) < 2000, text[:300]


def test_a_relative_project_is_the_servers_directory_with_the_daemon_up_too(home: Path, errlog: Any) -> None:
    """Claude Code starts the server in the project: project '.' is that directory, daemon down or up (the
    daemon read '.' as its own working directory and found nothing)."""
    seed(home)
    project = home / "proj"
    (project / "src").mkdir(parents=True)
    with Runtime.open(load_settings(home)) as runtime:
        msg = MessageRecorded("claude-code:here", "h1", "user", "Tune the garlic watering schedule",
                              "2026-10-07T09:00:00.000000Z", session="here", meta={"cwd": str(project / "src")})
        runtime.store.append([NewEvent(event_id("mcp-test", "here"), msg, datetime(2026, 10, 7, 9, tzinfo=UTC),
                                       "claude-code", "test#here")])
        runtime.projector.catch_up()
    params = server_params(home)
    params = StdioServerParameters(command=params.command, args=params.args, cwd=project,
                                   env={**(params.env or {}), "PYTHONPATH": str(ROOT)})

    async def ask() -> Any:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=60) as client:
            return await client.call_tool("search", {"query": "garlic", "project": "."})

    down = answer(asyncio.run(ask()))
    daemon = Daemon(home).start()
    try:
        up = answer(asyncio.run(ask()))
    finally:
        daemon.stop()
    for found in (down, up):
        assert [h["conversation"] for h in found["hits"]] == ["claude-code:here"], (found, down, up, project)
