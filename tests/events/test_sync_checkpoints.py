"""Named checkpoints in the event log, committed in the same transaction as the events they account for."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tapestryd.errors import StoreError
from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc

T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)


def message(n: int) -> NewEvent:
    body = MessageRecorded(conversation="chatgpt:c1", message=f"m{n}", role="user", text=f"hi {n}",
                           timestamp=format_utc(T0))
    return NewEvent(event_id("checkpoint-test", str(n)), body, T0, agent="chatgpt", origin="hub-peer")


def test_an_unknown_checkpoint_is_zero_and_a_saved_one_is_replaced(tmp_path: Path) -> None:
    """checkpoint(name) starts at 0; each append with checkpoints replaces the stored positions."""
    with EventStore(tmp_path / "events.db") as store:
        assert store.checkpoint("hub:pull") == 0
        store.append([message(1)], checkpoints={"hub:pull": 41})
        store.append([], checkpoints={"hub:pull": 42, "hub:push": 7})
        assert (store.checkpoint("hub:pull"), store.checkpoint("hub:push")) == (42, 7)
        assert {name: pos for name, (pos, _) in store.checkpoints().items()} == {"hub:pull": 42, "hub:push": 7}


def test_a_checkpoint_that_fails_to_save_takes_its_events_with_it(tmp_path: Path) -> None:
    """Events and checkpoint commit together: a failed checkpoint write stores none of the batch."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1)], checkpoints={"hub:pull": 1})
        store.conn.execute("CREATE TRIGGER refuse BEFORE UPDATE ON sync_checkpoints "
                           "BEGIN SELECT RAISE(ABORT, 'refused by test'); END")
        with pytest.raises(StoreError, match="refused by test"):
            store.append([message(2), message(3)], checkpoints={"hub:pull": 3})
        assert store.count() == 1 and store.checkpoint("hub:pull") == 1


def test_events_that_fail_to_store_take_their_checkpoint_with_them(tmp_path: Path) -> None:
    """A failed event insert leaves the checkpoint where it was, so the copy resumes from there."""
    with EventStore(tmp_path / "events.db") as store:
        store.conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.source = 'bad' "
                           "BEGIN SELECT RAISE(ABORT, 'refused by test'); END")
        bad = NewEvent(event_id("bad"), message(9).event, T0, source="bad")
        with pytest.raises(StoreError, match="refused by test"):
            store.append([message(1), bad], checkpoints={"hub:pull": 2})
        assert store.count() == 0 and store.checkpoint("hub:pull") == 0


def test_checkpoints_survive_reopening(tmp_path: Path) -> None:
    """A checkpoint is in events.db, so a restarted daemon resumes from it."""
    with EventStore(tmp_path / "events.db") as store:
        store.append([message(1)], checkpoints={"hub:push": 1})
    with EventStore(tmp_path / "events.db", readonly=True) as store:
        assert store.checkpoint("hub:push") == 1
