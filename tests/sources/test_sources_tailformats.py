"""The tailer reads Codex and Gemini CLI files by their content, in pieces and across restarts, each line once."""

from __future__ import annotations

from pathlib import Path

import pytest
from agents_helpers import CODEX_FORK, GEMINI_JSONL

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources.ingest import ingest_paths
from tapestryd.sources.tailer import Tailer


def tail_in_pieces(store: EventStore, source: Path, target: Path, cuts: list[int], *, restart: bool = True) -> int:
    """Write ``source`` to ``target`` up to each cut and tail after each, with a new Tailer each time
    (a daemon restart) when ``restart``, else with one Tailer throughout; the new events stored."""
    data, new = source.read_bytes(), 0
    tailer = Tailer(store, agent="claude-code", agents={"codex": "codex", "gemini": "gemini-cli"})
    for cut in [*cuts, len(data)]:
        target.write_bytes(data[:cut])
        if restart:
            tailer = Tailer(store, agent="claude-code", agents={"codex": "codex", "gemini": "gemini-cli"})
        new += tailer.tail(str(target)).new
    return new


@pytest.mark.parametrize("restart", [True, False])
def test_a_rollout_tailed_in_pieces_gives_the_events_of_one_import(tmp_path: Path, settings: Settings,
                                                                   restart: bool) -> None:
    """Half a first line, then the rest in pieces, by one tailer or a fresh one each pass: the same
    events as importing the file whole into another log, none twice."""
    with EventStore(tmp_path / "tailed.db") as tailed, EventStore(tmp_path / "whole.db") as whole:
        new = tail_in_pieces(tailed, CODEX_FORK, tmp_path / "rollout-x.jsonl", [40, 900, 2500, 5000],
                             restart=restart)
        ingest_paths(whole, [CODEX_FORK], settings=settings)
        ids = {r[0] for r in whole.conn.execute("SELECT event_id FROM events WHERE type = 'MessageRecorded'")}
        got = {r[0] for r in tailed.conn.execute("SELECT event_id FROM events WHERE type = 'MessageRecorded'")}
    assert got == ids and new == len(ids) == 6


def test_a_gemini_chat_tailed_in_pieces_keeps_its_session(tmp_path: Path, settings: Settings) -> None:
    """Records appended after the header are filed under the header's session, as in a whole import."""
    with EventStore(tmp_path / "tailed.db") as tailed, EventStore(tmp_path / "whole.db") as whole:
        tail_in_pieces(tailed, GEMINI_JSONL, tmp_path / "session-x.jsonl", [20, 700, 1500])
        ingest_paths(whole, [GEMINI_JSONL], settings=settings)
        query = "SELECT event_id FROM events WHERE type = 'MessageRecorded' ORDER BY event_id"
        assert tailed.conn.execute(query).fetchall() == whole.conn.execute(query).fetchall()
