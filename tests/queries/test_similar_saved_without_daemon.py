"""``similar`` without a daemon answers from the index the daemon saved, as the daemon would; else from FTS5.

The saved file is read, never written: a file it cannot use is left for the daemon.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from query_helpers import PARIS, History

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import SimilarRequest

QUERY = "flaky watchdog observer test"


def similar(history: History) -> dict[str, Any]:
    result: Any = run_here(history.settings, SimilarRequest(query=QUERY, top=5))
    return dict(result.to_json())


def texts(answer: dict[str, Any]) -> list[str]:
    return [hit["snippet"] for hit in answer["hits"]]


def test_without_a_file_the_full_text_index_answers(seeded: History) -> None:
    answer = similar(seeded)
    assert answer["index"]["warm"] is False and answer["index"]["engine"] == "fts5"


def test_a_saved_index_answers_as_the_daemon_would(seeded: History, saved: Path) -> None:
    """The warm answer (TF-IDF cosine, ``origin`` loaded), and a message stored after the save comes in through
    the delta; the file is unchanged."""
    before = saved.read_bytes()
    answer = similar(seeded)
    assert answer["index"]["warm"] is True and answer["index"]["origin"] == "loaded"
    assert any("watchdog observer test is flaky" in t for t in texts(answer)[:2]), texts(answer)
    seeded.message("claude-code:s3", datetime(2026, 3, 4, 10, tzinfo=PARIS), "Another flaky watchdog observer test",
                   session="s3")
    seeded.commit()
    later = similar(seeded)
    assert later["index"]["warm"] is True and any("Another flaky" in t for t in texts(later)), texts(later)
    assert saved.read_bytes() == before


def test_a_damaged_file_is_left_for_the_daemon_and_fts5_answers(seeded: History, saved: Path) -> None:
    saved.write_bytes(saved.read_bytes()[:100])
    answer = similar(seeded)
    assert answer["index"]["warm"] is False and answer["index"]["engine"] == "fts5"
    assert saved.exists() and len(saved.read_bytes()) == 100
