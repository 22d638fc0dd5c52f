"""Documents of the warm index read from ``projections.db``: messages and summarized nodes.

A :class:`Corpus` holds per-document values in compact typed arrays (kind, reference,
time, agent, role, conversation), the shape :meth:`~tapestryd.projections.termmatrix.Block.build`
takes. The fitted corpus streams its texts straight into the vectorizer
(:meth:`Corpus.stream`) and never keeps them; a delta corpus (a few changed documents)
keeps them, to be counted again when the delta is rebuilt. A message's reference is its
id; a node's is its position in the index's node-key table, which only ever grows (a node
summarized after the fit is appended to it).
"""

from __future__ import annotations

import sqlite3
from array import array
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterator

from tapestryd.projections.hierarchy_views import summaries
from tapestryd.projections.messages_read import documents
from tapestryd.projections.termmatrix import Codes

__all__ = ["MESSAGE", "Corpus", "load_changed", "micros"]

MESSAGE = -1  # kind of a message; nodes use their level 0–4
_CHUNK = 900  # ids per IN (...) list, under SQLite's parameter limit
_COLUMNS = (("kinds", "b"), ("refs", "q"), ("ts", "q"), ("agent", "i"), ("role", "i"), ("conversation", "i"))


def _arrays() -> dict[str, array[int]]:
    return {name: array(code) for name, code in _COLUMNS}


@dataclass
class Corpus:
    """Documents as parallel typed arrays, plus their texts when kept (see the module docstring)."""

    node_keys: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    values: dict[str, array[int]] = field(default_factory=_arrays)

    def __len__(self) -> int:
        return len(self.values["kinds"])

    def add(self, row: tuple[int, int, int, int, int, int], text: str | None = None) -> None:
        """Append one document's values (kind, ref, ts, agent, role, conversation) and, if kept, its text."""
        for (name, _), value in zip(_COLUMNS, row):
            self.values[name].append(value)
        if text is not None:
            self.texts.append(text)

    def row(self, i: int) -> tuple[int, int, int, int, int, int]:
        """The values of document ``i``."""
        v = self.values
        return (v["kinds"][i], v["refs"][i], v["ts"][i], v["agent"][i], v["role"][i], v["conversation"][i])

    def doc(self, i: int) -> str:
        """Document ``i``'s identity: ``m:<message id>`` or ``n:<node key>``."""
        kind, ref = self.values["kinds"][i], self.values["refs"][i]
        return f"m:{ref}" if kind == MESSAGE else f"n:{self.node_keys[ref]}"

    def columns(self) -> dict[str, array[int]]:
        """The per-document value arrays by name."""
        return self.values

    def without(self, gone: set[str]) -> Corpus:
        """A copy (texts kept, same node-key table) without the documents whose identity is in ``gone``.

        Raises ValueError for a corpus that did not keep its texts (one filled by :meth:`stream`).
        """
        self._check_texts()
        kept = Corpus(node_keys=self.node_keys)
        for i in range(len(self)):
            if self.doc(i) not in gone:
                kept.add(self.row(i), self.texts[i])
        return kept

    def plus(self, other: Corpus) -> Corpus:
        """This corpus followed by ``other`` (texts kept).

        Raises ValueError when ``other`` refers to nodes by another node-key table or either
        corpus did not keep its texts.
        """
        if other.node_keys is not self.node_keys:
            raise ValueError("the corpora number their nodes in different node-key tables")
        other._check_texts()
        joined = self.without(set())
        for i in range(len(other)):
            joined.add(other.row(i), other.texts[i])
        return joined

    def _check_texts(self) -> None:
        if len(self.texts) != len(self):
            raise ValueError(f"this corpus kept {len(self.texts)} texts of its {len(self)} documents")

    def stream(self, conn: sqlite3.Connection, codes: Codes) -> Iterator[str]:
        """Yield every message text (id order) then every summary (key order), recording each one's values."""
        for row in documents(conn):
            yield self.take_message(row, codes, keep=False)
        for node in summaries(conn):
            yield self.take_node(node, codes, keep=False)

    def take_message(self, row: tuple[Any, ...], codes: Codes, *, keep: bool) -> str:
        """Record a ``messages`` row (id, text, agent, role, ts, conversation); returns its text."""
        mid, text, agent, role, ts, conversation = row
        self.add((MESSAGE, int(mid), micros(ts), codes.code(agent), codes.code(role), codes.code(conversation)),
                 text if keep else None)
        return str(text)

    def take_node(self, row: tuple[Any, ...], codes: Codes, *, keep: bool) -> str:
        """Record a ``nodes`` row (key, level, agent, conversation, title, summary); returns its text."""
        key, level, agent, conversation, title, summary = row
        self.node_keys.append(key)
        text = f"{title or ''}\n{summary}"
        self.add((int(level), len(self.node_keys) - 1, 0, codes.code(agent), codes.code("summary"),
                  codes.code(conversation or "")), text if keep else None)
        return text


def micros(ts: str) -> int:
    """ISO 8601 UTC text as microseconds since the epoch (0 when empty or unreadable)."""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return 0
    return int(moment.timestamp() * 1_000_000)


def load_changed(conn: sqlite3.Connection, docs: list[str], codes: Codes, node_keys: list[str]) -> Corpus:
    """The current text of ``docs`` that still exist with text; new node keys are appended to ``node_keys``."""
    corpus = Corpus(node_keys=node_keys)
    ids = [int(d[2:]) for d in docs if d.startswith("m:")]
    keys = [d[2:] for d in docs if d.startswith("n:")]
    for row in documents(conn, ids, chunk=_CHUNK):
        corpus.take_message(row, codes, keep=True)
    for node in summaries(conn, keys, chunk=_CHUNK):
        corpus.take_node(node, codes, keep=True)
    return corpus
