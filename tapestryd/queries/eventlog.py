"""Reading the event log itself, read-only (for ``tapestryctl export-log``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from tapestryd.events.codec import encode
from tapestryd.events.store import EventStore

__all__ = ["iter_log"]


def iter_log(events_db: Path, *, since: int = 0) -> Iterator[dict[str, Any]]:
    """Each event after seq ``since`` as a JSON-ready dict with its envelope, in seq order.

    Keys: seq, event_id, type, schema, occurred_at, recorded_at, agent, source, payload.
    Raises StoreError when the log cannot be opened.
    """
    import json

    with EventStore(events_db, readonly=True) as store:
        for ev in store.read(after=since):
            type_name, schema, payload = encode(ev.event)
            yield {"seq": ev.seq, "event_id": ev.event_id, "type": type_name, "schema": schema,
                   "occurred_at": ev.occurred_at, "recorded_at": ev.recorded_at, "agent": ev.agent,
                   "source": ev.source, "payload": json.loads(payload)}
