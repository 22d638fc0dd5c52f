"""Fixtures shared by every test: a private home per test and the shared corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import structlog

from tapestryd.config import Settings, load_settings

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def agent_homes(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Codex CLI, Gemini CLI and OpenCode homes in a temporary folder, so no test watches the real ones;
    and embeddings off (``TAPESTRY_EMBEDDINGS``, whatever the shell says), so every machine ranks and
    imports as CI does (tests/embeddings turn them on where they test them)."""
    monkeypatch.setenv("TAPESTRY_EMBEDDINGS", "off")
    root = tmp_path_factory.mktemp("agent-homes")
    monkeypatch.setenv("CODEX_HOME", str(root / "codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(root / "gemini"))
    monkeypatch.setenv("XDG_DATA_HOME", str(root / "xdg"))


@pytest.fixture(autouse=True)
def structlog_defaults() -> Iterator[None]:
    """structlog as it comes, around each test: a CLI run in-process sets it to print warnings
    and worse, which would keep a later test's ``capture_logs`` from seeing its info lines."""
    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


@pytest.fixture
def corpus() -> Path:
    """``../shared/corpus`` beside the repository; skips when it is not there (a user's machine)."""
    path = SHARED / "corpus"
    if not path.is_dir():
        pytest.skip(f"the shared corpus is not at {path} (only CI and developers have it)")
    return path


@pytest.fixture
def evals() -> Path:
    """``../shared/evals/locomo-dev``; skips when it is not there."""
    path = SHARED / "evals" / "locomo-dev"
    if not path.is_dir():
        pytest.skip(f"the eval split is not at {path}")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh TAPESTRY_HOME (UTC timezone, no watched roots outside it) for one test."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "tapestry.toml").write_text(
        '[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = ["%s"]\n' % (root / "claude-projects")
    )
    monkeypatch.setenv("TAPESTRY_HOME", str(root))
    monkeypatch.delenv("TAPESTRY_SOCKET", raising=False)
    monkeypatch.delenv("TAPESTRY_API_KEY", raising=False)
    monkeypatch.delenv("TAPESTRY_DISABLE", raising=False)
    return root


@pytest.fixture
def settings(home: Path) -> Settings:
    """The Settings of the test's home."""
    return load_settings(home)
