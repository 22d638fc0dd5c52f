"""Claude.ai messages that are only files or images, and <antThinking> spans inside replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.codec import decode
from tapestryd.events.store import EventStore
from tapestryd.events.types import MessageRecorded
from tapestryd.projections import Projector

CONV = "c0ffee00-0000-4000-8000-000000000001"


def message(uuid: str, sender: str, text: str, minute: int, **fields: Any) -> dict[str, Any]:
    return {"uuid": uuid, "sender": sender, "text": text, "content": [{"type": "text", "text": text}] if text else [],
            "created_at": f"2024-10-01T10:{minute:02d}:00Z", **fields}


def export(tmp_path: Path, *messages: dict[str, Any]) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"uuid": CONV, "name": "Trip", "created_at": "2024-10-01T10:00:00Z",
                                 "updated_at": "2024-10-01T11:00:00Z", "chat_messages": list(messages)}]))
    return path


def stored(projector: Projector) -> dict[str, tuple[str, dict[str, Any], dict[str, int]]]:
    projector.catch_up()
    return {key: (text, json.loads(meta), json.loads(skipped))
            for key, text, meta, skipped in rows(projector.conn,
                                                 "SELECT message_key, text, meta, skipped FROM messages")}


def test_a_message_of_only_files_is_kept_with_their_names(tmp_path: Path, store: EventStore, settings: Settings,
                                                          projector: Projector) -> None:
    """An image, a file without extracted text, an image block: placeholders naming each, searchable."""
    path = export(tmp_path,
                  message("m1", "human", "", 1, files=[{"file_name": "beach.jpg", "file_kind": "image"}]),
                  message("m2", "human", "", 2, attachments=[{"file_name": "itinerary.pdf", "file_size": 10}]),
                  message("m3", "human", "", 3, content=[{"type": "image"}]),
                  message("m4", "assistant", "Nice photos.", 4))
    receipt = ingest(store, settings, path)
    found = stored(projector)
    assert receipt["files"][0]["messages"]["new"] == 4
    assert {k: v[0] for k, v in found.items()} == {"m1": "[image: beach.jpg]", "m2": "[file: itinerary.pdf]",
                                                   "m3": "[image]", "m4": "Nice photos."}
    assert rows(projector.conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'itinerary'") != []


def test_ant_thinking_spans_are_thinking_not_reply_text(tmp_path: Path, store: EventStore, settings: Settings,
                                                        projector: Projector) -> None:
    """The span leaves the stored text (search, summaries, context) and stays in the log as meta."""
    reply = ("<antThinking>The user wants a packing list; an artifact fits.</antThinking>\n"
             "Here is your packing list.")
    ingest(store, settings, export(tmp_path, message("m1", "human", "Packing list please", 1),
                                   message("m2", "assistant", reply, 2)))
    text, meta, skipped = stored(projector)["m2"]
    assert text == "Here is your packing list."
    assert meta["thinking"] == ["The user wants a packing list; an artifact fits."] and skipped == {"thinking": 1}
    assert rows(projector.conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'artifact'") == []
    logged = [e.event for e in store.read() if isinstance(e.event, MessageRecorded) and e.event.message == "m2"]
    assert logged[0].meta["thinking"] == meta["thinking"]


def test_a_reply_logged_before_schema_2_is_read_without_its_thinking() -> None:
    """An old log's Claude.ai reply (schema 1, span inside text) is upcast on read; other agents' text is untouched."""
    old = {"conversation": f"claude-ai:{CONV}", "message": "m2", "role": "assistant",
           "text": "<antThinking>plan</antThinking>Done.", "timestamp": "2024-10-01T10:02:00.000000Z"}
    upcast = decode("MessageRecorded", 1, json.dumps(old))
    assert isinstance(upcast, MessageRecorded)
    assert (upcast.text, upcast.meta, upcast.skipped) == ("Done.", {"thinking": ["plan"]}, {"thinking": 1})
    other = decode("MessageRecorded", 1, json.dumps({**old, "conversation": "claude-code:s"}))
    assert isinstance(other, MessageRecorded) and other.text == old["text"]
