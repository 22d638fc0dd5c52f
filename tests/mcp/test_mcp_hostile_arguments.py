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
from mcp_helpers import GARDEN, UTC, Daemon, mcp_client, seed
from waiting import wait_for

from tapestryd.config import load_settings
from tapestryd.events import ConversationTitled, NewEvent, event_id
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


BAD_CALLS = [  # (tool, arguments, the argument the error must name)
    ("get_messages", {"message_ids": [10 ** 22]}, "message_ids"),
    ("search", {"query": "   "}, "query"),
    ("similar", {"text": " \n "}, "text"),
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
