"""Fixtures for the query tests: a home in Europe/Paris with a history written into the log."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import SimilarityIndex
from tapestryd.projections.warmfile import index_file


@pytest.fixture
def paris_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh TAPESTRY_HOME whose timezone is Europe/Paris and whose weeks start on Monday."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "tapestry.toml").write_text('[general]\ntimezone = "Europe/Paris"\nfirst_day_of_week = "monday"\n'
                                        '[sources]\nwatched_roots = ["%s"]\n' % (root / "claude-projects"))
    monkeypatch.setenv("TAPESTRY_HOME", str(root))
    for name in ("TAPESTRY_SOCKET", "TAPESTRY_API_KEY", "TAPESTRY_DISABLE"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.fixture
def history(paris_home: Path) -> History:
    """An empty history writer for the Paris home."""
    return History(load_settings(paris_home))


@pytest.fixture
def seeded(history: History) -> History:
    """The history of three topics (bread, a flaky test, a knot) on 2-3 March and an L1 summary of the test's day,
    for the similarity tests."""
    def at(d: int, h: int = 10) -> datetime:
        return datetime(2026, 3, d, h, 0, tzinfo=PARIS)

    history.message("chatgpt:c1", at(2), "A recipe for braided bread with honey and sesame", agent="chatgpt")
    history.message("claude-code:s1", at(3), "The watchdog observer test is flaky on macOS", session="s1")
    history.message("claude-code:s2", at(3, 11), "Tie a bowline knot on the sailing rope", session="s2")
    history.commit()
    history.summary("L1:claude-code:2026-03-03", "Flaky tests", "Fixed the flaky watchdog observer test.")
    history.commit()
    return history


@pytest.fixture
def saved(seeded: History) -> Path:
    """The warm index file of the seeded home, written by a fit (as the daemon's), nothing running after."""
    path = index_file(paths_for(seeded.settings).projections_db)
    fitted = SimilarityIndex(paths_for(seeded.settings).projections_db, saved=path)
    fitted.build()
    fitted.stop()
    return path
