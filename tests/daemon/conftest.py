"""Fixtures for the daemon tests: a private home whose watched root lives in tmp, and a
handle on ``tapestryd`` as a real subprocess (helpers in ``daemon_helpers``)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from daemon_helpers import Daemon, write_config


@pytest.fixture
def projects(home: Path) -> Path:
    """The watched root (Claude Code's projects folder stand-in) of the test home."""
    root = home / "claude-projects"
    root.mkdir()
    write_config(home, roots=[root])
    return root


@pytest.fixture
def daemon(home: Path, projects: Path) -> Iterator[Daemon]:
    """A daemon handle for the test home (not started)."""
    handle = Daemon(home)
    yield handle
    handle.cleanup()
