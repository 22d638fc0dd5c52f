"""Codex CLI, Gemini CLI, OpenCode and Claude Code subagents: what each file holds becomes messages once."""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path

from agents_helpers import (
    CODEX_FORK,
    CODEX_PARENT,
    GEMINI_JSON,
    GEMINI_JSONL,
    SUBAGENT_PROJECT,
    make_opencode_db,
    messages,
    records,
)
from sources_helpers import ingest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.paths import paths_for
from tapestryd.projections import Projector
from tapestryd.sources.inbox import import_inbox_file
from tapestryd.sources.parsers.base import Origin
from tapestryd.sources.parsers.codex import CodexParser
from tapestryd.sources.parsers.detect import detect_format
from tapestryd.sources.parsers.gemini import GeminiParser
from tapestryd.sources.parsers.opencode import open_readonly, read_changes

PREAMBLE = ("<environment_context>", "# AGENTS.md", "<permissions")


def codex_turns(path: Path) -> list[str]:
    """The user and assistant texts of a rollout, read by hand (preamble left out)."""
    texts = []
    for rec in records(path):
        payload = rec["payload"]
        if rec["type"] == "response_item" and payload["type"] == "message" and payload["role"] in ("user", "assistant"):
            text = payload["content"][0]["text"]
            if not text.startswith(PREAMBLE):
                texts.append(text)
    return texts


def test_files_are_told_apart_by_content() -> None:
    """Each new format is detected from its first bytes, never its name."""
    assert detect_format(CODEX_PARENT.read_bytes()[:4096], location="x") == "codex"
    assert detect_format(GEMINI_JSONL.read_bytes()[:4096], location="x") == "gemini"
    assert detect_format(GEMINI_JSON.read_bytes()[:4096], location="x") == "gemini"
    assert detect_format(b"SQLite format 3\x00" + bytes(100), location="x") == "opencode"


def test_codex_messages_equal_the_turns_in_the_file(store: EventStore, settings: Settings,
                                                    projector: Projector) -> None:
    """Every user and assistant turn once: no preamble, no developer instructions, no event_msg copy."""
    receipt = ingest(store, settings, CODEX_PARENT)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "codex")
    assert [text for _, _, text, _ in found] == codex_turns(CODEX_PARENT)
    assert receipt["files"][0]["skipped"]["event"] == 4 and receipt["files"][0]["skipped"]["preamble"] == 2
    assert [role for _, role, _, _ in found] == ["user", "assistant", "user", "assistant"]


def test_codex_user_turn_is_not_doubled_by_its_event_msg() -> None:
    """event_msg.user_message repeats the response_item's user turn: one message, not two."""
    items = list(CodexParser().parse(io.BytesIO(CODEX_PARENT.read_bytes()), Origin("r.jsonl", "", "codex")))
    texts = [i.event.text for i in items if isinstance(i, NewEvent) and isinstance(i.event, MessageRecorded)]
    assert texts.count("Plot both curves for span 100 m.") == 1


def test_codex_fork_keeps_the_earlier_turns_once(store: EventStore, settings: Settings, projector: Projector) -> None:
    """A fork repeats its parent's records: read in either order, each earlier turn is stored once."""
    ingest(store, settings, CODEX_PARENT, CODEX_FORK)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "codex")
    expected = codex_turns(CODEX_PARENT) + codex_turns(CODEX_FORK)[len(codex_turns(CODEX_PARENT)):]
    assert [text for _, _, text, _ in found] == expected and len(found) == 6
    assert {conv for conv, *_ in found[4:]} == {"codex:99999999-8888-4777-8666-555555555555"}
    assert ingest(store, settings, CODEX_FORK, CODEX_PARENT)["totals"]["messages_new"] == 0


def test_codex_fork_read_first_then_parent_adds_nothing_twice(store: EventStore, settings: Settings,
                                                             projector: Projector) -> None:
    """The fork alone holds every turn; its parent read afterwards adds no message."""
    assert ingest(store, settings, CODEX_FORK)["totals"]["messages_new"] == 6
    assert ingest(store, settings, CODEX_PARENT)["totals"]["messages_new"] == 0


def test_codex_tailing_in_pieces_gives_the_ids_of_a_whole_read() -> None:
    """Fed line by line from one state, the parser yields exactly the events of one read."""
    parser, origin = CodexParser(), Origin(str(CODEX_FORK), "", "codex")
    whole = [i.event_id for i in parser.parse(io.BytesIO(CODEX_FORK.read_bytes()), origin) if isinstance(i, NewEvent)]
    state, offset, pieces = parser.begin(origin), 0, []
    for line in CODEX_FORK.read_bytes().splitlines(keepends=True):
        pieces += [i.event_id for i in parser.feed([(offset, line)], origin, state) if isinstance(i, NewEvent)]
        offset += len(line)
    assert pieces == whole


def gemini_expected(path: Path) -> dict[str, str]:
    """Record id → last text of each user/gemini record with text, read by hand (thought parts left out)."""
    last: dict[str, str] = {}
    for rec in records(path):
        if rec.get("type") in ("user", "gemini"):
            content = rec["content"]
            parts = [content] if isinstance(content, str) else content
            text = "".join(p if isinstance(p, str) else p["text"] for p in parts
                           if isinstance(p, str) or not p.get("thought"))
            if text:
                last[rec["id"]] = text
    return last


def test_gemini_edited_records_are_one_message_with_the_last_text(store: EventStore, settings: Settings,
                                                                  projector: Projector) -> None:
    """A record appended again (tokens, tool calls, an edit) is upserted by id: last version wins, never two."""
    ingest(store, settings, GEMINI_JSONL)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "gemini-cli")
    assert [text for _, _, text, _ in found] == list(gemini_expected(GEMINI_JSONL).values())
    assert "Table B, at 4.2 m on the 14th." in [text for _, _, text, _ in found]
    assert ingest(store, settings, GEMINI_JSONL)["totals"]["messages_new"] == 0


def test_gemini_edit_tailed_after_the_first_version_replaces_it(store: EventStore, settings: Settings,
                                                               projector: Projector, tmp_path: Path) -> None:
    """The first version stored and projected, then the edit arrives: still one message, now the edit's text."""
    lines = GEMINI_JSONL.read_bytes().splitlines(keepends=True)
    first = tmp_path / "chat.jsonl"
    first.write_bytes(b"".join(lines[:10]))
    ingest(store, settings, first)
    projector.catch_up()
    first.write_bytes(b"".join(lines))
    ingest(store, settings, first)
    projector.catch_up()
    found = [text for _, _, text, _ in messages(paths_for(settings).projections_db, "gemini-cli")]
    assert found.count("Table B, at 4.2 m on the 14th.") == 1 and "Table B, at 4.2 m." not in found


def test_gemini_older_whole_json_chat_imports(store: EventStore, settings: Settings, projector: Projector) -> None:
    """An older pretty-printed .json chat: its user and gemini records with text; info notices left out."""
    receipt = ingest(store, settings, GEMINI_JSON)
    assert receipt["files"][0]["messages"]["new"] == 3 and receipt["files"][0]["skipped"] == {"info": 1}


def test_gemini_title_comes_from_the_summary(store: EventStore, settings: Settings, projector: Projector) -> None:
    """A $set summary titles the conversation."""
    ingest(store, settings, GEMINI_JSONL)
    projector.catch_up()
    with open_readonly(str(paths_for(settings).projections_db)) as conn:
        title = conn.execute("SELECT title FROM conversations WHERE agent = 'gemini-cli'").fetchone()[0]
    assert title == "Harbour survey tide tables"


def test_gemini_feeding_in_pieces_matches_a_whole_read() -> None:
    """The header's session reaches records fed later from the same state."""
    parser, origin = GeminiParser(), Origin(str(GEMINI_JSONL), "", "gemini-cli")
    whole = [i.event_id for i in parser.parse(io.BytesIO(GEMINI_JSONL.read_bytes()), origin) if isinstance(i, NewEvent)]
    state, offset, pieces = parser.begin(origin), 0, []
    for line in GEMINI_JSONL.read_bytes().splitlines(keepends=True):
        pieces += [i.event_id for i in parser.feed([(offset, line)], origin, state) if isinstance(i, NewEvent)]
        offset += len(line)
    assert pieces == whole


def test_opencode_messages_equal_its_text_parts(store: EventStore, settings: Settings, projector: Projector,
                                                tmp_path: Path) -> None:
    """Completed messages with non-synthetic text parts; the subagent session's marked; nothing written to it."""
    db = make_opencode_db(tmp_path / "opencode.db")
    before = db.read_bytes()
    receipt = ingest(store, settings, db)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "opencode")
    with open_readonly(str(db)) as conn:
        expected = conn.execute("SELECT COUNT(DISTINCT p.message_id) FROM part p JOIN message m ON m.id = p.message_id"
                                " WHERE json_extract(p.data, '$.type') = 'text'"
                                " AND json_extract(p.data, '$.synthetic') IS NULL"
                                " AND (json_extract(m.data, '$.role') = 'user'"
                                " OR json_extract(m.data, '$.time.completed') IS NOT NULL)").fetchone()[0]
    assert len(found) == expected == 5 and receipt["files"][0]["skipped"]["in-progress"] == 1
    assert [side for conv, _, _, side in found if conv == "opencode:ses_sub"] == [1]
    assert db.read_bytes() == before


def test_opencode_changes_resume_from_a_position(tmp_path: Path) -> None:
    """read_changes from the returned position gives back only what changed since (and what still streams)."""
    db = make_opencode_db(tmp_path / "opencode.db")
    origin = Origin(str(db), "", "opencode")
    with open_readonly(str(db)) as conn:
        first = read_changes(conn, origin, 0)
    assert first.position == 1772700096000  # held at the message still streaming
    with open_readonly(str(db)) as conn:
        again = read_changes(conn, origin, first.position)
    assert [type(i).__name__ for i in again.items] == ["Skip"]


def test_subagent_files_stay_under_their_parent_marked(store: EventStore, settings: Settings,
                                                       projector: Projector, tmp_path: Path) -> None:
    """agent-*.jsonl lines join the parent session as subagent messages, even one without isSidechain."""
    project = tmp_path / "projects" / SUBAGENT_PROJECT.name
    shutil.copytree(SUBAGENT_PROJECT, project)
    ingest(store, settings, project.parent)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "claude-code")
    assert {conv for conv, *_ in found} == {"claude-code:7a7a7a7a-0000-4000-8000-00000000000b"}
    marked = sorted(text for _, _, text, side in found if side)
    assert len(marked) == 3 and marked[-1].startswith("The integral accumulator")


def test_the_inbox_takes_every_new_format(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """A rollout, a Gemini chat, an OpenCode database and a project folder with a subagent file, dropped in the
    inbox, each import and are filed under processed/."""
    inbox = settings.sources.inbox
    inbox.mkdir(parents=True)
    for source in (CODEX_PARENT, GEMINI_JSONL, GEMINI_JSON):
        shutil.copy(source, inbox / source.name)
    make_opencode_db(inbox / "opencode.db")
    shutil.copytree(SUBAGENT_PROJECT, inbox / SUBAGENT_PROJECT.name)
    outcomes = {p.name: import_inbox_file(store, p, settings=settings) for p in sorted(inbox.iterdir())}
    assert all(o.ok and "processed" in o.moved_to for o in outcomes.values()), outcomes
    assert {name: (o.receipt or {}).get("messages", {}).get("new") for name, o in outcomes.items()} == {
        CODEX_PARENT.name: 4, GEMINI_JSONL.name: 4, GEMINI_JSON.name: 3, "opencode.db": 5, SUBAGENT_PROJECT.name: 6}


def test_a_gemini_subagent_chat_joins_its_parent_conversation(store: EventStore, settings: Settings,
                                                              projector: Projector, tmp_path: Path) -> None:
    """chats/<parent>/<id>.jsonl with kind subagent: its messages are the parent's, marked as a subagent's."""
    parent = records(GEMINI_JSONL)[0]["sessionId"]
    sub = tmp_path / "chats" / parent / "sub-1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_text('{"sessionId": "sub-1", "projectHash": "9f2c4e1a", "kind": "subagent"}\n'
                   '{"id": "s1", "timestamp": "2026-03-04T08:00:30.000Z", "type": "gemini", "content": "tide B"}\n')
    ingest(store, settings, GEMINI_JSONL, sub)
    projector.catch_up()
    found = messages(paths_for(settings).projections_db, "gemini-cli")
    assert {conv for conv, *_ in found} == {f"gemini:{parent}"}
    assert [text for _, _, text, side in found if side] == ["tide B"]


def test_an_older_opencode_database_without_change_times_is_read(store: EventStore, settings: Settings,
                                                                tmp_path: Path) -> None:
    """Tables without time_updated (message with created_at only, part with no times): read whole, once."""
    db = tmp_path / "opencode.db"
    with sqlite3.connect(db) as conn:
        conn.executescript("""
            CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT);
            CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, created_at INTEGER, data TEXT);
            CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT);
            INSERT INTO session VALUES ('s', 'Old one');
            INSERT INTO message VALUES ('m1', 's', 1772700000000, '{"role": "user"}');
            INSERT INTO part VALUES ('p1', 'm1', 's', '{"type": "text", "text": "an old question"}');""")
    conn.close()
    assert ingest(store, settings, db)["totals"]["messages_new"] == 1
    with open_readonly(str(db)) as conn:
        assert len([i for i in read_changes(conn, Origin(str(db), "", "opencode"), 0).items
                    if isinstance(i, NewEvent)]) == 2  # its title and its message
