"""Message windows (projections/windows.py): a message found by its neighbours' words, forgotten
text gone from every window, the same rows after a rebuild."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from test_projection_blocks import _forget, _id, _message, _project

from tapestryd.projections import MessagesProjection, Projector, blocks, fts_options, windows
from tapestryd.projections.fts_shards import TURN_BREAK, TURN_BREAK_VERSION
from tapestryd.queries.rerank import KEYWORD_RANKER
from tapestryd.queries.search import SearchFilters


def _windows(conn: sqlite3.Connection) -> list[tuple[str, int, int]]:
    """What the windows' shards index: each (term, window, position), after FTS5's integrity check of each;
    a window in the shard of its message id only."""
    found = []
    for table in windows.shard_tables(conn):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_{table} USING fts5vocab(main, {table}, instance)")
        rows = conn.execute(f"SELECT term, doc, offset FROM temp.terms_{table}").fetchall()
        assert all(doc // windows.SHARD_IDS == int(table.rsplit("_", 1)[1]) for _, doc, _ in rows)
        found += rows
    return sorted(found)


def _expected(conn: sqlite3.Connection) -> tuple[list[tuple[str, int, int]], dict[int, str]]:
    """The index the stored messages call for, from a table with the text kept, and its documents: each
    message's text between the end of its previous turn's and the start of its next turn's, by (ts, id) in
    its conversation."""
    rows = conn.execute("SELECT id, conversation, text FROM messages ORDER BY conversation, ts, id").fetchall()
    documents = {}
    for conversation in {conv for _, conv, _ in rows}:
        turns = [(i, text) for i, conv, text in rows if conv == conversation]
        for k, (i, text) in enumerate(turns):
            around = (turns[k - 1][1][-windows.NEIGHBOUR_CHARS:] if k else None, text,
                      turns[k + 1][1][:windows.NEIGHBOUR_CHARS] if k + 1 < len(turns) else None)
            documents[i] = TURN_BREAK.join(t for t in around if t)
    reference = sqlite3.connect(":memory:")
    reference.execute("CREATE VIRTUAL TABLE w USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    reference.executemany("INSERT INTO w (rowid, text) VALUES (?, ?)", sorted(documents.items()))
    reference.execute("CREATE VIRTUAL TABLE terms USING fts5vocab(w, instance)")
    return reference.execute("SELECT term, doc, offset FROM terms ORDER BY term, doc, offset").fetchall(), documents


def _holiday() -> list:
    return [_message(0, "q", "where did you go on holiday?"),
            _message(1, "a", "we hiked in the Dolomites", role="assistant"),
            _message(2, "t", "thanks, sounds lovely"),
            _message(3, "x", "unrelated chat", "claude-ai:c2")]


def test_a_query_matching_only_a_neighbour_finds_the_message_through_its_window(tmp_path: Path) -> None:
    """'dolomites' is in the reply only: the question and the thanks come through their windows, marked."""
    conn = _project(tmp_path, _holiday()).conn
    q, a, t, x = (_id(conn, k) for k in ("q", "a", "t", "x"))
    assert set(windows.window_scores(conn, '"dolomites"', 10)) == {q, a, t}
    bare = replace(KEYWORD_RANKER, neighbour=0.0, session=0.0, title=0.0, block=0.0, window=0.0)
    assert [i for i, _ in bare.rank(conn, ["dolomites"], SearchFilters(), 10)[0]] == [a]
    ranked, marks = replace(bare, window=1.0).rank(conn, ["dolomites"], SearchFilters(), 10)
    assert [i for i, _ in ranked][0] == a and {i for i, _ in ranked} == {q, a, t}
    assert marks == {q: "next_to_match", t: "next_to_match"} and x not in dict(ranked)
    only_users = replace(bare, window=1.0).rank(conn, ["dolomites"], SearchFilters(role="user"), 10)[0]
    assert only_users == []  # a window lends only words of turns the filters keep: here none holds them


def test_forget_removes_the_text_from_the_neighbours_windows(tmp_path: Path) -> None:
    """A forgotten reply is in no window: its neighbours' windows are written again without it."""
    projector = _project(tmp_path, _holiday())
    conn = projector.conn
    assert _windows(conn) == _expected(conn)[0]
    projector.store.append([_forget(match="Dolomites")])
    projector.catch_up()
    assert windows.window_scores(conn, '"dolomites"', 10) == {}
    index, documents = _expected(conn)
    assert documents[_id(conn, "q")] == TURN_BREAK.join(["where did you go on holiday?", "thanks, sounds lovely"])
    assert _windows(conn) == index
    assert conn.execute("SELECT count(*) FROM windows_stale").fetchone()[0] == 0


@pytest.mark.parametrize("shard_ids", [None, 2])
def test_changed_and_deleted_turns_leave_the_index_of_their_stored_texts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shard_ids: int | None) -> None:
    """Windows indexed, then a turn's later part joined, a new turn between two, and a turn forgotten, a batch
    apart: the index is each time the one the stored texts call for (a window taken out with other text
    than it was made of would leave its words findable). With shards of 2 ids the turns are spread over three
    shards, and each window is taken out of its own (the delete trigger holds a statement per shard)."""
    if shard_ids:
        monkeypatch.setattr(windows, "SHARD_IDS", shard_ids)
    projector = _project(tmp_path, [_message(i, f"m{i}", f"turn {i} words") for i in range(0, 8, 2)])
    conn = projector.conn
    steps = [[_message(30, "m2", "and the rest of turn two")], [_message(3, "m3", "a late turn three")],
             [_forget(match="late turn")], [_message(31, "m4", "more of four"), _forget(match="turn 6 ")]]
    for events in steps:
        projector.store.append(events)
        projector.catch_up(batch=1)
        assert _windows(conn) == _expected(conn)[0]
    assert len(windows.shard_tables(conn)) == (3 if shard_ids else 1)
    assert not windows.window_scores(conn, '"late"', 10) and not windows.window_scores(conn, '"6"', 10)


def test_rebuild_and_an_older_file_give_the_index_of_the_incremental_path(tmp_path: Path) -> None:
    """Small batches, a streamed part joined later and a forget in between: rebuilt and backfilled windows agree,
    and a file whose windows kept their text gets the index without it."""
    events = [_message(i, f"m{i}", f"turn {i} words", "claude-ai:c1" if i % 3 else "claude-ai:c2") for i in range(9)]
    events.insert(6, _forget(match="turn 4 "))
    events.append(_message(20, "m5", "more of turn five"))
    projector = _project(tmp_path, events, batch=2)
    incremental = _windows(projector.conn)
    index, documents = _expected(projector.conn)
    assert incremental == index and len(documents) == 8 and not any("turn 4 " in d for d in documents.values())
    assert sum("more of turn five" in d for d in documents.values()) == 3  # m5's and its neighbours' (m2, m7)
    projector.rebuild()
    assert _windows(projector.conn) == incremental
    for table in windows.shard_tables(projector.conn):
        projector.conn.execute(f"DROP TABLE {table}")
    for table in ("windows_indexed", "windows_shards", "windows_format"):
        projector.conn.execute(f"DROP TABLE {table}")
    projector.conn.execute("CREATE VIRTUAL TABLE windows_fts USING fts5(text)")  # as windows were first made
    projector.conn.execute("INSERT INTO windows_fts (rowid, text) VALUES (1, 'stale words')")
    projector.close()
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    again.upgrade()
    assert _windows(again.conn) == incremental
    made = [again.conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (t,)).fetchone()[0]
            for t in windows.shard_tables(again.conn)]
    assert made and all("content=''" in sql for sql in made)
    assert not again.conn.execute("SELECT 1 FROM sqlite_master WHERE name GLOB 'windows_retired*'").fetchall()


def test_the_window_and_block_tables_keep_their_bulk_options_through_a_rebuild(tmp_path: Path) -> None:
    """A rebuild drops windows_fts and blocks_fts and makes them again: still with hashsize and automerge set."""
    projector = _project(tmp_path, _holiday())
    projector.rebuild()
    for table in (*windows.shard_tables(projector.conn), *blocks.shard_tables(projector.conn)):
        stored = dict(projector.conn.execute(f"SELECT k, v FROM {table}_config"))
        assert {k: stored.get(k) for k in fts_options.BULK_OPTIONS} == fts_options.BULK_OPTIONS
    assert windows.window_scores(projector.conn, '"dolomites"', 10)  # refilled by the replay


def _long(i: int, head: str, tail: str) -> str:
    """A turn longer than a window's share of it: ``head`` words, filler, ``tail`` words (non-ASCII letters
    around where a window cuts it, which SQLite and Python must count alike)."""
    filler = " ".join(f"fill{n}é" for n in range(windows.NEIGHBOUR_CHARS // 3))
    return f"{head} {filler} ü{i} {filler} {tail}"


def test_a_window_holds_the_end_of_the_turn_before_and_the_start_of_the_turn_after(tmp_path: Path) -> None:
    """A long reply lends the question's window its opening words, not the words deep in it; the long turn's own
    window holds all of it, and the short neighbours' whole texts."""
    conn = _project(tmp_path, [_message(0, "q", "when was the hike?"),
                               _message(1, "a", _long(1, "saturday morning", "remember sunscreen"), role="assistant"),
                               _message(2, "t", "great thanks")]).conn
    q, a, t = (_id(conn, k) for k in ("q", "a", "t"))
    assert set(windows.window_scores(conn, '"saturday"', 10)) == {q, a}
    assert set(windows.window_scores(conn, '"sunscreen"', 10)) == {a, t}
    assert set(windows.window_scores(conn, '"hike"', 10)) == {q, a}
    assert _windows(conn) == _expected(conn)[0]


def test_long_turns_are_taken_out_of_their_neighbours_windows_as_they_were_cut(tmp_path: Path) -> None:
    """Long turns, then a part joined to one, a long turn put between two and one forgotten: taken out by
    unindex and by the delete trigger, each window's cut text is what was indexed (the integrity check and
    the index the stored texts call for agree after each step)."""
    projector = _project(tmp_path, [_message(i, f"m{i}", _long(i, f"start{i}", f"end{i}")) for i in range(0, 8, 2)])
    conn = projector.conn
    steps = [[_message(30, "m2", _long(30, "more", "of two"))], [_message(3, "m3", _long(3, "late", "three"))],
             [_forget(match="late")], [_message(31, "m4", "short end"), _forget(match="start6 ")]]
    for events in steps:
        projector.store.append(events)
        projector.catch_up(batch=1)
        assert _windows(conn) == _expected(conn)[0]
    assert set(windows.window_scores(conn, '"end2"', 10)) == {_id(conn, "m2")}  # the joined part pushed it past


def test_windows_made_with_another_cut_are_written_again_by_the_upgrade(tmp_path: Path) -> None:
    """A file whose windows hold whole neighbours (made before windows_format) or another cut gets them dropped
    and written once with NEIGHBOUR_CHARS; the delete trigger is made again with the cut too."""
    projector = _project(tmp_path, [_message(i, f"m{i}", _long(i, f"start{i}", f"end{i}")) for i in range(4)])
    incremental = _windows(projector.conn)
    for older in ("DROP TABLE windows_format", "UPDATE windows_format SET neighbour_chars = 0"):
        for table in windows.shard_tables(projector.conn):
            projector.conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
        projector.conn.execute("DROP TRIGGER windows_message_deleted")  # an older trigger, which cut nothing
        projector.conn.execute("CREATE TRIGGER windows_message_deleted AFTER DELETE ON messages BEGIN SELECT 1; END")
        projector.conn.execute(older)
        projector.close()
        projector = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
        assert _windows(projector.conn) == []  # dropped; written again by the upgrade
        projector.upgrade()
        assert _windows(projector.conn) == incremental
        made = projector.conn.execute("SELECT * FROM windows_format").fetchall()
        assert made == [(windows.NEIGHBOUR_CHARS, windows.SHARD_IDS, TURN_BREAK_VERSION)]
    projector.store.append([_forget(match="start2 ")])
    projector.catch_up()
    assert _windows(projector.conn) == _expected(projector.conn)[0]


def test_windows_are_kept_in_shards_of_message_ids_and_ranked_newest_shard_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shards of 4 ids: each window is in its message's shard (the index of one table all the same), and the
    bound is filled from the newest shard back, so the older shards are not ranked once it is full."""
    monkeypatch.setattr(windows, "SHARD_IDS", 4)
    monkeypatch.setattr(windows, "WINDOW_BOUND", 3)
    conn = _project(tmp_path, [_message(i, f"m{i}", f"the lantern {i} is lit") for i in range(10)]).conn
    assert windows.shard_tables(conn) == ["windows_fts_2", "windows_fts_1", "windows_fts_0"]  # ids 1-3, 4-7, 8-10
    assert _windows(conn) == _expected(conn)[0]
    assert set(windows.window_scores(conn, '"lantern"', 10)) == {8, 9, 10}
    monkeypatch.setattr(windows, "WINDOW_BOUND", 6)
    assert set(windows.window_scores(conn, '"lantern"', 10)) == {5, 6, 7, 8, 9, 10}
    assert set(windows.window_scores(conn, '"lantern"', 2)) <= {5, 6, 7, 8, 9, 10}
