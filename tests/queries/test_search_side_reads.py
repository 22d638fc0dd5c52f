"""Search's windows, blocks and summaries ranked on side connections while the messages are: the same answer."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import search, search_messages
from tapestryd.queries.side_reads import InlineReads, ThreadedReads

NOW = datetime(2026, 3, 20, 12, tzinfo=PARIS)


@pytest.fixture
def home(history: History) -> History:
    h = history
    for day in range(2, 9):
        conv = f"claude-ai:c{day}"
        h.message(conv, datetime(2026, 3, day, 9, tzinfo=PARIS), f"the sailing trip on day {day}, with a jacket",
                  agent="claude-ai")
        h.message(conv, datetime(2026, 3, day, 9, 1, tzinfo=PARIS), "the Glenan islands, with the harbour crew",
                  role="assistant", agent="claude-ai")
        h.message(conv, datetime(2026, 3, day, 9, 2, tzinfo=PARIS), "and the bakery after the harbour",
                  agent="claude-ai")
    h.summary("L1:claude-ai:2026-03-04", "Sailing day", "A sailing trip to the Glenan islands with the harbour crew.")
    h.commit()
    return h


def test_a_threaded_reader_answers_as_one_connection_in_turn(home: History) -> None:
    threaded = Reader.open(load_settings(home.settings.home))
    alone = Reader(threaded.settings, threaded.paths, threaded.conn)
    try:
        assert isinstance(alone.side, InlineReads)
        for query in ("sailing harbour", "jacket", "Glenan crew bakery"):
            assert search_messages(threaded, query) == search_messages(alone, query)
            assert search(threaded, query, now=NOW) == search(alone, query, now=NOW)
        kinds = {hit["kind"] for hit in search(threaded, "sailing harbour", now=NOW)["hits"]}
        assert kinds == {"message", "summary"}, kinds
        assert threaded._side is not None, "search never read beside its own connection"
    finally:
        threaded.close()


def test_side_reads_run_on_their_own_thread_and_connection(home: History) -> None:
    reader = Reader.open(load_settings(home.settings.home))
    seen: list[tuple[int, sqlite3.Connection]] = []

    def note(conn: sqlite3.Connection) -> int:
        seen.append((threading.get_ident(), conn))
        return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])

    assert reader.side.submit(note).result(timeout=60) == 21
    assert seen[0][0] != threading.get_ident() and seen[0][1] is not reader.conn
    side = reader._side
    assert side is not None
    reader.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed with the reader
        seen[0][1].execute("SELECT 1")


def test_a_side_read_error_reaches_the_caller() -> None:
    conn = sqlite3.connect(":memory:")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        InlineReads(conn).submit(lambda c: c.execute("SELECT * FROM absent").fetchall()).result()


def test_threaded_reads_name_an_unopenable_file(tmp_path: object) -> None:
    from pathlib import Path

    from tapestryd.errors import StoreError

    reads = ThreadedReads(Path(str(tmp_path)) / "missing.db")
    try:
        with pytest.raises(StoreError, match="missing.db"):
            reads.submit(lambda c: c.execute("SELECT 1").fetchone()).result(timeout=60)
    finally:
        reads.close()
