"""Reading the event log itself, read-only (for ``tapestryctl export-log``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from tapestryd.events.codec import encode
from tapestryd.events.store import EventStore
from tapestryd.privacy import outbound

__all__ = ["iter_log"]


def iter_log(events_db: Path, *, since: int = 0, redacted: bool = False) -> Iterator[dict[str, Any]]:
    """Each event after seq ``since`` as a JSON-ready dict with its envelope, in seq order.

    Keys: seq, event_id, type, schema, occurred_at, recorded_at, agent, source, payload.
    The log is verbatim: secrets and private spans included. ``redacted`` passes every string
    of the payload, and the source, through :func:`tapestryd.privacy.outbound` (private spans
    stripped, secrets replaced), the filter of every other output. Raises StoreError when the
    log cannot be opened.
    """
    import json

    with EventStore(events_db, readonly=True) as store:
        for ev in store.read(after=since):
            type_name, schema, payload = encode(ev.event)
            record = {"seq": ev.seq, "event_id": ev.event_id, "type": type_name, "schema": schema,
                      "occurred_at": ev.occurred_at, "recorded_at": ev.recorded_at, "agent": ev.agent,
                      "source": ev.source, "payload": json.loads(payload)}
            if redacted:
                record["source"], record["payload"] = outbound(ev.source), _filtered(record["payload"])
            yield record


def _filtered(value: Any) -> Any:
    """``value`` (decoded JSON) with each string value passed through :func:`outbound` (keys kept)."""
    if isinstance(value, str):
        return outbound(value)
    if isinstance(value, list):
        return [_filtered(v) for v in value]
    if isinstance(value, dict):
        return {k: _filtered(v) for k, v in value.items()}
    return value
