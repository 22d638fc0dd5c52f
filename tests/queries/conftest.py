"""Fixtures for the query tests: a home in Europe/Paris with a history written into the log."""

from __future__ import annotations

from pathlib import Path

import pytest
from query_helpers import History

from tapestryd.config import load_settings


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
