"""Documents of the warm index read from ``projections.db``: messages and summarized nodes.

A :class:`Corpus` is columns of plain lists (text, kind, reference, time, agent, role,
conversation), the shape :meth:`~tapestryd.projections.termmatrix.Block.build` takes. A
message's reference is its id; a node's is its position in the index's node-key table,
which only ever grows (a node summarized after the fit is appended to it).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tapestryd.db import translate_errors
from tapestryd.projections.termmatrix import Codes

__all__ = ["MESSAGE", "Corpus", "load_changed", "load_corpus"]

MESSAGE = -1  # kind of a message; nodes use their level 0–4
_CHUNK = 900  # ids per IN (...) list, under SQLite's parameter limit
_COLUMNS = ("kinds", "refs", "ts", "agent", "role", "conversation")


@dataclass
class Corpus:
    """Documents as parallel lists; ``docs`` holds each one's identity (``m:<id>``, ``n:<key>``)."""

    texts: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    kinds: list[int] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)
    ts: list[int] = field(default_factory=list)
    agent: list[int] = field(default_factory=list)
    role: list[int] = field(default_factory=list)
    conversation: list[int] = field(default_factory=list)
    node_keys: list[str] = field(default_factory=list)
    message_rows: int = 0

    def add(self, doc: str, text: str, values: tuple[int, int, int, int, int, int]) -> None:
        """Append one document: its identity, text and the six per-document values of ``_COLUMNS``."""
        self.docs.append(doc)
        self.texts.append(text)
        for name, value in zip(_COLUMNS, values):
            getattr(self, name).append(value)

    def columns(self) -> dict[str, list[int]]:
        """The per-document value lists by name."""
        return {name: getattr(self, name) for name in _COLUMNS}

    def without(self, gone: set[str]) -> Corpus:
        """A copy without the documents whose identity is in ``gone``."""
        kept = Corpus(node_keys=self.node_keys)
        for i, doc in enumerate(self.docs):
            if doc not in gone:
                kept.add(doc, self.texts[i], tuple(getattr(self, n)[i] for n in _COLUMNS))
        return kept

    def plus(self, other: Corpus) -> Corpus:
        """This corpus followed by ``other``."""
        joined = self.without(set())
        for i, doc in enumerate(other.docs):
            joined.add(doc, other.texts[i], tuple(getattr(other, n)[i] for n in _COLUMNS))
        return joined


def micros(ts: str) -> int:
    """ISO 8601 UTC text as microseconds since the epoch (0 when empty or unreadable)."""
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return 0
    return int(moment.timestamp() * 1_000_000)


def _has_nodes(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'nodes'").fetchone() is not None


def load_corpus(conn: sqlite3.Connection, codes: Codes) -> Corpus:
    """Every message with text (in id order) and every summarized node (in key order).

    ``message_rows`` counts every stored message, empty ones too (FTS5's row count).
    """
    corpus = Corpus()
    with translate_errors(conn):
        corpus.message_rows = int(conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        for row in conn.execute("SELECT id, text, agent, role, ts, conversation FROM messages WHERE text != ''"
                                " ORDER BY id"):
            _add_message(corpus, row, codes)
        if _has_nodes(conn):
            for row in conn.execute("SELECT key, level, agent, conversation, title, summary FROM nodes"
                                    " WHERE summary != '' ORDER BY key"):
                _add_node(corpus, row, codes, corpus.node_keys)
    return corpus


def _add_message(corpus: Corpus, row: tuple[Any, ...], codes: Codes) -> None:
    mid, text, agent, role, ts, conversation = row
    corpus.add(f"m:{mid}", text, (MESSAGE, int(mid), micros(ts), codes.code(agent), codes.code(role),
                                  codes.code(conversation)))


def _add_node(corpus: Corpus, row: tuple[Any, ...], codes: Codes, node_keys: list[str]) -> None:
    key, level, agent, conversation, title, summary = row
    node_keys.append(key)
    corpus.add(f"n:{key}", f"{title or ''}\n{summary}", (int(level), len(node_keys) - 1, 0, codes.code(agent),
                                                       codes.code("summary"), codes.code(conversation or "")))


def load_changed(conn: sqlite3.Connection, docs: list[str], codes: Codes, node_keys: list[str]) -> Corpus:
    """The current text of ``docs`` that still exist with text; new node keys are appended to ``node_keys``."""
    corpus = Corpus(node_keys=node_keys)
    ids = [int(d[2:]) for d in docs if d.startswith("m:")]
    keys = [d[2:] for d in docs if d.startswith("n:")]
    with translate_errors(conn):
        for start in range(0, len(ids), _CHUNK):
            some_ids = ids[start:start + _CHUNK]
            for row in conn.execute("SELECT id, text, agent, role, ts, conversation FROM messages"
                                    f" WHERE text != '' AND id IN ({','.join('?' * len(some_ids))})", some_ids):
                _add_message(corpus, row, codes)
        for start in range(0, len(keys) if _has_nodes(conn) else 0, _CHUNK):
            some_keys = keys[start:start + _CHUNK]
            for row in conn.execute("SELECT key, level, agent, conversation, title, summary FROM nodes"
                                    f" WHERE summary != '' AND key IN ({','.join('?' * len(some_keys))})", some_keys):
                _add_node(corpus, row, codes, node_keys)
    return corpus
