"""Requests to and from JSON ``args``, as the socket protocol and the front ends carry them.

:func:`decode` reads a request's fields from a JSON object by the field's type: a missing key,
``None`` or ``""`` takes the field's default (an optional ``str`` keeps ``""``, which differs
from ``None``: no value), numbers written as text are read as numbers, a list becomes a tuple. A number that is
none raises TapestryError naming the option, the message a user sees. Keys that are not fields
are ignored when ``strict`` is false (the socket: an older or newer client may send more), and
raise TapestryError when it is true (a front end naming a field the table does not have).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Mapping, TypeVar

from tapestryd.errors import TapestryError

__all__ = ["decode", "encode", "field_names"]

Req = TypeVar("Req")


def encode(request: Any) -> dict[str, Any]:
    """The JSON ``args`` of a request (lists for tuples)."""
    return {f.name: _plain(getattr(request, f.name)) for f in dataclasses.fields(request)}


def decode(cls: type[Req], args: Mapping[str, Any], *, strict: bool = False) -> Req:
    """The request ``cls`` read from ``args``; raises TapestryError for a value of the wrong kind
    (and, when ``strict``, for a key that is not one of its fields)."""
    hints = _hints(cls)
    if strict and (unknown := sorted(set(args) - set(hints))):
        raise TapestryError(f"{cls.__name__} has no field {', '.join(unknown)}")
    values = {name: _read(name, hint, args[name]) for name, hint in hints.items() if _given(hint, args.get(name))}
    return cls(**values)


def field_names(cls: type[Any]) -> tuple[str, ...]:
    """The field names of a request class, in order."""
    return tuple(_hints(cls))


_HINTS: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """Field name → resolved type of a request class (computed once per class)."""
    if cls not in _HINTS:
        resolved = typing.get_type_hints(cls)
        _HINTS[cls] = {f.name: resolved[f.name] for f in dataclasses.fields(cls)}
    return _HINTS[cls]


def _given(hint: Any, value: Any) -> bool:
    """Whether ``value`` sets its field: not None, and not ``""`` unless the field is an optional str."""
    return value is not None and (value != "" or hint == (str | None))


def _optional(hint: Any) -> bool:
    return isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint)


def _read(name: str, hint: Any, value: Any) -> Any:
    kinds = [k for k in typing.get_args(hint) if k is not type(None)] if _optional(hint) else [hint]
    kind = kinds[0]
    if kind is bool:
        return bool(value)
    if kind is int:
        return _number(name, value, int)
    if kind is float:
        return _number(name, value, float)
    if typing.get_origin(kind) is tuple:
        items = value if isinstance(value, (list, tuple)) else [value]
        if typing.get_args(kind)[0] is int:
            return tuple(_whole(name, value, item) for item in items)
        return tuple(str(item) for item in items)
    return str(value)


def _number(name: str, value: Any, kind: type[int] | type[float]) -> int | float:
    try:
        return kind(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TapestryError(f"{name.replace('_', '-')} must be a number, got {value!r}") from exc


def _whole(name: str, value: Any, item: Any) -> int:
    if isinstance(item, bool):
        raise TapestryError(f"{name} must be whole numbers, got {value!r}")
    try:
        return int(item)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TapestryError(f"{name} must be whole numbers, got {value!r}") from exc


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
