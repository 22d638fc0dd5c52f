"""ChatGPT and Claude.ai exports: visible branch, times, content kinds, attachments, side files."""

from __future__ import annotations

import io
import json
from pathlib import Path

from sources_helpers import CHATGPT, CLAUDE_AI, FIXTURES, ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.projections import Projector
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip
from tapestryd.sources.parsers.chatgpt import ChatGPTParser
from tapestryd.sources.parsers.claude_ai import ClaudeAIParser


def parse(parser: ChatGPTParser | ClaudeAIParser, data: bytes) -> list[Item]:
    return list(parser.parse(io.BytesIO(data), Origin("export.json", "sha", parser.name)))


def messages(items: list[Item]) -> list[MessageRecorded]:
    return [i.event for i in items if isinstance(i, NewEvent) and isinstance(i.event, MessageRecorded)]


def test_chatgpt_walks_the_visible_branch(store: EventStore, settings: Settings, projector: Projector) -> None:
    """current_node's branch only: the regenerated answer, hidden system and web call are skipped."""
    receipt = ingest(store, settings, CHATGPT)
    projector.catch_up()
    found = rows(projector.conn,
                 "SELECT message_key, role FROM messages WHERE conversation = 'chatgpt:c-rope' ORDER BY id")
    assert found == [("n2", "user"), ("n3", "assistant"), ("n4", "user"), ("n6", "assistant")]
    assert receipt["files"][0]["skipped"] == {"other-branch": 1, "hidden": 1, "tool-call": 1, "image": 1}


def test_chatgpt_null_create_time_takes_the_previous_time() -> None:
    """n3 has create_time null: it takes n2's time (epoch seconds → UTC)."""
    found = {m.message: m.timestamp for m in messages(parse(ChatGPTParser(), CHATGPT.read_bytes()))}
    assert found["n2"] == found["n3"] == "2026-01-01T00:00:00.000000Z"
    assert found["n6"] == "2026-01-01T00:02:10.000000Z"


def test_chatgpt_notes_images_and_attachments() -> None:
    """An image part is counted, the attachment named, the text part kept."""
    garden = [m for m in messages(parse(ChatGPTParser(), CHATGPT.read_bytes())) if m.message == "g1"][0]
    assert garden.text == "Plan the garden beds around this sketch."
    assert garden.skipped == {"image": 1} and garden.meta["attachments"] == ["sketch.png"]


def test_chatgpt_single_object_and_list_give_the_same_messages() -> None:
    """The web API shape (one object) imports like the export (a list)."""
    export = json.loads(CHATGPT.read_bytes())
    as_list = messages(parse(ChatGPTParser(), json.dumps(export[:1]).encode()))
    as_object = messages(parse(ChatGPTParser(), json.dumps(export[0]).encode()))
    assert as_list == as_object and len(as_list) == 4


def test_chatgpt_without_current_node_or_children_falls_back_to_the_latest_leaf() -> None:
    """With current_node and children removed, the walk starts from the newest leaf."""
    export = json.loads(CHATGPT.read_bytes())
    conv = export[0]
    del conv["current_node"]
    for node in conv["mapping"].values():
        node.pop("children", None)
    conv["mapping"]["old"]["message"]["create_time"] = 1.0
    keys = [m.message for m in messages(parse(ChatGPTParser(), json.dumps([conv]).encode()))]
    assert keys == ["n2", "n3", "n4", "n6"]


def test_chatgpt_truncated_export_keeps_what_came_before(store: EventStore, settings: Settings,
                                                        tmp_path: Path) -> None:
    """A cut file imports the whole conversations before the cut and says where it broke."""
    data = CHATGPT.read_bytes()
    cut = tmp_path / "conversations.json"
    cut.write_bytes(data[: data.index(b'"title": "Garden beds"') + 40])
    receipt = ingest(store, settings, cut)
    assert receipt["files"][0]["messages"]["new"] == 4 and not receipt["failed"]
    assert receipt["files"][0]["errors"][0].startswith(f"{cut}: JSON breaks after conversation 1")


def test_chatgpt_wrong_types_and_missing_fields_are_located() -> None:
    """A conversation that is a string, one without mapping, a node without author: Problems."""
    export = json.loads(CHATGPT.read_bytes())
    export[0]["mapping"]["n4"]["message"]["author"] = "user"
    broken = ["not a conversation", {"id": "no-mapping", "title": "x"}, 42, None, *export]
    items = parse(ChatGPTParser(), json.dumps(broken).encode())
    problems = [str(p) for p in items if isinstance(p, Problem)]
    assert problems == ["export.json#conversation 1: not a JSON object (a string)",  # JSON's words, not Python's
                        "export.json#no-mapping: conversation has no mapping of messages",
                        "export.json#conversation 3: not a JSON object (a number)",
                        "export.json#conversation 4: not a JSON object (null)",
                        "export.json#c-rope/n4: message has no author role"]
    assert len(messages(items)) == 5


def test_non_utf8_bytes_are_replaced_and_reported() -> None:
    """One bad byte in a JSON export is reported with its offset; every conversation still imports."""
    data = CHATGPT.read_bytes().replace(b"Take three strands.", b"Take three strands\xff")
    items = parse(ChatGPTParser(), data)
    problems = [p for p in items if isinstance(p, Problem)]
    assert len(problems) == 1 and "not UTF-8" in problems[0].message and "byte " in problems[0].message
    assert "Take three strands\ufffd" in [m.text for m in messages(items)]
    assert len(messages(items)) == 6


def test_claude_ai_orders_by_time_and_maps_senders(store: EventStore, settings: Settings,
                                                   projector: Projector) -> None:
    """Out-of-order chat_messages are sorted by created_at; human → user; the name is the title."""
    ingest(store, settings, CLAUDE_AI)
    projector.catch_up()
    found = rows(projector.conn, "SELECT message_key, role FROM messages ORDER BY id")
    assert found == [("t1", "user"), ("t2", "assistant"), ("t3", "user"), ("t4", "assistant")]
    assert rows(projector.conn, "SELECT title FROM conversations") == [("Green tea temperature",)]


def test_claude_ai_attachment_text_is_a_part_of_its_message(store: EventStore, settings: Settings,
                                                            projector: Projector) -> None:
    """The extracted text of an attachment joins its message, after the typed text."""
    ingest(store, settings, CLAUDE_AI)
    projector.catch_up()
    (text,), = rows(projector.conn, "SELECT text FROM messages WHERE message_key = 't3'")
    assert text == "Here is my brewing log.\n\n[attachment: log.txt]\nDay 1: 90 C, bitter. Day 2: 75 C, sweet."


def test_claude_ai_thinking_and_tools_are_counted_not_kept() -> None:
    """Thinking is skipped and counted; tool use and results are noted in skipped."""
    found = {m.message: m for m in messages(parse(ClaudeAIParser(), CLAUDE_AI.read_bytes()))}
    assert found["t2"].text == "About 70 to 80 °C; boiling water makes it bitter."
    assert found["t2"].skipped == {"thinking": 1}
    assert found["t4"].skipped == {"tool_use": 1, "tool_result": 1}


def test_claude_ai_side_files_are_ignored_without_error(store: EventStore, settings: Settings) -> None:
    """users.json, projects.json and memories.json import nothing and report no error."""
    side = [FIXTURES / "claude-ai" / n for n in ("users.json", "projects.json", "memories.json")]
    receipt = ingest(store, settings, *side)
    assert receipt["totals"]["errors"] == 0 and not receipt["failed"]
    assert [f["skipped"] for f in receipt["files"]] == [{"export-metadata": 1}] * 3
    folder = ingest(store, settings, FIXTURES / "claude-ai")
    assert folder["totals"]["files"] == 1 and folder["totals"]["skipped"]["export-metadata"] == 3


def test_claude_ai_bad_messages_are_located() -> None:
    """A message without sender, one with a bad time, a block of the wrong type: Problems by uuid."""
    export = json.loads(CLAUDE_AI.read_bytes())
    chat = export[0]["chat_messages"]
    del chat[0]["sender"]
    chat[1]["created_at"] = "tea time"
    chat[2]["content"] = [["not a block"]]
    chat[3]["sender"] = None
    export[0]["created_at"] = export[0]["updated_at"] = None
    items = parse(ClaudeAIParser(), json.dumps(export).encode())
    problems = sorted(str(p) for p in items if isinstance(p, Problem))
    assert problems == ["export.json#conv-tea/t1: created_at 'tea time' is not ISO 8601",
                        "export.json#conv-tea/t2: sender is missing; expected 'human' or 'assistant'",
                        "export.json#conv-tea/t3: content block 0 is a list, not an object",
                        "export.json#conv-tea/t4: sender is null; expected 'human' or 'assistant'"]
    assert [m.message for m in messages(items)] == []
    assert not any(isinstance(i, Skip) and i.reason == "empty" for i in items)


def test_claude_ai_a_repeated_message_uuid_is_reported_unless_the_message_is_the_same() -> None:
    """Two messages of a conversation with one uuid share one event id, so the log kept the first alone and the
    receipt said nothing (a user's question and its answer under one uuid: the answer was lost silently). Now a
    repeat with other content is a Problem naming both; an exact repeat is skipped and counted."""
    export = json.loads(CLAUDE_AI.read_bytes())
    chat = export[0]["chat_messages"]
    chat.append({**chat[0]})  # the same message again
    chat.append({**chat[1], "uuid": chat[0]["uuid"]})  # another message under the first one's uuid
    items = parse(ClaudeAIParser(), json.dumps(export).encode())
    problems = [str(p) for p in items if isinstance(p, Problem)]
    n = len(chat)
    assert problems == [f"export.json#conv-tea/{chat[0]['uuid']}: message {n} has the uuid of message 1 but other "
                        "content: only message 1 is stored"]
    assert [i.reason for i in items if isinstance(i, Skip) and i.reason == "repeated-uuid"] == ["repeated-uuid"]
    stored = [m for m in messages(items) if m.message == chat[0]["uuid"]]
    assert {m.message for m in messages(items)} == {m["uuid"] for m in chat[: n - 2]}
    assert [m.role for m in stored] == ["assistant"]  # the first t2 (the answer), not the question filed under it
