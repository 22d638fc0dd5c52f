"""The event log: idempotent appends, strictly increasing seq, ordered streaming, offsets."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from tapestryd.errors import StoreError
from tapestryd.events import (ConversationTitled, EventStore, MessageRecorded, NewEvent, SourceOffset, event_id,
                              format_utc)
from tapestryd.events.codec import decode, encode

T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)


def message(n: int, text: str = "hello") -> NewEvent:
    body = MessageRecorded(conversation="chatgpt:c1", message=f"m{n}", role="user", text=f"{text} {n}",
                           timestamp=format_utc(T0))
    return NewEvent(event_id("test", str(n)), body, T0, agent="chatgpt", source=f"export#{n}")


def test_appending_a_known_event_id_is_a_no_op(tmp_path: Path) -> None:
    """Idempotency keys make a second import of the same events record nothing."""
    with EventStore(tmp_path / "events.db") as store:
        first = store.append([message(1), message(2)])
        second = store.append([message(2), message(1), message(3)])
        assert (first.new, first.known) == (2, 0)
        assert (second.new, second.known) == (1, 2)
        assert store.count() == 3


def test_seq_strictly_increases_and_read_streams_in_order(tmp_path: Path) -> None:
    """Reading from a seq returns every later event once, in order, across batch borders."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(n) for n in range(25)])
        seqs = [e.seq for e in store.read(after=0, batch=7)]
        assert seqs == sorted(set(seqs)) and len(seqs) == 25
        assert [e.seq for e in store.read(after=seqs[9], batch=4)] == seqs[10:]
        assert store.last_seq() == seqs[-1]


def test_read_filters_types_and_upper_bound(tmp_path: Path) -> None:
    """Type and until filters narrow the stream without breaking order."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1), NewEvent(event_id("t"), ConversationTitled("chatgpt:c1", "Hi"), T0), message(2)])
        titled = list(store.read(types=["ConversationTitled"]))
        assert [e.type for e in titled] == ["ConversationTitled"]
        assert [e.seq for e in store.read(until=2)] == [1, 2]


def test_offsets_commit_with_their_events(tmp_path: Path) -> None:
    """A batch and the source offset of its bytes land together."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1)], [SourceOffset("/p/s.jsonl", 120, inode=7, size=120)])
        assert store.offset("/p/s.jsonl") == SourceOffset("/p/s.jsonl", 120, 7, 120)
        store.save_offsets([SourceOffset("/p/s.jsonl", 200, 7, 200)])
        assert store.offsets()["/p/s.jsonl"].offset == 200


def test_a_failed_batch_stores_nothing(tmp_path: Path) -> None:
    """One transaction per batch: an error half-way leaves the log as it was."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1)])
        bad = NewEvent(event_id("bad"), MessageRecorded("c", "m", "user", "x", "t", meta={"x": object()}), T0)
        with pytest.raises(TypeError):
            store.append([message(2), bad])
        assert store.count() == 1


def test_seq_is_never_reused_after_rows_are_deleted(tmp_path: Path) -> None:
    """AUTOINCREMENT keeps seq strictly increasing even after compaction deletes the tail."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1), message(2)])
        store.conn.execute("DELETE FROM events WHERE seq = 2")
        store.append([message(3)])
        assert [e.seq for e in store.read()] == [1, 3]


def test_a_payload_that_does_not_decode_names_its_seq(tmp_path: Path) -> None:
    """A corrupt row is reported with its seq, not as a bare JSON error."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1)])
        store.conn.execute("UPDATE events SET payload = '[1, 2]' WHERE seq = 1")
        with pytest.raises(StoreError, match="seq 1"):
            list(store.read())


def test_readonly_store_does_not_create_a_file(tmp_path: Path) -> None:
    """Opening read-only never creates a database."""
    with pytest.raises(StoreError):
        EventStore(tmp_path / "missing.db", readonly=True)
    assert not (tmp_path / "missing.db").exists()


def test_log_file_uses_wal(tmp_path: Path) -> None:
    """The event log is a WAL database."""
    EventStore(tmp_path / "events.db").close()
    with sqlite3.connect(tmp_path / "events.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@hsettings(max_examples=60, deadline=None)
@given(text=st.text(), role=st.sampled_from(["user", "assistant"]),
       skipped=st.dictionaries(st.sampled_from(["thinking", "tool_use", "image"]), st.integers(0, 50)))
def test_codec_round_trips_messages(text: str, role: str, skipped: dict[str, int]) -> None:
    """encode then decode gives back an equal event, whatever the text."""
    event = MessageRecorded("claude-code:s", "k", role, text, format_utc(T0), skipped=skipped, meta={"cwd": "/x"})
    assert decode(*encode(event)) == event


def test_unknown_event_types_are_kept_raw() -> None:
    """A type written by a newer version decodes to UnknownEvent instead of failing."""
    event = decode("SomethingNew", 3, '{"a": 1}')
    assert event.type == "Unknown" and encode(event) == ("SomethingNew", 0, '{"a":1}')
