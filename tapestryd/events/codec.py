"""Encode events to JSON payloads and decode them back, upcasting old schema versions.

A payload is the dataclass's fields as a JSON object. Decoding looks the type name up in
:data:`EVENT_TYPES`; an upcaster registered for ``(type, schema)`` turns an old payload into
the next version's shape before construction, so history is never rewritten. A type this
version does not know decodes to :class:`~tapestryd.events.types.UnknownEvent`.

JSON goes through orjson (several times faster than the stdlib both ways); whatever orjson
refuses or would write differently falls back to the stdlib (and so does a long text, see
:data:`ORJSON_MAX`), so the stored values are the ones the stdlib codec stored: lone
surrogates and integers beyond 64 bits (orjson refuses them), NaN and infinities (orjson
would write ``null``; any payload holding ``null`` is re-encoded by the stdlib); when
decoding, ``NaN`` literals (orjson refuses them) and any payload holding a float of magnitude
2**63 or more (orjson reads an integer beyond 64 bits as a float; such a payload is read again
by the stdlib).
"""

from __future__ import annotations

import dataclasses
import json

import orjson
from typing import Any, Callable

from tapestryd.events.thinking import upcast_message_v1
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

__all__ = ["EVENT_TYPES", "UPCASTERS", "decode", "encode", "loads"]

EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (MessageRecorded, ConversationTitled, ImportReceived, ImportFinished, DayClosed,
                NodeSummarized, Forgotten)
}

ORJSON_MAX = 1 << 20
"""Characters of JSON text (or of one string value, encoding) above which the stdlib is used:
orjson peaks at about 13 times a long string's size, the stdlib at 1 to 2 times."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {(MessageRecorded.type, 1): upcast_message_v1}


def encode(event: Event) -> tuple[str, int, str]:
    """``(type, schema, payload JSON)`` of an event; compact JSON, non-ASCII kept as is."""
    if isinstance(event, UnknownEvent):
        return event.name, 0, _dumps(event.payload)
    return event.type, event.schema, _dumps(_payload(event))


def _payload(event: Event) -> dict[str, Any]:
    """The event's fields in declaration order: its ``__dict__`` itself when that is exactly them (read only)."""
    names = _field_names(type(event))
    fields = vars(event)
    if tuple(fields) == names:
        return fields
    return {name: getattr(event, name) for name in names}


def _dumps(payload: dict[str, Any]) -> str:
    for value in payload.values():  # a plain loop: cheaper than any() over a generator
        if type(value) is str and len(value) > ORJSON_MAX:
            return _JSON.encode(payload)
    try:
        out = orjson.dumps(payload)
    except orjson.JSONEncodeError:
        return _JSON.encode(payload)
    text = out.decode()
    return _JSON.encode(payload) if "null" in text else text  # str search: faster than on the bytes


def loads(payload: str) -> Any:
    """``json.loads(payload)``, the same values and the same errors, mostly at orjson's speed.

    orjson reads it first; what orjson refuses (NaN, lone surrogate escapes, broken JSON)
    or reads differently (an integer beyond 64 bits becomes a float) is read by the stdlib,
    which raises its own ``json.JSONDecodeError`` (a ValueError) or RecursionError. Text
    longer than :data:`ORJSON_MAX` goes to the stdlib directly (bounded memory).
    """
    if len(payload) > ORJSON_MAX:
        return json.loads(payload)
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return json.loads(payload)
    return json.loads(payload) if _has_huge_float(data) else data


def _has_huge_float(value: Any) -> bool:
    """Whether a float of magnitude 2**63 or more is anywhere in ``value``.

    An explicit stack of the dicts and lists still to visit, not recursion: one Python
    call per payload instead of one per value (strings, the bulk, are passed over).
    """
    if type(value) is float:
        return abs(value) >= _HUGE
    stack = [value] if type(value) in (dict, list) else []
    while stack:
        container = stack.pop()
        for item in container.values() if type(container) is dict else container:
            kind = type(item)
            if kind is dict or kind is list:
                stack.append(item)
            elif kind is float and (item >= _HUGE or item <= -_HUGE):
                return True
    return False


_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # one encoder: dumps() builds one per call
_FIELDS: dict[type[Event], tuple[str, ...]] = {}
_FIELD_SETS: dict[type[Event], frozenset[str]] = {}
_HUGE = 2.0 ** 63


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return _FIELDS[cls]


def _field_set(cls: type[Event]) -> frozenset[str]:
    if cls not in _FIELD_SETS:
        _FIELD_SETS[cls] = frozenset(_field_names(cls))
    return _FIELD_SETS[cls]


def decode(type_name: str, schema: int, payload: str) -> Event:
    """The event a stored row holds, upcast to the current schema.

    Raises ValueError when the payload is not a JSON object or lacks required fields.
    """
    data = loads(payload)
    if not isinstance(data, dict):
        raise ValueError(f"{type_name} payload is not a JSON object")
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        return UnknownEvent(name=type_name, payload=data)
    while schema < cls.schema:
        data = UPCASTERS[(type_name, schema)](data)
        schema += 1
    known = _field_set(cls)
    if data.keys() == known:  # every field given: what the generated __init__ does, without its per-field calls
        event = object.__new__(cls)
        event.__dict__.update(data)
        return event
    if data.keys() <= known:
        return cls(**data)
    return cls(**{k: v for k, v in data.items() if k in known})
