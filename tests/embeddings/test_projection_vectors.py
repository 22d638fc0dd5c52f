"""The vectors projection: one vector per stored message, encoded a batch at a time, following
streamed parts and forgets, and the same after a rebuild (a scripted encoder: no weights needed)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from fake_encoder import FakeEncoder

from tapestryd.events import EventStore, Forgotten, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import MessagesProjection, Projector, default_projections
from tapestryd.projections.vectors import MessageVectors, dropped_head, has_vectors

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def message(n: int, text: str, conv: str = "chatgpt:c1", key: str = "") -> NewEvent:
    ts = T0 + timedelta(minutes=n)
    body = MessageRecorded(conv, key or f"m{n}", "user" if n % 2 else "assistant", text, format_utc(ts))
    return NewEvent(event_id("v", str(n), key), body, ts, agent="chatgpt", source=f"x#{n}")


def projector(store: EventStore, path: Path, encoder: FakeEncoder) -> Projector:
    return Projector(store, path, [MessagesProjection(), MessageVectors(path.parent, encoder=encoder)])


def vectors(conn: sqlite3.Connection) -> dict[str, np.ndarray]:
    """message key → its stored vector."""
    rows = conn.execute("SELECT m.message_key, v.vector FROM message_vectors v JOIN messages m ON m.id = v.id")
    return {key: np.frombuffer(blob, dtype="<f4") for key, blob in rows}


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    return EventStore(tmp_path / "events.db")


def test_each_message_gets_the_vector_of_its_stored_text_in_one_call_a_batch(store: EventStore,
                                                                             tmp_path: Path) -> None:
    """A catch-up encodes its batch's texts together, once; a caught-up projector encodes nothing."""
    encoder = FakeEncoder()
    store.append([message(1, "my new car"), message(2, "the garden beds"), message(3, "")])
    p = projector(store, tmp_path / "p.db", encoder)
    p.catch_up()
    assert len(encoder.calls) == 1 and sorted(encoder.calls[0]) == ["my new car", "the garden beds"]
    found = vectors(p.conn)
    assert set(found) == {"m1", "m2"}  # an empty text has nothing to mean
    assert found["m1"] == pytest.approx(FakeEncoder().encode(["my new car"])[0])
    p.catch_up()
    assert len(encoder.calls) == 1


def test_a_streamed_reply_is_encoded_again_with_its_whole_text(store: EventStore, tmp_path: Path) -> None:
    """A later part of the same message changes the stored text, so its vector follows."""
    encoder = FakeEncoder()
    store.append([message(1, "my car", key="r1")])
    p = projector(store, tmp_path / "p.db", encoder)
    p.catch_up()
    store.append([NewEvent(event_id("v", "part"), MessageRecorded("chatgpt:c1", "r1", "user", "and the garden",
                                                                  format_utc(T0)), T0, agent="chatgpt", source="x#p")])
    p.catch_up()
    assert encoder.calls == [["my car"], ["my car\n\nand the garden"]]
    assert vectors(p.conn)["r1"] == pytest.approx(FakeEncoder().encode([encoder.calls[-1][0]])[0])


def test_forgetting_a_conversation_drops_its_vectors_and_says_so(store: EventStore, tmp_path: Path) -> None:
    """The forgotten messages' vectors go, the others stay, and the forget's seq is noted for warm copies."""
    store.append([message(1, "my car"), message(2, "garden beds", conv="chatgpt:c2")])
    p = projector(store, tmp_path / "p.db", FakeEncoder())
    p.catch_up()
    assert dropped_head(p.conn)[0] == 0
    store.append([NewEvent(event_id("v", "forget"), Forgotten(conversation="chatgpt:c1"), T0, agent="chatgpt")])
    p.catch_up()
    assert set(vectors(p.conn)) == {"m2"}
    assert dropped_head(p.conn)[0] == store.last_seq()


def test_rebuild_gives_the_vectors_of_small_increments(store: EventStore, tmp_path: Path) -> None:
    """Rows written three events at a time equal those of one replay (rebuild reproduces the projection)."""
    store.append([message(n, f"message {n} about the car" if n % 3 else f"garden note {n}") for n in range(12)])
    store.append([NewEvent(event_id("v", "forget"), Forgotten(match="note 6"), T0, agent="chatgpt")])
    incremental = projector(store, tmp_path / "a.db", FakeEncoder())
    while incremental.catch_up(batch=3, max_events=3):
        pass
    replayed = projector(store, tmp_path / "b.db", FakeEncoder())
    replayed.catch_up()
    replayed.rebuild()
    dump = "SELECT id, conversation, ts, vector, window FROM message_vectors ORDER BY id"
    assert incremental.conn.execute(dump).fetchall() == replayed.conn.execute(dump).fetchall()
    assert len(incremental.conn.execute(dump).fetchall()) == 11


def window_of(conn: sqlite3.Connection, key: str) -> np.ndarray:
    row = conn.execute("SELECT v.window FROM message_vectors v JOIN messages m ON m.id = v.id"
                       " WHERE m.message_key = ?", (key,)).fetchone()
    return np.frombuffer(row[0], dtype="<f4")


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def test_a_window_is_a_turn_with_its_neighbours_and_forgets_a_forgotten_neighbour(store: EventStore,
                                                                                 tmp_path: Path) -> None:
    """The window sums the turn's vector and its neighbours' (in its conversation only); once the middle
    turn is forgotten, the turns around it hold nothing of it."""
    store.append([message(1, "my car"), message(2, "secret garden"), message(3, "cold weather"),
                  message(4, "coffee", conv="chatgpt:c2")])
    p = projector(store, tmp_path / "p.db", FakeEncoder())
    p.catch_up()
    own = vectors(p.conn)
    assert window_of(p.conn, "m2") == pytest.approx(unit(own["m1"] + own["m2"] + own["m3"]), abs=1e-6)
    assert window_of(p.conn, "m3") == pytest.approx(unit(own["m2"] + own["m3"]), abs=1e-6)
    assert window_of(p.conn, "m4") == pytest.approx(own["m4"], abs=1e-6)
    store.append([NewEvent(event_id("v", "forget"), Forgotten(match="secret"), T0, agent="chatgpt")])
    p.catch_up()
    assert window_of(p.conn, "m1") == pytest.approx(unit(own["m1"] + own["m3"]), abs=1e-6)
    assert window_of(p.conn, "m3") == pytest.approx(unit(own["m1"] + own["m3"]), abs=1e-6)


def test_the_shipped_projections_hold_vectors_only_when_a_model_is_given(store: EventStore, tmp_path: Path) -> None:
    """Without a model folder (embeddings off or not installed) no vectors table is made at all."""
    store.append([message(1, "my car")])
    plain = Projector(store, tmp_path / "plain.db", default_projections("UTC", 0))
    plain.catch_up()
    assert "vectors" not in plain.lag() and not has_vectors(plain.conn)
    assert [p.name for p in default_projections("UTC", 0, tmp_path)][-1] == "vectors"
