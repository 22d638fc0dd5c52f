"""One Claude Code reply written over several records sharing ``message.id``: one message, each
block once, timed by its first record, filtered as a whole, and the same when tailed in pieces."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.projections import Projector
from tapestryd.sources.tailer import Tailer

SESSION = "5e55-0000-4000-8000-00000000000a"


def record(uuid: str, ts: str, *blocks: dict[str, Any], msg_id: str = "msg_1", role: str = "assistant") -> str:
    """One Claude Code line: an assistant record of ``msg_id`` holding ``blocks``."""
    message = {"id": msg_id, "role": role, "model": "claude-x", "content": list(blocks)}
    return json.dumps({"type": role, "sessionId": SESSION, "uuid": uuid, "timestamp": ts, "message": message})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


PROMPT = json.dumps({"type": "user", "sessionId": SESSION, "uuid": "u1", "timestamp": "2026-03-01T23:59:00Z",
                     "message": {"role": "user", "content": "How do I rotate the vault key?"}})


def write(path: Path, *lines: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(line + "\n" for line in lines)
    return path


def reply_text(conn: sqlite3.Connection, key: str = "msg_1") -> str:
    (found,), = rows(conn, "SELECT text FROM messages WHERE message_key = ?", key)
    return str(found)


def test_a_block_repeated_by_a_later_record_is_kept_once(tmp_path: Path, store: EventStore, settings: Settings,
                                                         projector: Projector) -> None:
    """A record repeating a text block, and a snapshot holding every block so far, add only what is new."""
    session = write(tmp_path / "projects" / "p" / f"{SESSION}.jsonl", PROMPT,
                    record("a1", "2026-03-02T10:00:00Z", text("Alpha.")),
                    record("a2", "2026-03-02T10:00:01Z", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
                    record("a3", "2026-03-02T10:00:02Z", text("Alpha.")),
                    record("a4", "2026-03-02T10:00:03Z", text("Alpha."), text("Beta.")))
    receipt = ingest(store, settings, session)
    projector.catch_up()
    assert receipt["files"][0]["messages"] == {"new": 2, "known": 0}
    assert reply_text(projector.conn) == "Alpha.\n\nBeta."


def test_a_reply_crossing_midnight_stays_on_the_day_it_started(tmp_path: Path, store: EventStore,
                                                               settings: Settings, projector: Projector) -> None:
    """The message's time is its first record's (a thinking block at 23:59:58), not its text record's."""
    session = write(tmp_path / "projects" / "p" / f"{SESSION}.jsonl", PROMPT,
                    record("a1", "2026-03-01T23:59:58Z", {"type": "thinking", "thinking": "hmm"}),
                    record("a2", "2026-03-02T00:00:03Z", text("Run the rotate command.")))
    ingest(store, settings, session)
    projector.catch_up()
    assert rows(projector.conn, "SELECT ts FROM messages WHERE message_key = 'msg_1'") == [
        ("2026-03-01T23:59:58.000000Z",)]
    assert {key for (key,) in rows(projector.conn, "SELECT key FROM nodes WHERE level = 0")} == {
        f"L0:claude-code:2026-03-01:claude-code:{SESSION}"}


def test_a_private_span_and_a_secret_split_across_records_stay_hidden(tmp_path: Path, store: EventStore,
                                                                      settings: Settings,
                                                                      projector: Projector) -> None:
    """Each part alone would show the span's end and the token; the joined message shows neither."""
    token = "Zq8xK2mP9vL4tR7wN1cB6yH3jF5dG0sA"
    session = write(tmp_path / "projects" / "p" / f"{SESSION}.jsonl", PROMPT,
                    record("a1", "2026-03-02T10:00:00Z", text("The code is <private>4312")),
                    record("a2", "2026-03-02T10:00:01Z",
                           text("9876</private> and then call with Authorization: Bearer")),
                    record("a3", "2026-03-02T10:00:02Z", text(f"{token} as the header.")))
    ingest(store, settings, session)
    projector.catch_up()
    stored = reply_text(projector.conn)
    assert "9876" not in stored and token not in stored and "[secret:bearer-token]" in stored
    assert rows(projector.conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH '9876'") == []


def dump(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
    return rows(conn, "SELECT conversation, message_key, seq, role, ts, text, skipped, parts FROM messages ORDER BY id")


def test_a_reply_tailed_in_separate_appends_grows_and_rebuilds_identically(tmp_path: Path, store: EventStore,
                                                                           projector: Projector) -> None:
    """Records of one reply arriving in three appends join as they come; the private span stays
    hidden, reading the file again adds nothing, and a rebuild gives the same rows."""
    path = tmp_path / "projects" / "p" / f"{SESSION}.jsonl"
    tailer = Tailer(store, agent="claude-code")
    write(path, PROMPT, record("a1", "2026-03-02T10:00:00Z", text("Step one. <private>pin 4312")))
    tailer.tail(str(path))
    projector.catch_up()
    assert reply_text(projector.conn) == "Step one. "
    write(path, record("a2", "2026-03-02T10:00:01Z", text("and 9876</private> Step two.")))
    tailer.tail(str(path))
    projector.catch_up()
    write(path, record("a3", "2026-03-02T10:00:02Z", text("Step one. <private>pin 4312")))
    tailer.tail(str(path))
    projector.catch_up()
    assert reply_text(projector.conn) == "Step one.  Step two."
    assert rows(projector.conn, "SELECT message_count FROM conversations") == [(2,)]
    copy = path.with_suffix(".copy")
    copy.write_bytes(path.read_bytes())
    copy.replace(path)  # a new inode: the file is read again from byte 0
    again = tailer.tail(str(path))
    assert again.restarted and (again.new, again.known) == (0, 5)  # 4 messages' events and the prompt's title
    incremental = dump(projector.conn)
    projector.rebuild()
    assert dump(projector.conn) == incremental


def test_a_part_after_a_replacing_version_joins_that_version(tmp_path: Path, store: EventStore,
                                                             projector: Projector) -> None:
    """A source that rewrites a message (meta.replaces) and then adds a part: the old text does not come back,
    in the batch or after it, and a rebuild agrees."""
    from datetime import datetime, timezone

    from tapestryd.events.types import MessageRecorded, NewEvent

    def part(n: int, text: str, **meta: Any) -> NewEvent:
        msg = MessageRecorded("gemini:s", "r1", "assistant", text, "2026-03-02T10:00:00.000000Z", meta=meta)
        return NewEvent(f"e{n}", msg, datetime(2026, 3, 2, 10, tzinfo=timezone.utc), "gemini", f"s#{n}")

    store.append([part(1, "Draft one."), part(2, "Final answer.", replaces=True)])
    projector.catch_up()
    store.append([part(3, "Appendix.")])
    projector.catch_up()
    assert reply_text(projector.conn, "r1") == "Final answer.\n\nAppendix."
    incremental = dump(projector.conn)
    projector.rebuild()
    assert dump(projector.conn) == incremental
