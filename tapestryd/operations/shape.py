"""Typed JSON objects: frozen dataclasses read from and written to JSON by their fields' types.

A :class:`Record` is a JSON object with one key per field, in the fields' order; a
:class:`Listing` is a JSON list held in its one field. Reading follows each field's annotation:

* a Record (or Listing) subclass is read by its own ``from_json``;
* ``tuple[X, ...]`` from a list, each item read as ``X``;
* ``Mapping[str, X]`` from an object, each value read as ``X`` (``Any``: kept as it came);
* ``X | None``: None stays None, anything else is read as ``X``;
* every other type (str, int, float, bool, Any) is kept as it came, never converted, so
  writing a record back gives the very values it was read from.

Reading ignores keys that are not fields (a newer daemon may send more) and gives a missing
key its field's default. A field made with :func:`absent` is left out of the JSON when it is
None, for keys an answer has only sometimes (``project`` in search); any other None is
written as ``null``. Standard library only: the table of operations imports it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Self

__all__ = ["Listing", "Record", "absent", "to_plain"]

_ABSENT = "absent_when_none"

Read = Callable[[Any], Any]


def absent() -> Any:
    """A field that defaults to None and is left out of the JSON while it is None."""
    return field(default=None, metadata={_ABSENT: True})


@dataclass(frozen=True)
class Record:
    """A result or one of its parts with named fields; its JSON is an object with one key per field."""

    def to_json(self) -> dict[str, Any]:
        """``{field: value}`` for every field, in order (a None :func:`absent` field left out)."""
        return {name: to_plain(value) for name, value, skip in _values(self) if not (skip and value is None)}

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The record of a JSON object (keys it does not have are ignored; missing ones take defaults)."""
        data = value if isinstance(value, Mapping) else {}
        return cls(**{name: read(data[name]) for name, read, _ in _codec(cls) if name in data})


@dataclass(frozen=True)
class Listing:
    """A result whose JSON is a list: a subclass declares one field, a tuple of the items."""

    def to_json(self) -> list[Any]:
        """The items, each as JSON."""
        return [to_plain(item) for item in getattr(self, dataclasses.fields(self)[0].name)]

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The listing of a JSON list (anything else: no items)."""
        name, read, _ = _codec(cls)[0]
        return cls(**{name: read(value if isinstance(value, list) else [])})


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready values: records as objects, tuples and lists as lists, mappings as dicts."""
    if isinstance(value, (Record, Listing)):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [to_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: to_plain(item) for key, item in value.items()}
    return value


def _values(record: Record) -> list[tuple[str, Any, bool]]:
    return [(name, getattr(record, name), skip) for name, _, skip in _codec(type(record))]


_CODECS: dict[type[Any], list[tuple[str, Read, bool]]] = {}


def _codec(cls: type[Any]) -> list[tuple[str, Read, bool]]:
    """``(name, how to read it, absent when None)`` for each field of ``cls`` (worked out once per class)."""
    if cls not in _CODECS:
        hints = typing.get_type_hints(cls)
        _CODECS[cls] = [(f.name, _reader(hints[f.name]), bool(f.metadata.get(_ABSENT)))
                        for f in dataclasses.fields(cls)]
    return _CODECS[cls]


def _same(value: Any) -> Any:
    return value


def _reader(hint: Any) -> Read:
    """How to read a JSON value into a field annotated ``hint`` (see the module docstring)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, (Record, Listing)):
        return hint.from_json
    if origin in (types.UnionType, typing.Union):
        kept = [a for a in args if a is not type(None)]
        inner = _reader(kept[0]) if len(kept) == 1 else _same
        return _same if inner is _same else (lambda v: None if v is None else inner(v))
    if origin is tuple:
        item = _reader(args[0])
        return lambda v: tuple(item(i) for i in v) if isinstance(v, (list, tuple)) else ()
    if origin in (Mapping, dict):
        each = _reader(args[1])
        return lambda v: {k: each(x) for k, x in v.items()} if isinstance(v, Mapping) else {}
    return _same
