"""Claude Code sessions: streamed replies, tailing, ids that survive copies, and bad lines."""

from __future__ import annotations

import json
from pathlib import Path

from sources_helpers import SESSION, SESSION_ID, ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent
from tapestryd.projections import Projector
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip
from tapestryd.sources.parsers.claude_code import ClaudeCodeParser

PARSER = ClaudeCodeParser()
CONV = f"claude-code:{SESSION_ID}"


def parse_bytes(data: bytes, path: str = "s.jsonl") -> list[Item]:
    import io

    return list(PARSER.parse(io.BytesIO(data), Origin(path, "sha", "claude-code")))


def lines_with_offsets(data: bytes) -> list[tuple[int, bytes]]:
    out, offset = [], 0
    for line in data.splitlines(keepends=True):
        out.append((offset, line))
        offset += len(line)
    return out


def events(items: list[Item]) -> list[NewEvent]:
    return [i for i in items if isinstance(i, NewEvent)]


def test_streamed_reply_becomes_one_message(store: EventStore, settings: Settings, projector: Projector) -> None:
    """Lines sharing message.id (thinking, text, text, tool_use) are one message, parts joined in order."""
    receipt = ingest(store, settings, SESSION)
    projector.catch_up()
    assert receipt["files"][0]["messages"] == {"new": 6, "known": 0}
    (text, skipped), = rows(projector.conn, "SELECT text, skipped FROM messages WHERE message_key = 'msg_A'")
    assert text == "It races with the fixture teardown.\n\nLet me check the fixture."
    assert receipt["files"][0]["skipped"] == {"thinking": 1, "tool_use": 1, "tool_result": 1, "meta": 1}
    assert json.loads(skipped) == {}


def test_same_text_twice_is_two_messages(store: EventStore, settings: Settings, projector: Projector) -> None:
    """Asking the same question twice keeps both turns, in order."""
    ingest(store, settings, SESSION)
    projector.catch_up()
    found = rows(projector.conn, "SELECT message_key FROM messages WHERE text = ? ORDER BY id",
                 "Why does test_upload fail on CI?")
    assert found == [("u1",), ("u3",)]


def test_session_details_are_kept(store: EventStore, settings: Settings, projector: Projector) -> None:
    """Title from the leading summary line, cwd, branch, sidechain and agent id survive."""
    ingest(store, settings, SESSION)
    projector.catch_up()
    conv = rows(projector.conn, "SELECT title, cwd, git_branch, session, message_count FROM conversations")
    assert conv == [("Fixing the flaky upload test", "/home/sam/proj", "main", SESSION_ID, 6)]
    side = rows(projector.conn, "SELECT sidechain, meta FROM messages WHERE message_key = 'msg_B'")
    assert side[0][0] == 1 and json.loads(side[0][1])["agent_id"] == "agent-7"


def test_is_meta_null_is_a_message_and_true_is_skipped() -> None:
    """isMeta:null is false (the line is a turn); isMeta:true is a Skip."""
    items = parse_bytes(SESSION.read_bytes())
    texts = [e.event.text for e in events(items) if isinstance(e.event, MessageRecorded)]
    assert "Thanks, that fixed it." in texts and not any("local-command-caveat" in t for t in texts)
    assert [s.reason for s in items if isinstance(s, Skip)].count("meta") == 1


def test_tailing_in_pieces_gives_the_ids_of_a_whole_read() -> None:
    """parse_lines over any split of the file gives the ids and sources of parse() on the whole file.

    Each read offers its first prompt as the session's stand-in title under one event id: the
    log keeps the first event of an id, so what is stored is the whole read's."""
    data = SESSION.read_bytes()
    whole = [(e.event_id, e.source) for e in events(parse_bytes(data, "/p/s.jsonl"))]
    lines = lines_with_offsets(data)
    for cut in (1, 4, 9):
        origin = Origin("/p/s.jsonl", "", "claude-code")
        pieces = [list(PARSER.parse_lines(part, origin, SESSION_ID)) for part in (lines[:cut], lines[cut:])]
        stored: dict[str, str] = {}
        for e in (e for part in pieces for e in events(part)):
            stored.setdefault(e.event_id, e.source)
        assert list(stored.items()) == whole


def test_a_copy_elsewhere_has_the_same_ids() -> None:
    """Ids depend on session and uuid (or offset), not on where the file lives."""
    data = SESSION.read_bytes()
    here = {e.event_id for e in events(parse_bytes(data, "/home/a/s.jsonl"))}
    there = {e.event_id for e in events(parse_bytes(data, "/backup/b/copy.jsonl"))}
    assert here == there and len(here) == 9  # 7 message events, the summary title and the first prompt's


def test_line_without_uuid_or_message_id_is_keyed_by_offset() -> None:
    """The last fixture line has neither uuid nor message.id: its key is its byte offset."""
    data = SESSION.read_bytes()
    offset = data.rindex(b'{"type":"assistant","sessionId"')
    last = events(parse_bytes(data))[-1].event
    assert isinstance(last, MessageRecorded) and last.message == f"@{offset}"


def test_summary_before_any_session_titles_the_file_session() -> None:
    """A summary on the first line waits for the session the file names."""
    titles = [e.event for e in events(parse_bytes(SESSION.read_bytes())) if isinstance(e.event, ConversationTitled)]
    assert [t for t in titles if t.kind != "prompt"] == [ConversationTitled(CONV, "Fixing the flaky upload test")]


def test_unfinished_last_line_is_not_an_error_and_imports_once_complete(store: EventStore,
                                                                       settings: Settings, tmp_path: Path) -> None:
    """A half-written last line is skipped quietly; when finished, the next import adds it."""
    complete = SESSION.read_bytes()
    head, last = complete[: complete.rindex(b"\n", 0, -1) + 1], complete[complete.rindex(b"\n", 0, -1) + 1:]
    session = tmp_path / f"{SESSION_ID}.jsonl"
    session.write_bytes(head + last[:30])
    first = ingest(store, settings, session)
    assert first["totals"]["errors"] == 0 and first["files"][0]["skipped"]["unfinished-line"] == 1
    session.write_bytes(complete)
    second = ingest(store, settings, session)
    assert second["files"][0]["messages"] == {"new": 1, "known": 5}


def test_bad_lines_are_located_and_the_rest_imports() -> None:
    """Broken JSON, non-UTF-8 bytes, wrong types and missing fields are Problems with their line."""
    good = (b'{"type":"user","sessionId":"s","uuid":"ok","timestamp":"2026-01-01T00:00:00Z",'
            b'"message":{"content":"fine"}}\n')
    bad = [
        b'{"type":"user","sessionId":"s","uuid":"x1",\n',
        b'{"type":"user","sessionId":"s","uuid":"x2","timestamp":"2026-01-01T00:00:00Z","message":{"content":"\xff\xfe"}}\n',
        b'{"type":"user","sessionId":"s","uuid":"x3","timestamp":"yesterday","message":{"content":"when?"}}\n',
        b'{"type":"user","sessionId":"s","uuid":"x4","message":{"content":"no time"}}\n',
        b'{"type":"assistant","sessionId":"s","uuid":"x5","timestamp":"2026-01-01T00:00:00Z","message":{"content":7}}\n',
        b'{"type":["user"],"sessionId":"s"}\n',
        b'{"type":"user","sessionId":"s","uuid":"x6","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"text","text":5}]}}\n',
        b"[" * 5000 + b"]" * 5000 + b"\n",
    ]
    items = parse_bytes(good + b"".join(bad) + good.replace(b'"ok"', b'"ok2"'))
    problems = [p for p in items if isinstance(p, Problem)]
    assert [p.location for p in problems] == [f"s.jsonl:line {n}" for n in range(2, 10)]
    assert "not UTF-8" in problems[1].message and "not ISO 8601" in problems[2].message
    assert "timestamp is missing" in problems[3].message and "nested too deeply" in problems[7].message
    assert len([e for e in events(items) if isinstance(e.event, MessageRecorded)]) == 2


def test_untyped_and_unknown_records_are_skipped_not_errors() -> None:
    """Usage-only lines, file-history snapshots, queue operations and future types are Skips."""
    data = b"".join(json.dumps(r).encode() + b"\n" for r in (
        {"sessionId": "s", "message": {"usage": {}}},
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "queue-operation", "sessionId": "s", "content": "x"},
        {"type": "hologram", "sessionId": "s"},
        {"type": "system", "sessionId": "s", "content": "compacted"},
    ))
    items = parse_bytes(data)
    assert [i.reason for i in items if isinstance(i, Skip)] == [
        "untyped", "file-history-snapshot", "queue-operation", "unknown-type", "system"]
    assert len(items) == 5
