"""Event helpers for privacy and safety tests (append messages and titles, read stored text)."""

from __future__ import annotations

from datetime import datetime

from tapestryd.events.types import (
    ConversationTitled,
    MessageRecorded,
    NewEvent,
    event_id,
    parse_utc,
)
from tapestryd.operations.runtime import Runtime


def message(conversation: str, key: str, text: str, ts: str, *, role: str = "user",
            agent: str = "claude-code", meta: dict[str, object] | None = None) -> NewEvent:
    """A MessageRecorded envelope with a stable event id."""
    event = MessageRecorded(conversation, key, role, text, ts, meta=dict(meta or {}))
    return NewEvent(event_id("msg", conversation, key, text), event, parse_utc(ts), agent, f"test:{conversation}")


def title(conversation: str, text: str, ts: str = "2025-01-01T00:00:00Z") -> NewEvent:
    """A ConversationTitled envelope."""
    return NewEvent(event_id("title", conversation, text), ConversationTitled(conversation, text), parse_utc(ts),
                    "claude-code", f"test:{conversation}")


def record(rt: Runtime, *events: NewEvent) -> None:
    """Append events and catch the projections up."""
    rt.store.append(list(events))
    rt.projector.catch_up()


def texts(rt: Runtime) -> dict[tuple[str, str], str]:
    """Stored message text by (conversation, message key)."""
    return {(c, k): t for c, k, t in rt.projector.conn.execute("SELECT conversation, message_key, text FROM messages")}


def at(day: str, hour: int = 12) -> str:
    """ISO UTC of ``day`` (YYYY-MM-DD) at ``hour``."""
    return datetime.fromisoformat(f"{day}T{hour:02d}:00:00+00:00").strftime("%Y-%m-%dT%H:%M:%S.000000Z")
