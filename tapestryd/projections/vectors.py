"""The vectors projection: one sentence embedding per message, for the dense half of search.

Present only when embeddings are in use (:mod:`tapestryd.embeddings.model`: the optional
``embeddings`` extra with the packaged all-MiniLM-L6-v2, or a model folder the user names).
Table it owns (in ``projections.db``):

* ``vectors_dropped(seq)``: the log position of each ``Forgotten`` event applied (a warm copy
  of the vectors reloads when it grows).
* ``message_vectors(id, conversation, ts, seq, vector, window)``: ``id`` the message's id in
  ``messages``, its conversation and ts (turn order), ``seq`` the log position of the last
  change that wrote the row (a warm index reads the rows past the last seq it saw),
  ``vector`` the embedding of the message's stored text (private spans removed, secrets
  redacted: the text search finds) and ``window`` the mean of it and its neighbouring turns'
  vectors (the previous and next message of the conversation that have one), both float32
  bytes of norm 1.

Search ranks by ``window``: a fact is often split over turns (the question names the
thing, the reply says when), and on the LoCoMo dev split the window found twice the
evidence the message's own vector did (message recall@10 by the dense ranking alone .514
against .243), at no encoding cost: it is computed from the stored vectors.

Each batch's messages are encoded together (one call of the encoder, which pads similar
lengths together); a message whose text grew (a streamed reply's later part) is encoded
again. A written or dropped row's neighbours get their window again. A ``Forgotten`` event
drops the vectors of the messages it deleted. A vector depends only on the stored text and
the model, and a window on the vectors of its turns, so a rebuild gives the same vectors
and windows. It must
run after the messages projection (it reads the rows that projection wrote in the same
transaction), as :func:`tapestryd.projections.default_projections` orders it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence

from tapestryd.db import translate_errors
from tapestryd.events.types import Forgotten, MessageRecorded, StoredEvent
from tapestryd.projections.messages_read import documents, message_rows_of, stored_ids

if TYPE_CHECKING:
    import numpy as np

    from tapestryd.embeddings.model import Encoder

__all__ = ["MessageVectors", "dropped_head", "has_vectors", "vectors_after"]

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS message_vectors (id INTEGER PRIMARY KEY, conversation TEXT NOT NULL,
        ts TEXT NOT NULL, seq INTEGER NOT NULL, vector BLOB NOT NULL, window BLOB NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS message_vectors_seq ON message_vectors(seq)",
    "CREATE INDEX IF NOT EXISTS message_vectors_turns ON message_vectors(conversation, ts, id)",
    "CREATE TABLE IF NOT EXISTS vectors_dropped (seq INTEGER PRIMARY KEY)",
]


class MessageVectors:
    """Keeps ``message_vectors`` (see the module docstring) with the model in ``folder``.

    ``encoder`` replaces the model (tests pass a small fake); without it the model is
    loaded once per process, at the first message to encode
    (:func:`~tapestryd.embeddings.model.load_encoder`), never when nothing is new.
    """

    name = "vectors"
    types: tuple[str, ...] = (MessageRecorded.type, Forgotten.type)

    def __init__(self, folder: Path, encoder: Encoder | None = None) -> None:
        self.folder = folder
        self.encoder = encoder

    def create(self, conn: sqlite3.Connection) -> None:
        """Create the table and its seq index if missing."""
        for statement in _SCHEMA:
            conn.execute(statement)

    def clear(self, conn: sqlite3.Connection) -> None:
        """Forget every vector (a rebuild encodes them again)."""
        conn.execute("DELETE FROM message_vectors")
        conn.execute("DELETE FROM vectors_dropped")

    def batch_safe(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> bool:
        """Always: no other projection reads the vectors."""
        return True

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Encode the message the event stored or changed, or drop the vectors it forgot."""
        self.apply_batch(conn, [event])

    def apply_batch(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> None:
        """Encode the batch's stored or changed messages at once; drop forgotten ones' vectors."""
        rows = message_rows_of(conn, [e.event for e in events if isinstance(e.event, MessageRecorded)])
        changed: dict[int, int] = {}
        for event in events:
            payload = event.event
            if isinstance(payload, MessageRecorded) and (payload.conversation, payload.message) in rows:
                changed[rows[(payload.conversation, payload.message)][0]] = event.seq
        forgets = [e.seq for e in events if isinstance(e.event, Forgotten)]
        if forgets:
            self._drop_forgotten(conn, forgets[-1])
        if changed:
            self._write(conn, changed)

    def _write(self, conn: sqlite3.Connection, changed: dict[int, int]) -> None:
        """Encode the texts of messages ``changed`` (id → seq of the change), store their vectors, and
        write the windows of them and their neighbours again."""
        docs = {int(row[0]): (str(row[1]), str(row[4]), str(row[5])) for row in documents(conn, sorted(changed))}
        ids = sorted(docs)
        blank = [i for i in changed if i not in docs]  # a text emptied by a later part or a redaction
        touched = _neighbours(conn, blank)
        conn.executemany("DELETE FROM message_vectors WHERE id = ?", [(i,) for i in blank])
        if ids:
            vectors = self._encoder().encode([docs[i][0] for i in ids])
            conn.executemany("INSERT OR REPLACE INTO message_vectors (id, conversation, ts, seq, vector, window)"
                             " VALUES (?, ?, ?, ?, ?, ?)",
                             [(i, docs[i][2], docs[i][1], changed[i], _blob(v), _blob(v))
                              for i, v in zip(ids, vectors)])
        touched |= set(ids) | _neighbours(conn, ids)
        _write_windows(conn, touched, max(changed.values()))

    def _drop_forgotten(self, conn: sqlite3.Connection, seq: int) -> None:
        """Delete the vectors whose message is no longer stored and write their neighbours' windows again,
        noting the forget's log position ``seq``."""
        held = [int(i) for (i,) in conn.execute("SELECT id FROM message_vectors")]
        kept = stored_ids(conn, held)
        gone = [i for i in held if i not in kept]
        touched = _neighbours(conn, gone)
        conn.executemany("DELETE FROM message_vectors WHERE id = ?", [(i,) for i in gone])
        _write_windows(conn, touched - set(gone), seq)
        conn.execute("INSERT OR IGNORE INTO vectors_dropped (seq) VALUES (?)", (seq,))

    def _encoder(self) -> Encoder:
        if self.encoder is None:
            from tapestryd.embeddings.model import load_encoder

            return load_encoder(self.folder)
        return self.encoder


_TURNS = ("(SELECT p.id FROM message_vectors p WHERE p.conversation = g.conversation AND (p.ts, p.id) < (g.ts, g.id)"
          " ORDER BY p.ts DESC, p.id DESC LIMIT 1), (SELECT n.id FROM message_vectors n WHERE n.conversation ="
          " g.conversation AND (n.ts, n.id) > (g.ts, g.id) ORDER BY n.ts, n.id LIMIT 1)")
_CHUNK = 900


def _turns(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, list[int]]:
    """``{id: [previous id, next id]}`` (those that exist) among the rows, in turn order, for the rows ``ids``."""
    out: dict[int, list[int]] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = list(ids[start:start + _CHUNK])
        where = f"g.id IN ({','.join('?' * len(chunk))})"
        rows = conn.execute(f"SELECT g.id, {_TURNS} FROM message_vectors g WHERE {where}", chunk)
        out.update((int(i), [int(n) for n in (before, after) if n is not None]) for i, before, after in rows)
    return out


def _neighbours(conn: sqlite3.Connection, ids: Sequence[int]) -> set[int]:
    """The rows just before and after the rows ``ids`` in their conversations."""
    return {n for around in _turns(conn, ids).values() for n in around}


def _write_windows(conn: sqlite3.Connection, ids: set[int], seq: int) -> None:
    """Write the window (the normalized sum of its and its neighbours' vectors) of each row of ``ids``,
    raising its seq to at least ``seq``."""
    import numpy as np

    turns = _turns(conn, sorted(ids))
    wanted = sorted({i for i, around in turns.items() for i in (i, *around)})
    vectors: dict[int, np.ndarray] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start:start + _CHUNK]
        vectors.update((int(i), np.frombuffer(blob, dtype="<f4")) for i, blob in conn.execute(
            f"SELECT id, vector FROM message_vectors WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    rows = []
    for i, around in sorted(turns.items()):
        total = np.asarray(np.sum([vectors[n] for n in (i, *around)], axis=0, dtype=np.float32))
        norm = float(np.linalg.norm(total))
        rows.append((_blob(total / norm if norm else total), seq, i))
    conn.executemany("UPDATE message_vectors SET window = ?, seq = MAX(seq, ?) WHERE id = ?", rows)


def _blob(vector: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype="<f4").tobytes()


def has_vectors(conn: sqlite3.Connection) -> bool:
    """Whether the file holds at least one message vector (False when the table does not exist)."""
    with translate_errors(conn):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_vectors'").fetchone() is None:
            return False
        return conn.execute("SELECT 1 FROM message_vectors LIMIT 1").fetchone() is not None


def vectors_after(conn: sqlite3.Connection, seq: int) -> Iterator[tuple[int, int, bytes]]:
    """``(message id, seq, float32 bytes of its window)`` of the rows written after log position ``seq``, in
    seq order."""
    with translate_errors(conn):
        yield from conn.execute("SELECT id, seq, window FROM message_vectors WHERE seq > ? ORDER BY seq, id", (seq,))


def dropped_head(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(log position of the last forget applied, of the newest vector)``, 0 for none: a warm copy of the
    vectors reads them all again when the first changes or the second falls (a rebuild under way)."""
    with translate_errors(conn):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vectors_dropped'").fetchone() is None:
            return 0, 0
        row = conn.execute("SELECT (SELECT COALESCE(MAX(seq), 0) FROM vectors_dropped),"
                           " (SELECT COALESCE(MAX(seq), 0) FROM message_vectors)").fetchone()
        return int(row[0]), int(row[1])
