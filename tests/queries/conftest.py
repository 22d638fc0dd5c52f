"""Fixtures for the query tests: a home in Europe/Paris with a history written into the log.

Messages and summaries are appended as real events (MessageRecorded, NodeSummarized) and
projected by the real projector, so the queries read what the daemon would hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tapestryd.config import Settings, load_settings
from tapestryd.daemon.runtime import Runtime
from tapestryd.events import MessageRecorded, NewEvent, NodeSummarized, event_id, format_utc

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 3, 4, 15, 30, tzinfo=PARIS)  # a Wednesday afternoon


@dataclass
class History:
    """A home's settings and helpers that append messages and summaries to its log."""

    settings: Settings
    count: int = 0
    pending: list[NewEvent] = field(default_factory=list)

    def message(self, conversation: str, local: datetime, text: str, *, role: str = "user", agent: str = "claude-code",
                cwd: str = "", session: str = "") -> None:
        """Queue one message at local time ``local`` (aware)."""
        self.count += 1
        meta = {"cwd": cwd} if cwd else {}
        event = MessageRecorded(conversation, f"m{self.count}", role, text, format_utc(local), session=session,
                                meta=meta)
        self.pending.append(NewEvent(event_id("test", str(self.count)), event, local, agent, f"test#{self.count}"))

    def summary(self, key: str, title: str, text: str) -> None:
        """Queue a NodeSummarized for node ``key``."""
        self.count += 1
        level = int(key[1])
        event = NodeSummarized(node=key, level=level, fingerprint=f"fp{self.count}", provider="test", model="",
                               prompt_version="t1", title=title, text=text)
        self.pending.append(NewEvent(event_id("test", str(self.count)), event, NOW, key.split(":")[1], "test"))

    def commit(self) -> None:
        """Append the queued events and project them."""
        with Runtime.open(self.settings) as runtime:
            runtime.store.append(self.pending)
            runtime.projector.catch_up()
        self.pending.clear()


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
