"""Conversation blocks (projections/blocks.py): filed and indexed with the messages, rewritten on
forget, identical after a rebuild, and blended into the keyword ranking."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tapestryd.events import EventStore, Forgotten, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import MessagesProjection, Projector, blocks
from tapestryd.projections.fts_shards import TURN_BREAK, TURN_BREAK_VERSION
from tapestryd.queries.rerank import KEYWORD_RANKER
from tapestryd.queries.search import SearchFilters

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _message(i: int, key: str, text: str, conversation: str = "claude-ai:c1", role: str = "user") -> NewEvent:
    body = MessageRecorded(conversation, key, role, text, format_utc(T0 + timedelta(minutes=i)))
    return NewEvent(event_id("blocks", conversation, key, text), body, T0 + timedelta(minutes=i), agent="claude-ai",
                    source=f"s#{i}")


def _forget(match: str = "", conversation: str = "") -> NewEvent:
    return NewEvent(event_id("blocks", "forget", match, conversation),
                    Forgotten(conversation=conversation, match=match, reason="test"), T0, agent="claude-ai",
                    source="cli")


def _project(tmp_path: Path, events: list[NewEvent], *, batch: int = 5000) -> Projector:
    store = EventStore(tmp_path / "events.db")
    store.append(events)
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection()])
    while projector.catch_up(batch=batch, max_events=batch):
        pass
    return projector


def _id(conn: sqlite3.Connection, key: str) -> int:
    return int(conn.execute("SELECT id FROM messages WHERE message_key = ?", (key,)).fetchone()[0])


def _blocks_matching(conn: sqlite3.Connection, word: str) -> list[int]:
    return sorted(int(r[0]) for t in blocks.shard_tables(conn)
                  for r in conn.execute(f"SELECT rowid FROM {t} WHERE {t} MATCH ?", (f'"{word}"',)))


def _documents(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    """``(block id, text)`` of every indexed block, after FTS5's integrity check of each shard; a block in the
    shard of its id only."""
    found = []
    for table in blocks.shard_tables(conn):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
        rows = conn.execute(f"SELECT rowid, text FROM {table}").fetchall()
        assert all(i // blocks.SHARD_BLOCKS == int(table.rsplit("_", 1)[1]) for i, _ in rows)
        found += rows
    return sorted(found)


def _state(conn: sqlite3.Connection) -> tuple[list[tuple[object, ...]], ...]:
    return (conn.execute("SELECT * FROM conversation_blocks ORDER BY id").fetchall(),
            conn.execute("SELECT * FROM block_members ORDER BY message_id").fetchall(), _documents(conn))


def test_a_word_held_only_by_a_neighbour_finds_the_message_through_its_block(tmp_path: Path) -> None:
    """The block of a message holds its neighbours' words: a query of the reply's word finds the question's block."""
    conn = _project(tmp_path, [_message(0, "q", "where did you go on holiday?"),
                               _message(1, "a", "we hiked in the Dolomites", role="assistant"),
                               _message(2, "x", "unrelated chat", "claude-ai:c2")]).conn
    question = _id(conn, "q")
    found = blocks.block_scores(conn, '"dolomites"', 10)
    assert list(found) == [blocks.blocks_of(conn, [question])[question]]
    assert blocks.blocks_of(conn, [question, _id(conn, "a")])[question] != blocks.blocks_of(
        conn, [_id(conn, "x")]).get(_id(conn, "x"))


def test_forget_removes_the_text_from_the_neighbours_block(tmp_path: Path) -> None:
    """A forgotten message's words leave its block (its neighbours stay findable by their own words)."""
    projector = _project(tmp_path, [_message(0, "q", "tell me about the clinic"),
                                    _message(1, "a", "the zanzibarquokka diagnosis is private", role="assistant"),
                                    _message(2, "b", "thanks for the clinic hours"),
                                    _message(3, "g", "a whole other talk", "claude-ai:gone")])
    conn = projector.conn
    assert len(_blocks_matching(conn, "zanzibarquokka")) == 1
    projector.store.append([_forget(match="zanzibar.uokka"), _forget(conversation="claude-ai:gone")])
    projector.catch_up()
    assert _blocks_matching(conn, "zanzibarquokka") == [] and _blocks_matching(conn, "whole") == []
    assert len(_blocks_matching(conn, "clinic")) == 1
    rows, members, docs = _state(conn)
    assert [r[1:] for r in rows] == [("claude-ai:c1", 2, 0)] and len(members) == 2
    assert docs[0][1] == TURN_BREAK.join(["tell me about the clinic", "thanks for the clinic hours"])


def test_rebuild_gives_the_rows_of_the_incremental_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small batches, full blocks, a streamed part joined later and a forget in between: a rebuild is identical."""
    monkeypatch.setattr(blocks, "BLOCK_SIZE", 3)
    events = [_message(i, f"m{i}", f"turn {i} words", "claude-ai:c1" if i % 3 else "claude-ai:c2") for i in range(12)]
    events.insert(8, _forget(match="turn 4 "))
    events.append(_message(20, "m1", "more of turn one"))  # a later part of m1, whose block is full: written again
    projector = _project(tmp_path, events, batch=2)
    incremental = _state(projector.conn)
    assert max(r[2] for r in incremental[0]) == 3 and len(incremental[0]) >= 4
    assert any("more of turn one" in text for _, text in incremental[2])
    assert not any("turn 4 " in text for _, text in incremental[2])
    projector.rebuild()
    assert _state(projector.conn) == incremental


def test_a_file_made_before_blocks_is_filled_by_the_upgrade(tmp_path: Path) -> None:
    """The blocks of an older projections file are filed from its messages by the upgrade, as a rebuild would."""
    projector = _project(tmp_path, [_message(i, f"m{i}", f"turn {i}") for i in range(5)])
    expected = _state(projector.conn)
    for table in ("conversation_blocks", "block_members", *blocks.shard_tables(projector.conn), "blocks_shards"):
        projector.conn.execute(f"DROP TABLE {table}")
    projector.close()
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    assert _state(again.conn) == ([], [], [])  # opening writes nothing: the upgrade does, a chunk at a time
    again.upgrade()
    assert _state(again.conn) == expected


def test_the_block_score_lifts_the_turn_whose_conversation_holds_the_other_words(tmp_path: Path) -> None:
    """Two turns hold 'support group' alike; the one whose block also holds 'caroline' ranks first with blocks on."""
    conn = _project(tmp_path, [
        _message(0, "other", "the support group met", "claude-ai:a"),
        _message(1, "other-reply", "nice", "claude-ai:a", role="assistant"),
        _message(2, "hit", "the support group met", "claude-ai:b"),
        _message(3, "hit-reply", "glad you went, caroline", "claude-ai:b", role="assistant"),
    ]).conn
    terms, filters = ["caroline", "support", "group"], SearchFilters()
    plain = replace(KEYWORD_RANKER, neighbour=0.0, session=0.0, title=0.0, block=0.0, window=0.0)
    hit, other = _id(conn, "hit"), _id(conn, "other")
    for ranker, before, after in ((plain, other, hit), (replace(plain, block=1.0), hit, other)):
        ranked = [i for i, _ in ranker.rank(conn, terms, filters, 4)[0]]
        assert ranked.index(before) < ranked.index(after)


def _document(conn: sqlite3.Connection) -> str:
    rows = _documents(conn)
    assert len(rows) == 1
    return str(rows[0][1])


def test_a_block_that_only_grew_waits_for_settle_a_changed_one_does_not(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Tailed line by line without settling, a block is written when it reaches a power of two or fills;
    a forgotten message's text leaves at once; settled, the blocks are a rebuild's."""
    monkeypatch.setattr(blocks, "BLOCK_SIZE", 6)
    store = EventStore(tmp_path / "events.db")
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection()])
    conn = projector.conn
    seen = []
    for i in range(6):
        store.append([_message(i, f"m{i}", f"line{i}")])
        projector.catch_up(settle=False)
        seen.append(_document(conn).split(TURN_BREAK))
    assert [len(lines) for lines in seen] == [1, 2, 2, 4, 4, 6]  # sizes 1, 2, 4 and the full block written
    store.append([_message(6, "m6", "line6"), _message(7, "m7", "line7")])
    projector.catch_up(settle=False)
    assert len(_blocks_matching(conn, "line7")) == 1  # the second block's size 2 is written
    store.append([_message(8, "m8", "line8"), _forget(match="line1$")])
    projector.catch_up(settle=False)
    assert _blocks_matching(conn, "line1") == [] and _blocks_matching(conn, "line8") == []  # size 3 waits
    assert conn.execute("SELECT dirty FROM conversation_blocks ORDER BY id").fetchall() == [(0,), (2,)]
    projector.settle()
    assert len(_blocks_matching(conn, "line8")) == 1
    settled = _state(conn)
    projector.rebuild()
    assert _state(conn) == settled


def test_a_part_joined_at_the_end_waits_a_rewritten_text_does_not(tmp_path: Path) -> None:
    """A streamed part that lengthens a message leaves its block waiting; a version that replaces the text
    (an edited record) has the block written at once, so the old words are not found through it."""
    store = EventStore(tmp_path / "events.db")
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection()])
    conn = projector.conn
    store.append([_message(0, "q", "plan the trip"), _message(1, "a", "first draft", role="assistant")])
    projector.catch_up(settle=False)
    store.append([_message(2, "a", "with the kestrelpass route", role="assistant")])  # a later part of "a"
    projector.catch_up(settle=False)
    assert _blocks_matching(conn, "kestrelpass") == [] and len(_blocks_matching(conn, "draft")) == 1
    edited = replace(_message(3, "a", "a wholly new answer", role="assistant"), event_id="edited")
    edited = replace(edited, event=replace(edited.event, meta={"replaces": True}))
    store.append([edited])
    projector.catch_up(settle=False)
    assert _blocks_matching(conn, "draft") == [] and len(_blocks_matching(conn, "wholly")) == 1


def test_a_catch_up_with_nothing_waiting_takes_no_write_lock(tmp_path: Path) -> None:
    """Settling looks before it writes: a caught-up projector's catch_up runs while another connection holds the
    write lock (as before settling existed)."""
    projector = _project(tmp_path, [_message(0, "q", "hello there")])
    other = sqlite3.connect(tmp_path / "projections.db", timeout=0.1)
    other.execute("BEGIN IMMEDIATE")
    try:
        assert projector.catch_up() == 0
    finally:
        other.rollback()
        other.close()


def test_blocks_are_kept_in_shards_of_block_ids_and_ranked_newest_shard_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards of 2 blocks, a conversation per block: each document is in its block's shard, the bound is filled
    from the newest shard back, and a forget rewrites a block in its own shard."""
    monkeypatch.setattr(blocks, "SHARD_BLOCKS", 2)
    monkeypatch.setattr(blocks, "BLOCK_WINDOW", 3)
    projector = _project(tmp_path, [_message(i, f"m{i}", f"the lantern {i} glows", f"claude-ai:c{i}")
                                    for i in range(7)])
    conn = projector.conn
    assert blocks.shard_tables(conn) == ["blocks_fts_3", "blocks_fts_2", "blocks_fts_1", "blocks_fts_0"]
    assert [i for i, _ in _documents(conn)] == list(range(1, 8))
    assert set(blocks.block_scores(conn, '"lantern"', 10)) == {5, 6, 7}
    monkeypatch.setattr(blocks, "BLOCK_WINDOW", 5)
    assert set(blocks.block_scores(conn, '"lantern"', 10)) == {3, 4, 5, 6, 7}
    projector.store.append([_message(20, "m20", "and a lamp", "claude-ai:c3"), _forget(match="lantern 5 ")])
    projector.catch_up()
    assert dict(_documents(conn))[4] == TURN_BREAK.join(["the lantern 3 glows", "and a lamp"])
    assert 6 not in dict(_documents(conn))
    assert set(blocks.block_scores(conn, '"lantern"', 10)) == {2, 3, 4, 5, 7}


def test_a_file_made_before_shards_has_its_blocks_filed_again_by_the_upgrade(tmp_path: Path) -> None:
    """A file whose blocks are in one blocks_fts: opening it sets that table aside (a DROP frees every page at once)
    and writes nothing; the upgrade files every message again into shards, as a rebuild would, and drops it."""
    projector = _project(tmp_path, [_message(i, f"m{i}", f"turn {i}", f"claude-ai:c{i % 2}") for i in range(5)])
    expected = _state(projector.conn)
    for table in (*blocks.shard_tables(projector.conn), "blocks_shards", "blocks_format"):
        projector.conn.execute(f"DROP TABLE {table}")
    projector.conn.execute("CREATE VIRTUAL TABLE blocks_fts USING fts5(text)")  # as blocks were first made
    projector.conn.executemany("INSERT INTO blocks_fts (rowid, text) VALUES (?, ?)", expected[2])
    assert blocks.block_scores(projector.conn, '"turn"', 10)  # a reader ranks the older table as it is
    projector.close()
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    assert _state(again.conn) == ([], [], [])
    assert again.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'blocks_retired'").fetchone()
    again.upgrade()
    assert _state(again.conn) == expected
    assert not again.conn.execute("SELECT 1 FROM sqlite_master WHERE name GLOB 'blocks_retired*'").fetchall()
    assert again.conn.execute("SELECT * FROM blocks_format").fetchall() == [(blocks.SHARD_BLOCKS, TURN_BREAK_VERSION)]


def test_blocks_made_with_another_shard_size_are_filed_again_by_the_upgrade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards of 2 blocks, then of 3: opening the file drops the shards and files every message again."""
    events = [_message(i, f"m{i}", f"turn {i}", f"claude-ai:c{i % 5}") for i in range(10)]
    monkeypatch.setattr(blocks, "SHARD_BLOCKS", 3)
    expected = _state(_project(tmp_path / "expected", events).conn)
    monkeypatch.setattr(blocks, "SHARD_BLOCKS", 2)
    projector = _project(tmp_path, events)
    assert len(blocks.shard_tables(projector.conn)) == 3
    projector.close()
    monkeypatch.setattr(blocks, "SHARD_BLOCKS", 3)
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    assert _state(again.conn) == ([], [], [])
    again.upgrade()
    assert _state(again.conn) == expected and len(blocks.shard_tables(again.conn)) == 2
