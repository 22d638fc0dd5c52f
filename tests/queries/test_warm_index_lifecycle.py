"""The warm index through its life: fitted from the streamed store, then summaries and messages
arriving in the delta, refreshed again and again, refitted, and a refresh that keeps failing."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Iterator

import pytest
import structlog
from query_helpers import PARIS, History, wait_until

from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import SimilarityIndex
from tapestryd.projections.warmdocs import Corpus

NODE = "L1:chatgpt:2026-03-02"


def at(d: int, h: int = 10) -> datetime:
    return datetime(2026, 3, d, h, 0, tzinfo=PARIS)



def docs(index: SimilarityIndex, text: str) -> set[str]:
    return {m.doc for m in index.query(text, top=50)}


@pytest.fixture
def fitted(history: History) -> Iterator[tuple[History, SimilarityIndex]]:
    """A store of two messages and an index fitted from it (streamed: no texts kept)."""
    history.message("chatgpt:c1", at(2), "A recipe for braided bread with honey and sesame", agent="chatgpt")
    history.message("chatgpt:c2", at(2, 11), "Tie a bowline knot on the sailing rope", agent="chatgpt")
    history.commit()
    index = SimilarityIndex(paths_for(history.settings).projections_db)
    index.build()
    yield history, index
    index.stop()


def test_a_summary_in_the_delta_survives_the_next_refreshes(fitted: tuple[History, SimilarityIndex]) -> None:
    """A node summarized after the fit sits in the delta; later messages and a re-summary fold in
    around it (the delta once lost the node-key table, and every later refresh raised IndexError)."""
    history, index = fitted
    history.summary(NODE, "Bread", "Baked braided bread with sesame.")
    history.commit()
    assert index.refresh() == 1
    history.message("chatgpt:c3", at(3), "The bowline knot slipped on the rope again", agent="chatgpt")
    history.commit()
    assert index.refresh() == 1
    assert {f"n:{NODE}", "m:1"} <= docs(index, "braided bread sesame")
    assert {"m:2", "m:3"} <= docs(index, "bowline knot rope")
    history.summary(NODE, "Knots", "Practised sailing knots all afternoon.")
    history.commit()
    assert index.refresh() == 1
    assert f"n:{NODE}" not in docs(index, "braided bread sesame")
    assert f"n:{NODE}" in docs(index, "sailing knots afternoon")
    assert index.status()["delta"] == 2 and "errors" not in index.status()


def test_the_index_keeps_up_across_a_refit(history: History) -> None:
    """Summaries and messages before and after a background refit are all found, each once."""
    history.message("chatgpt:c1", at(2), "A recipe for braided bread", agent="chatgpt")
    history.commit()
    index = SimilarityIndex(paths_for(history.settings).projections_db, refit_min=3, refit_fraction=0.0)
    index.build()
    history.summary(NODE, "Bread", "Baked braided bread.")
    history.commit()
    index.refresh()
    for n in range(4):
        history.message(f"chatgpt:k{n}", at(3, 9 + n), f"Kite flying note {n}", agent="chatgpt")
        history.commit()
        index.refresh()
    wait_until(lambda: _settled(index, 6))
    history.summary("L1:chatgpt:2026-03-03", "Kites", "Flew kites all day.")
    history.message("chatgpt:c9", at(4), "More braided bread", agent="chatgpt")
    history.commit()
    assert index.refresh() == 2
    assert [m.doc for m in index.query("kites", kinds={1})] == ["n:L1:chatgpt:2026-03-03"]
    found = [m.doc for m in index.query("braided bread", top=50)]
    assert sorted(found) == sorted({f"n:{NODE}", "m:1", "m:6"})
    index.stop()


def test_a_failing_refresh_is_logged_once_and_the_index_recovers(fitted: tuple[History, SimilarityIndex]) -> None:
    """While the messages table is missing every tick fails the same way: one log line, not one a
    tick; the poller lives on, says when it recovered, and folds in what arrived meanwhile."""
    history, index = fitted
    db = paths_for(history.settings).projections_db
    history.message("chatgpt:c3", at(3), "A bowline knot lesson on the dock", agent="chatgpt")
    history.commit()
    _rename(db, "messages", "messages_away")
    ticks: list[str] = []
    noted = index.failures.failed
    index.failures.failed = lambda task, exc: ticks.append(task) or noted(task, exc)  # type: ignore[method-assign]
    with structlog.testing.capture_logs() as logs:
        index.start(poll_seconds=0.02)
        wait_until(lambda: ticks.count("refresh") > 10)  # the first failing tick, and ten more failing alike
        failed = [e for e in logs if e["event"] == "similarity.refresh_failed"]
        assert len(failed) == 1 and "messages" in failed[0]["error"]
        _rename(db, "messages_away", "messages")
        wait_until(lambda: docs(index, "bowline knot") == {"m:2", "m:3"})
        # the tick that folds the message in logs its recovery just after: wait for the line, not only the docs
        wait_until(lambda: any(e["event"] == "similarity.refresh_recovered" for e in logs))
    assert index._poller is not None and index._poller.is_alive()
    assert [e["event"] for e in logs].count("similarity.refresh_recovered") == 1
    assert "refresh" not in index.status().get("errors", {})


def test_a_streamed_corpus_cannot_be_copied_for_a_delta() -> None:
    """A corpus that kept no texts, or rows numbered in another node-key table, raise a clear ValueError."""
    streamed, other = Corpus(), Corpus()
    streamed.add((-1, 1, 0, 0, 0, 0))
    with pytest.raises(ValueError, match="kept 0 texts of its 1 documents"):
        streamed.without(set())
    with pytest.raises(ValueError, match="different node-key tables"):
        Corpus().plus(other)


def _settled(index: SimilarityIndex, documents: int) -> bool:
    """Whether a refit ran, none is running, and fitted and delta rows add up to ``documents``."""
    index.refresh()
    status = index.status()
    return status["fitted"] > 1 and not status["refitting"] and status["fitted"] + status["delta"] == documents


def _rename(db: Path, old: str, new: str) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(f"ALTER TABLE {old} RENAME TO {new}")
        conn.commit()
    finally:
        conn.close()
