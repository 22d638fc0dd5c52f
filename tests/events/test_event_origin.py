"""The origin of events: the machine that captured each one, recorded, migrated and carried unchanged."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc

T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
LATER = datetime(2026, 3, 5, 1, 2, 3, 456789, tzinfo=timezone.utc)

OLD_SCHEMA = [  # the event log as tapestryd wrote it before origins (commit 870a3aa)
    """CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)""",
    """CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL, schema INTEGER NOT NULL, occurred_at TEXT NOT NULL, recorded_at TEXT NOT NULL,
        agent TEXT NOT NULL, source TEXT NOT NULL, payload TEXT NOT NULL)""",
    "CREATE INDEX events_type_seq ON events(type, seq)",
    """CREATE TABLE source_offsets (path TEXT PRIMARY KEY, offset INTEGER NOT NULL, inode INTEGER NOT NULL,
        size INTEGER NOT NULL, updated_at TEXT NOT NULL)""",
    "INSERT INTO migrations VALUES ('_create_events', '2026-01-01 00:00:00'),"
    " ('_create_source_offsets', '2026-01-01 00:00:00')",
]


def message(n: int, **envelope: object) -> NewEvent:
    body = MessageRecorded(conversation="chatgpt:c1", message=f"m{n}", role="user", text=f"hello {n}",
                           timestamp=format_utc(T0))
    return NewEvent(event_id("origin-test", str(n)), body, T0, agent="chatgpt", source=f"export#{n}",
                    **envelope)  # type: ignore[arg-type]


def old_log(path: Path, events: int) -> None:
    """An events.db with the schema and rows of a log written before origins existed."""
    conn = sqlite3.connect(path)
    for statement in OLD_SCHEMA:
        conn.execute(statement)
    conn.executemany("INSERT INTO events (event_id, type, schema, occurred_at, recorded_at, agent, source, payload)"
                     " VALUES (?, 'MessageRecorded', 2, ?, ?, 'chatgpt', ?, ?)",
                     [(event_id("old", str(n)), format_utc(T0), format_utc(T0), f"old#{n}",
                       f'{{"conversation":"chatgpt:old","message":"m{n}","role":"user","text":"old {n}",'
                       f'"timestamp":"{format_utc(T0)}"}}') for n in range(events)])
    conn.commit()
    conn.close()


def test_an_event_appended_here_gets_this_machines_name(tmp_path: Path) -> None:
    """An event without an origin was captured by the store's machine."""
    with EventStore(tmp_path / "events.db", machine="laptop") as store:
        store.append([message(1)])
        assert [e.origin for e in store.read()] == ["laptop"]


def test_an_event_from_another_machine_keeps_its_origin_and_times(tmp_path: Path) -> None:
    """Sync carries origin, occurred_at and recorded_at unchanged; the seq is the receiving log's."""
    with EventStore(tmp_path / "desk.db", machine="desk") as desk:
        desk.append([message(1), message(2)])
        copied = [e.as_new() for e in desk.read()]
        originals = list(desk.read())
    with EventStore(tmp_path / "laptop.db", machine="laptop") as laptop:
        laptop.append([message(9)])
        laptop.append(copied)
        got = {e.event_id: e for e in laptop.read()}
    for ev in originals:
        assert (got[ev.event_id].origin, got[ev.event_id].occurred_at, got[ev.event_id].recorded_at) == \
            ("desk", ev.occurred_at, ev.recorded_at)
        assert got[ev.event_id].event == ev.event
    assert got[message(9).event_id].origin == "laptop"


def test_a_given_recorded_at_is_stored_as_given(tmp_path: Path) -> None:
    """An event copied with its recorded_at keeps it to the microsecond."""
    with EventStore(tmp_path / "events.db", machine="laptop") as store:
        store.append([message(1, origin="server", recorded_at=LATER)])
        (ev,) = store.read()
        assert (ev.origin, ev.recorded_at) == ("server", "2026-03-05T01:02:03.456789Z")


def test_the_same_event_from_two_machines_is_stored_once(tmp_path: Path) -> None:
    """Dedupe is by event_id: an export imported on two machines is one set of messages (the first copy stays)."""
    with EventStore(tmp_path / "events.db", machine="laptop") as store:
        store.append([message(1), message(2)])
        again = store.append([message(1, origin="desk"), message(2, origin="desk"), message(3, origin="desk")])
        assert (again.new, again.known) == (1, 2)
        assert [e.origin for e in store.read()] == ["laptop", "laptop", "desk"]


def test_read_and_count_filter_by_origin(tmp_path: Path) -> None:
    """``origin=`` narrows reading and counting to one machine's events."""
    with EventStore(tmp_path / "events.db", machine="laptop") as store:
        store.append([message(1), message(2, origin="desk"), message(3)])
        assert [e.seq for e in store.read(origin="laptop")] == [1, 3]
        assert store.count(origin="desk") == 1 and store.count(after=1, origin="laptop") == 1
        assert store.count() == 3


def test_an_old_log_is_migrated_with_the_configured_machine(tmp_path: Path) -> None:
    """Events stored before origins existed were captured here: they get the configured machine name."""
    path = tmp_path / "events.db"
    old_log(path, 3)
    with EventStore(path, machine="desk") as store:
        store.append([message(1, origin="laptop"), message(2)])
        assert [(e.seq, e.origin) for e in store.read()] == [(1, "desk"), (2, "desk"), (3, "desk"),
                                                             (4, "laptop"), (5, "desk")]
        assert store.checkpoint("hub:push") == 0
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY rowid")]
    assert names == ["_create_events", "_create_source_offsets", "_add_origin", "_create_sync_checkpoints"]


def test_a_readonly_reader_of_an_old_log_answers_as_the_migration_will(tmp_path: Path) -> None:
    """Before any writer migrated it, a read-only store shows the configured machine and no checkpoints."""
    path = tmp_path / "events.db"
    old_log(path, 2)
    with EventStore(path, readonly=True, machine="it's mine") as store:
        assert [e.origin for e in store.read()] == ["it's mine"] * 2
        assert store.count(origin="it's mine") == 2 and store.count(origin="other") == 0
        assert store.checkpoint("hub:pull") == 0 and store.checkpoints() == {}
    with sqlite3.connect(path) as conn:
        assert "origin" not in {r[1] for r in conn.execute("PRAGMA table_info(events)")}
