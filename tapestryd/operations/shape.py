"""Typed JSON objects: frozen dataclasses read from and written to JSON by their fields' types.

A :class:`Record` is a JSON object with one key per field, in the fields' order; a
:class:`Listing` is a JSON list held in its one field. Reading follows each field's annotation:

* a Record (or Listing) subclass is read by its own ``from_json``;
* ``tuple[X, ...]`` from a list, each item read as ``X``;
* ``Mapping[str, X]`` from an object, each value read as ``X`` (``Any``: kept as it came);
* ``X | None``: None stays None, anything else is read as ``X``;
* every other type (str, int, float, bool, Any) is kept as it came, never converted, so
  writing a record back gives the very values it was read from.

Reading gives a missing key its field's default, and keeps a key that is no field (a newer
daemon's, or one the query layer added before its field was declared) aside: it is written
back after the fields, so it still reaches the socket and ``-f json``, but it has no attribute
and takes no part in equality. A field made with :func:`absent` is left out of the JSON when it is
None, for keys an answer has only sometimes (``project`` in search); made with
``absent(along="other")``, it is left out only while the field ``other`` is, and written as
``null`` when None otherwise (a key some outcomes answer null and others leave out); any
other None is written as ``null``. A field made with :func:`rest` holds every key no other field names
(an open set of sections, as in ``status``) and writes them in its place.

How to read and write each field is worked out once per class, and a record is built
without its ``__init__`` when the JSON has every field: a conversation of 10,000 messages
reads and writes in about the time ``json.dumps`` takes for it. Standard library only: the
table of operations imports it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Self

__all__ = ["Listing", "Record", "absent", "rest", "to_plain", "undeclared"]

_ABSENT = "absent_when_none"
_REST = "the_other_keys"
_UNKNOWN = "_unknown_keys"  # instance attribute (not a field) holding the keys no field names

Convert = Callable[[Any], Any] | None
"""How a value is read (or written); None: kept as it is."""


def absent(along: str = "") -> Any:
    """A field that defaults to None and is left out of the JSON while it is None; with ``along``
    (another field's name), left out only while that field is left out (None then written as null)."""
    return field(default=None, metadata={_ABSENT: along or True})


def rest() -> Any:
    """A mapping field (empty by default) holding the keys no other field names, written in its place."""
    return field(default_factory=dict, metadata={_REST: True})


@dataclass(frozen=True)
class Record:
    """A result or one of its parts with named fields; its JSON is an object with one key per field."""

    def to_json(self) -> dict[str, Any]:
        """``{field: value}`` for every field, in order (a None :func:`absent` field left out, the keys
        of a :func:`rest` field in its place)."""
        out: dict[str, Any] = {}
        values = self.__dict__
        for name, _, write, kind, along in _codec(type(self)).fields:
            value = values[name]
            if kind:
                if kind == _REST:
                    out.update(to_plain(value))
                    continue
                if value is None and (not along or values[along] is None):
                    continue
            out[name] = value if write is None or value is None else write(value)
        unknown = values.get(_UNKNOWN)
        if unknown:
            out.update(unknown)
        return out

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The record of a JSON object (keys it does not have are ignored unless a :func:`rest` field
        takes them; missing ones take defaults)."""
        data: Mapping[str, Any] = value if isinstance(value, Mapping) else {}
        codec = _codec(cls)
        try:
            values = {name: data[name] for name in codec.names}
        except KeyError:
            values = {name: data[name] for name in codec.names if name in data}
        for name, read in codec.readers:
            if values.get(name) is not None:
                values[name] = read(values[name])
        found = len(values)
        if codec.rest:
            values[codec.rest] = {k: v for k, v in data.items() if k not in codec.named}
        if found < len(codec.fields) - bool(codec.rest):
            record = cls(**values)
        else:
            record = object.__new__(cls)
            record.__dict__.update(values)  # every field given: what __init__ would do, without its cost
        if found < len(data) and not codec.rest:
            record.__dict__[_UNKNOWN] = {k: v for k, v in data.items() if k not in codec.named}
        return record


@dataclass(frozen=True)
class Listing:
    """A result whose JSON is a list: a subclass declares one field, a tuple of the items."""

    def to_json(self) -> list[Any]:
        """The items, each as JSON."""
        name, _, write, _, _ = _codec(type(self)).fields[0]
        items = self.__dict__[name]
        return list(items) if write is None else write(items)

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The listing of a JSON list (anything else: no items)."""
        name, read, _, _, _ = _codec(cls).fields[0]
        items = value if isinstance(value, list) else []
        return cls(**{name: tuple(items) if read is None else read(items)})


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready values: records as objects, tuples and lists as lists, mappings as dicts."""
    if isinstance(value, (Record, Listing)):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [to_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {key: to_plain(item) for key, item in value.items()}
    return value


def undeclared(value: Any, where: str = "") -> list[str]:
    """The keys read into ``value`` (a record, listing, or tuple or mapping of them) that no field
    declares, as dotted paths (``hits.0.new_key``): what a result type still lacks."""
    if isinstance(value, Record):
        found = [f"{where}{key}" for key in value.__dict__.get(_UNKNOWN, {})]
        return found + [k for f in dataclasses.fields(value) for k in undeclared(getattr(value, f.name),
                                                                                   f"{where}{f.name}.")]
    if isinstance(value, Listing):
        return [k for f in dataclasses.fields(value) for k in undeclared(getattr(value, f.name), where)]
    if isinstance(value, tuple):
        return [k for n, item in enumerate(value) for k in undeclared(item, f"{where}{n}.")]
    return []


@dataclass(frozen=True)
class _Codec:
    """A class's fields as ``(name, read, write, kind, along)`` (kind ``absent``, ``rest`` or ``""``;
    ``along``: the field an absent one is left out with, ``""``: none), the names of the named
    fields (in order, and as a set), the ones read by a function, and the name
    of its :func:`rest` field (``""``: none)."""

    fields: tuple[tuple[str, Convert, Convert, str, str], ...]
    names: tuple[str, ...]
    named: frozenset[str]
    readers: tuple[tuple[str, Callable[[Any], Any]], ...]
    rest: str


_CODECS: dict[type[Any], _Codec] = {}


def _codec(cls: type[Any]) -> _Codec:
    """The codec of ``cls``, worked out on first use."""
    found = _CODECS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        entries = tuple((f.name, _reader(hints[f.name]), _writer(hints[f.name]),
                         _ABSENT if f.metadata.get(_ABSENT) else _REST if f.metadata.get(_REST) else "",
                         _along(f.metadata.get(_ABSENT)))
                        for f in dataclasses.fields(cls))
        names = tuple(n for n, _, _, k, _ in entries if k != _REST)
        readers = tuple((n, r) for n, r, _, k, _ in entries if r is not None and k != _REST)
        found = _CODECS[cls] = _Codec(entries, names, frozenset(names), readers,
                                      next((n for n, _, _, k, _ in entries if k == _REST), ""))
    return found


def _along(mark: Any) -> str:
    """The field an :func:`absent` one is left out with (``""``: none), from its metadata mark."""
    return mark if isinstance(mark, str) else ""


def _optional(hint: Any) -> Any:
    """``X`` of ``X | None`` (None stays None: the callers pass it through), else ``hint``."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        kept = [a for a in typing.get_args(hint) if a is not type(None)]
        return kept[0] if len(kept) == 1 else Any
    return hint


def _reader(hint: Any) -> Convert:
    """How to read a JSON value (not None) into a field annotated ``hint`` (see the module docstring)."""
    hint = _optional(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, (Record, Listing)):
        return hint.from_json
    if origin is tuple:
        item = _reader(args[0])
        if item is None:
            return lambda v: tuple(v) if isinstance(v, (list, tuple)) else ()
        return lambda v: tuple([None if i is None else item(i) for i in v]) if isinstance(v, (list, tuple)) else ()
    if origin in (Mapping, dict):
        each = _reader(args[1])
        if each is None:
            return lambda v: dict(v) if isinstance(v, Mapping) else {}
        return lambda v: {k: None if x is None else each(x) for k, x in v.items()} if isinstance(v, Mapping) else {}
    return None


def _writer(hint: Any) -> Convert:
    """How to write a field annotated ``hint`` (its value not None) as JSON."""
    hint = _optional(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, (Record, Listing)):
        return _to_json
    if origin is tuple:
        item = _writer(args[0])
        if item is None:
            return list
        return lambda v: [None if i is None else item(i) for i in v]
    if origin in (Mapping, dict):
        each = _writer(args[1])
        if each is None:
            return dict
        return lambda v: {k: None if x is None else each(x) for k, x in v.items()}
    if hint in (str, int, float, bool):
        return None
    return to_plain


def _to_json(value: Record | Listing) -> Any:
    return value.to_json()
