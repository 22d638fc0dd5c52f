"""Whether a decoded event's fields hold the types its dataclass declares.

The codec builds an event from whatever JSON values a payload holds; the local log only ever
holds what this machine's own parsers made, but a hub row comes from elsewhere (another
version, a bug, a hand edit). A pulled event whose ``text`` is a number or whose ``meta`` is
a list would be appended, then stop the projections at it for good, and a message whose
``timestamp`` is not an ISO instant would break every search it matches; :func:`wrong_field`
lets the sync engine skip such a row instead.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from tapestryd.events.types import Event, MessageRecorded, parse_utc

__all__ = ["wrong_field"]

_INSTANTS: dict[type[Event], tuple[str, ...]] = {MessageRecorded: ("timestamp",)}
"""Fields read as ISO instants (:func:`~tapestryd.events.types.parse_utc`) wherever they are shown."""
_HINTS: dict[type[Event], list[tuple[str, Any]]] = {}


def _hints(cls: type[Event]) -> list[tuple[str, Any]]:
    """``(field name, declared type)`` of an event class, in declaration order (cached)."""
    if cls not in _HINTS:
        declared = typing.get_type_hints(cls)
        _HINTS[cls] = [(f.name, declared[f.name]) for f in dataclasses.fields(cls)]
    return _HINTS[cls]


def _is(value: Any, kind: Any) -> bool:
    """Whether ``value`` is of ``kind``: str, int (a bool is not), float, Any, or dict/list of those."""
    if kind is Any:
        return True
    origin = typing.get_origin(kind)
    if origin is dict:
        keys, values = typing.get_args(kind)
        return type(value) is dict and all(_is(k, keys) and _is(v, values) for k, v in value.items())
    if origin is list:
        (items,) = typing.get_args(kind)
        return type(value) is list and all(_is(item, items) for item in value)
    if kind is int:
        return type(value) is int
    if kind is float:
        return type(value) in (int, float)
    return isinstance(value, kind)


def wrong_field(event: Event) -> str:
    """``""`` when every field of ``event`` holds its declared type, else a phrase naming the first
    that does not (``"field text is int, not str"``, ``"field timestamp 'soon' is not an ISO instant"``)."""
    for name, kind in _hints(type(event)):
        value = getattr(event, name)
        if not _is(value, kind):
            expected = getattr(kind, "__name__", None) if typing.get_origin(kind) is None else None
            return f"field {name} is {type(value).__name__}, not {expected or str(kind).replace('typing.', '')}"
    for name in _INSTANTS.get(type(event), ()):
        try:
            parse_utc(getattr(event, name))
        except ValueError:
            return f"field {name} {getattr(event, name)!r} is not an ISO instant"
    return ""
