"""A home whose tree was built by the real pipeline: messages in the log, days closed, summarized."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from quality_helpers import ALICE, BOB, CAROL

from tapestryd.config import load_settings
from tapestryd.events import DayClosed, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import Target, summarize_dirty
from tapestryd.summarize import ExtractiveSummarizer

DAYS = {"2026-03-02": ("c1", ALICE), "2026-03-03": ("c2", BOB), "2026-03-04": ("c3", CAROL)}


def _message(day: str, conversation: str, text: str) -> NewEvent:
    at = datetime.fromisoformat(f"{day}T10:00:00+00:00")
    body = MessageRecorded(f"claude-ai:{conversation}", "m1", "user", text, format_utc(at))
    return NewEvent(event_id("msg", conversation), body, at, "claude-ai", f"export#{conversation}")


@pytest.fixture
def built_home(home: Path) -> Path:
    """Three days (Mon 2 - Wed 4 March 2026, UTC), one conversation a day of one fact each,
    every day closed and the whole tree summarized with telescoping context, extractively."""
    closed = datetime(2027, 1, 2, tzinfo=timezone.utc)
    with Runtime.open(load_settings(home)) as rt:
        rt.store.append([_message(day, conv, text) for day, (conv, text) in DAYS.items()])
        rt.store.append([NewEvent(event_id("close", day), DayClosed(day, "UTC"), closed) for day in _year_days()])
        rt.projector.catch_up()
        report = summarize_dirty(Target.of(rt), ExtractiveSummarizer())
        assert report.remaining == 0 and not report.failed
    return home


def _year_days() -> list[str]:
    from datetime import date, timedelta

    start = date(2026, 1, 1)
    return [(start + timedelta(days=n)).isoformat() for n in range(365)]
