"""Encode events to JSON payloads and decode them back, upcasting old schema versions.

A payload is the dataclass's fields as a JSON object. Decoding looks the type name up in
:data:`EVENT_TYPES`; an upcaster registered for ``(type, schema)`` turns an old payload into
the next version's shape before construction, so history is never rewritten. A type this
version does not know decodes to :class:`~tapestryd.events.types.UnknownEvent`.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable

from tapestryd.events.types import (
    ConversationTitled,
    DayClosed,
    Event,
    Forgotten,
    ImportFinished,
    ImportReceived,
    MessageRecorded,
    NodeSummarized,
    UnknownEvent,
)

__all__ = ["EVENT_TYPES", "UPCASTERS", "decode", "encode"]

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (MessageRecorded, ConversationTitled, ImportReceived, ImportFinished, DayClosed,
                NodeSummarized, Forgotten)
}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def encode(event: Event) -> tuple[str, int, str]:
    """``(type, schema, payload JSON)`` of an event; compact JSON, non-ASCII kept as is."""
    if isinstance(event, UnknownEvent):
        return event.name, 0, _JSON.encode(event.payload)
    payload = {name: getattr(event, name) for name in _field_names(type(event))}
    return event.type, event.schema, _JSON.encode(payload)


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # one encoder: dumps() builds one per call
_FIELDS: dict[type[Event], tuple[str, ...]] = {}


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _FIELDS[cls]


def decode(type_name: str, schema: int, payload: str) -> Event:
    """The event a stored row holds, upcast to the current schema.

    Raises ValueError when the payload is not a JSON object or lacks required fields.
    """
    data = json.loads(payload)
    if not isinstance(data, dict):
        raise ValueError(f"{type_name} payload is not a JSON object")
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        return UnknownEvent(name=type_name, payload=data)
    while schema < cls.schema:
        data = UPCASTERS[(type_name, schema)](data)
        schema += 1
    known = _field_names(cls)
    return cls(**{k: v for k, v in data.items() if k in known})
