"""ChatGPT export shapes that broke other importers: null times, scraped pages, wrapped and single exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.projections import Projector

CREATED = 1_750_000_000.0  # 2025-06-15T15:06:40Z


def node(key: str, parent: str | None, role: str, words: str, ts: float | None,
         content_type: str = "text", **content: Any) -> dict[str, Any]:
    body = {"content_type": content_type, **content} if content else {"content_type": content_type, "parts": [words]}
    return {"id": key, "parent": parent, "children": [],
            "message": {"id": key, "author": {"role": role}, "create_time": ts, "content": body, "recipient": "all",
                        "metadata": {}}}


def conversation(conv_id: str, *nodes: dict[str, Any], created: float | None = CREATED) -> dict[str, Any]:
    root = {"id": "root", "parent": None, "children": [], "message": None}
    mapping = {"root": root, **{n["id"]: n for n in nodes}}
    return {"id": conv_id, "conversation_id": conv_id, "title": f"Conversation {conv_id}", "create_time": created,
            "update_time": created, "mapping": mapping, "current_node": nodes[-1]["id"]}


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def times(projector: Projector) -> dict[str, str]:
    projector.catch_up()
    return dict(rows(projector.conn, "SELECT message_key, ts FROM messages"))


def test_a_null_time_takes_the_conversations_when_first_else_the_previous_messages(
        tmp_path: Path, store: EventStore, settings: Settings, projector: Projector) -> None:
    """The first message without create_time is dated by the conversation, not by the reply after it."""
    conv = conversation("c1", node("m1", "root", "user", "Plan my week", None),
                        node("m2", "m1", "assistant", "Monday: gym", CREATED + 3600),
                        node("m3", "m2", "user", "And Tuesday?", None))
    ingest(store, settings, write(tmp_path / "conversations.json", [conv]))
    assert times(projector) == {"m1": "2025-06-15T15:06:40.000000Z", "m2": "2025-06-15T16:06:40.000000Z",
                                "m3": "2025-06-15T16:06:40.000000Z"}


def test_scraped_pages_are_not_messages(tmp_path: Path, store: EventStore, settings: Settings,
                                        projector: Projector) -> None:
    """sonic_webpage, tether_browsing_display and tether_quote hold the web's text: skipped, counted."""
    conv = conversation(
        "c2", node("m1", "root", "user", "What is new in Python 3.13?", CREATED),
        node("w1", "m1", "tool", "", CREATED + 1, "sonic_webpage", url="https://example.com/py313",
             title="What's New", text="Python 3.13 page text, scraped"),
        node("w2", "w1", "tool", "", CREATED + 2, "tether_browsing_display", result="L0: scraped page lines",
             summary=""),
        node("w3", "w2", "tool", "", CREATED + 3, "tether_quote", url="https://example.com", domain="example.com",
             text="a quoted scraped paragraph", title="Docs"),
        node("m2", "w3", "assistant", "It adds a new REPL.", CREATED + 4))
    receipt = ingest(store, settings, write(tmp_path / "conversations.json", [conv]))
    assert sorted(times(projector)) == ["m1", "m2"]
    assert receipt["files"][0]["skipped"]["scraped-page"] == 3


def test_a_wrapped_list_and_a_single_conversation_are_exports(tmp_path: Path, store: EventStore,
                                                               settings: Settings, projector: Projector) -> None:
    """{"conversations": [...]} imports each conversation; a lone conversation object imports too."""
    one = conversation("w1", node("a", "root", "user", "First wrapped", CREATED))
    two = conversation("w2", node("b", "root", "user", "Second wrapped", CREATED))
    wrapped = ingest(store, settings, write(tmp_path / "wrapped.json", {"conversations": [one, two]}))
    single = ingest(store, settings, write(tmp_path / "single.json",
                                           conversation("s1", node("c", "root", "user", "Alone", CREATED))))
    assert (wrapped["totals"]["conversations_new"], wrapped["totals"]["errors"]) == (2, 0)
    assert (single["totals"]["conversations_new"], single["totals"]["errors"]) == (1, 0)
    assert sorted(times(projector)) == ["a", "b", "c"]
