"""The calendar tests' known history, built through the real log, and small helpers.

Messages, closed days and summaries are appended to the real event store and applied by the
real projector (messages + hierarchy), exactly as the daemon would; nothing is written into
the projection tables by hand. Timezone UTC, today 2026-03-21 (a FixedClock).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from flask import Flask

from tapestryd.config import Settings, load_settings
from tapestryd.events.store import EventStore
from tapestryd.events.types import (
    ConversationTitled,
    DayClosed,
    Event,
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
)
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections

TODAY = datetime(2026, 3, 21, 12, 0, tzinfo=timezone.utc)
XSS = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'

MESSAGES = [  # conversation, agent, key, role, ISO UTC, text
    ("chatgpt:garden", "chatgpt", "m1", "user", "2026-03-04T10:00:00.000000Z", "How deep should I plant garlic?"),
    ("chatgpt:garden", "chatgpt", "m2", "assistant", "2026-03-04T10:30:00.000000Z",
     "Plant **garlic** 5 cm deep. " + XSS + " [click](javascript:alert(1))"),
    ("claude-code:s1", "claude-code", "u1", "user", "2026-03-04T14:00:00.000000Z", "The sqlite lock test fails again"),
    ("claude-code:s1", "claude-code", "a1", "assistant", "2026-03-04T14:05:00.000000Z", "WAL mode fixes the lock."),
    ("claude-code:s1", "claude-code", "u2", "user", "2026-03-05T09:00:00.000000Z", "Next day: the lock is back"),
    ("chatgpt:tomato", "chatgpt", "t1", "user", "2026-03-20T08:00:00.000000Z", "Tomato seedlings are leggy"),
    ("chatgpt:tomato", "chatgpt", "t2", "user", "2026-03-20T08:01:00.000000Z",
     "More light? <private>my door code is 4711</private> Thanks."),
]
TITLES = {"chatgpt:garden": "Garlic planting", "claude-code:s1": "Fix the sqlite lock", "chatgpt:tomato": "Tomatoes"}
SUMMARIES = [  # node key, level, title, text
    ("L0:chatgpt:2026-03-04:chatgpt:garden", 0, "Garlic depth", "I asked how deep to plant garlic: 5 cm."),
    ("L1:chatgpt:2026-03-04", 1, "Garden planning day", "I planned the **garlic** bed. " + XSS),
    ("L2:chatgpt:2026-03-02w", 2, "Week of garden plans", "A week spent planning the garden."),
    ("L3:chatgpt:2026-03", 3, "March in the garden", "March went to garlic and tomatoes."),
    ("L4:chatgpt:2026", 4, "2026: growing food", "The year I started a vegetable garden."),
    ("L1:claude-code:2026-03-04", 1, "SQLite lock debugging", "I fixed a sqlite lock with WAL mode."),
]


def _new(event: Event, key: str, at: str, agent: str) -> NewEvent:
    return NewEvent(event_id("calendar-test", key), event, datetime.fromisoformat(at.replace("Z", "+00:00")),
                    agent=agent, source=f"test:{key}")


def history_events() -> list[NewEvent]:
    """Messages, titles and day closes of the test history."""
    events = [_new(MessageRecorded(conv, key, role, text, ts), f"{conv}/{key}", ts, agent)
              for conv, agent, key, role, ts, text in MESSAGES]
    events += [_new(ConversationTitled(conv, title), f"title/{conv}", "2026-03-04T10:00:00Z", conv.split(":")[0])
               for conv, title in TITLES.items()]
    events += [_new(DayClosed(day, "UTC"), f"close/{day}", f"{day}T02:00:00Z", "")
               for day in ("2026-03-04", "2026-03-05")]
    return events


def summary_events(conn_nodes: dict[str, str]) -> list[NewEvent]:
    """NodeSummarized for each node of SUMMARIES, made from its current fingerprint."""
    return [_new(NodeSummarized(key, level, conn_nodes[key], "extractive", "", "v1", title, text,
                                {"calls": 1, "tokens_in": 10, "tokens_out": 5}), f"sum/{key}",
                 "2026-03-06T03:00:00Z", key.split(":")[1])
            for key, level, title, text in SUMMARIES]


def build_history(settings: Settings) -> None:
    """Append the test history to ``settings``' home and project it."""
    paths = paths_for(settings)
    paths.ensure()
    with EventStore(paths.events_db) as store:
        projector = Projector(store, paths.projections_db,
                              default_projections(settings.timezone, settings.first_day_of_week))
        try:
            store.append(history_events())
            projector.catch_up()
            fingerprints = dict(projector.conn.execute("SELECT key, fingerprint FROM nodes").fetchall())
            store.append(summary_events(fingerprints))
            projector.catch_up()
        finally:
            projector.close()


def csrf_of(app: Flask) -> str:
    """The app's CSRF token, as the page's meta tag carries it."""
    return str(app.extensions["tapestry"].csrf_token)


def reload_settings(home: Path) -> Settings:
    """Settings re-read from ``home`` after a test changed tapestry.toml."""
    return load_settings(home)
