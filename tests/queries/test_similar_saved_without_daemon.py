"""``similar`` without a daemon answers from the index the daemon saved, as the daemon would; else from FTS5.

The saved file is read, never written: a file it cannot use is left for the daemon.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from query_helpers import PARIS, History

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import SimilarRequest
from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import SimilarityIndex
from tapestryd.projections.warmfile import index_file

QUERY = "flaky watchdog observer test"


def at(d: int, h: int = 10) -> datetime:
    return datetime(2026, 3, d, h, 0, tzinfo=PARIS)


@pytest.fixture
def home(history: History) -> History:
    history.message("chatgpt:c1", at(2), "A recipe for braided bread with honey and sesame", agent="chatgpt")
    history.message("claude-code:s1", at(3), "The watchdog observer test is flaky on macOS", session="s1")
    history.message("claude-code:s2", at(3, 11), "Tie a bowline knot on the sailing rope", session="s2")
    history.commit()
    return history


def saved_by_a_fit(history: History) -> Path:
    """The index file a daemon's fit writes, and nothing running after."""
    path = index_file(paths_for(history.settings).projections_db)
    index = SimilarityIndex(paths_for(history.settings).projections_db, saved=path)
    index.build()
    index.stop()
    return path


def similar(history: History) -> dict[str, Any]:
    result: Any = run_here(history.settings, SimilarRequest(query=QUERY, top=5))
    return dict(result.to_json())


def texts(answer: dict[str, Any]) -> list[str]:
    return [hit["snippet"] for hit in answer["hits"]]


def test_without_a_file_the_full_text_index_answers(home: History) -> None:
    answer = similar(home)
    assert answer["index"]["warm"] is False and answer["index"]["engine"] == "fts5"


def test_a_saved_index_answers_as_the_daemon_would(home: History) -> None:
    """The warm answer (TF-IDF cosine, ``origin`` loaded), and a message stored after the save comes in through
    the delta; the file is unchanged."""
    path = saved_by_a_fit(home)
    before = path.read_bytes()
    answer = similar(home)
    assert answer["index"]["warm"] is True and answer["index"]["origin"] == "loaded"
    assert "watchdog observer test is flaky" in texts(answer)[0]
    home.message("claude-code:s3", at(4), "Another flaky watchdog observer test run today", session="s3")
    home.commit()
    later = similar(home)
    assert later["index"]["warm"] is True and any("Another flaky" in t for t in texts(later)), texts(later)
    assert path.read_bytes() == before


def test_a_damaged_file_is_left_for_the_daemon_and_fts5_answers(home: History) -> None:
    path = saved_by_a_fit(home)
    path.write_bytes(path.read_bytes()[:100])
    answer = similar(home)
    assert answer["index"]["warm"] is False and answer["index"]["engine"] == "fts5"
    assert path.exists() and len(path.read_bytes()) == 100
