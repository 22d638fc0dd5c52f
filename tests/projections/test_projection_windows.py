"""Message windows (projections/windows.py): a message found by its neighbours' words, forgotten
text gone from every window, the same rows after a rebuild."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

from test_projection_blocks import _forget, _id, _message, _project

from tapestryd.projections import MessagesProjection, Projector, fts_options, windows
from tapestryd.queries.rerank import KEYWORD_RANKER
from tapestryd.queries.search import SearchFilters


def _windows(conn: sqlite3.Connection) -> list[tuple[int, str]]:
    conn.execute("INSERT INTO windows_fts(windows_fts) VALUES ('integrity-check')")
    return conn.execute("SELECT rowid, text FROM windows_fts ORDER BY rowid").fetchall()


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
    projector.store.append([_forget(match="Dolomites")])
    projector.catch_up()
    assert windows.window_scores(conn, '"dolomites"', 10) == {}
    assert dict(_windows(conn))[_id(conn, "q")] == "where did you go on holiday?\nthanks, sounds lovely"
    assert conn.execute("SELECT count(*) FROM windows_gone").fetchone()[0] == 0


def test_rebuild_and_an_older_file_give_the_rows_of_the_incremental_path(tmp_path: Path) -> None:
    """Small batches, a streamed part joined later and a forget in between: rebuilt and backfilled rows agree."""
    events = [_message(i, f"m{i}", f"turn {i} words", "claude-ai:c1" if i % 3 else "claude-ai:c2") for i in range(9)]
    events.insert(6, _forget(match="turn 4 "))
    events.append(_message(20, "m5", "more of turn five"))
    projector = _project(tmp_path, events, batch=2)
    incremental = _windows(projector.conn)
    assert len(incremental) == 8 and not any("turn 4 " in text for _, text in incremental)
    assert sum("more of turn five" in text for _, text in incremental) == 3  # m5's and its neighbours' (m2, m7)
    projector.rebuild()
    assert _windows(projector.conn) == incremental
    projector.conn.execute("DROP TABLE windows_fts")
    projector.close()
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    assert _windows(again.conn) == incremental


def test_the_window_and_block_tables_keep_their_bulk_options_through_a_rebuild(tmp_path: Path) -> None:
    """A rebuild drops windows_fts and blocks_fts and makes them again: still with hashsize and automerge set."""
    projector = _project(tmp_path, _holiday())
    projector.rebuild()
    for table in ("windows_fts", "blocks_fts"):
        stored = dict(projector.conn.execute(f"SELECT k, v FROM {table}_config"))
        assert {k: stored.get(k) for k in fts_options.BULK_OPTIONS} == fts_options.BULK_OPTIONS
    assert windows.window_scores(projector.conn, '"dolomites"', 10)  # refilled by the replay
