"""The dense ranking of search: messages by the cosine of their embedding to the query's, and its fusion.

When embeddings are in use (:mod:`tapestryd.embeddings.model`), the vectors projection
(:mod:`tapestryd.projections.vectors`) holds one unit vector per message. A
:class:`DenseIndex` keeps them in memory as one float32 matrix (1.5 kB a message with
all-MiniLM-L6-v2's 384 dimensions: 150 MB at 100k messages), reads only the rows written
since its last look (by log position) before each query, and reloads whole after a forget.
The daemon keeps one for its life (:class:`DenseKeeper`, handed to the read operations), so it
loads the weights and the matrix once (in the background after its start) and then reads only
what is new; the CLI without a daemon loads both for its one query (:func:`dense_for`).
Without embeddings in use (the setting ``off``, the extra not installed, or no vector stored
yet) it is None and nothing of numpy, tokenizers or the weights is imported.

A query is encoded once (the last few are remembered: a time phrase's soft narrowing asks
twice), scored against every row (one matrix-vector product), and the best
:data:`DEPTH` that pass the search's filters are fused with the keyword ranking by
reciprocal rank (:func:`fuse`; Cormack et al. 2009), the dense list weighing
:data:`DENSE_WEIGHT`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from tapestryd.embeddings.model import load_encoder, model_dir
from tapestryd.projections.messages_search import MessageFilters, conversations_and_texts
from tapestryd.projections.vectors import dropped_head, has_vectors, vectors_after
from tapestryd.queries.fusion import rrf_scores
from tapestryd.queries.reader import Reader

if TYPE_CHECKING:
    import numpy as np

    from tapestryd.embeddings.model import Encoder

__all__ = ["DENSE_K", "DENSE_WEIGHT", "DEPTH", "DenseIndex", "DenseKeeper", "dense_for", "fuse", "nearest"]

DEPTH = 100
"""Messages of each ranking (keyword and dense) that compete in the fusion, at least."""
DENSE_K = 10
"""Reciprocal rank fusion's k: small, so the first ranks of each list weigh most."""
DENSE_WEIGHT = 0.3
"""The dense ranking's share against the keyword ranking's 1 in the fusion.

Chosen on the LoCoMo dev split (message-level evidence recall@10, categories 1–4, all-MiniLM-L6-v2,
windows of one turn each side; keyword ranking alone .752): k 10 with weight 0.2 .759, 0.3 .764,
0.5 .760; k 20 or 30 at 0.3 .749; k 60 .740. The message's own vector instead of its window at
best .754. The weight sits in the middle of the k-10 plateau."""
_REMEMBERED = 8


class DenseIndex:
    """The message vectors of one ``projections.db`` in memory, and ``encoder`` for queries (thread-safe)."""

    def __init__(self, encoder: Encoder) -> None:
        import numpy as np

        self.encoder = encoder
        self.ids = np.zeros(0, dtype=np.int64)
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.row: dict[int, int] = {}
        self.seq, self.dropped = 0, 0
        self.queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self.lock = threading.Lock()

    def refresh(self, conn: sqlite3.Connection) -> int:
        """Read the vectors written since the last call (all of them after a forget); returns how many."""
        import numpy as np

        forgot, newest = dropped_head(conn)
        if forgot != self.dropped or newest < self.seq:
            self.ids, self.matrix, self.row, self.seq = np.zeros(0, np.int64), self.matrix[:0], {}, 0
            self.dropped = forgot
        fresh = list(vectors_after(conn, self.seq))
        if not fresh:
            return 0
        vectors = np.frombuffer(b"".join(blob for _, _, blob in fresh), dtype="<f4").reshape(len(fresh), -1)
        if not self.row:
            self.matrix = np.zeros((0, vectors.shape[1]), dtype=np.float32)
        new = [n for n, (i, _, _) in enumerate(fresh) if int(i) not in self.row]
        for n, (i, _, _) in enumerate(fresh):
            if int(i) in self.row:
                self.matrix[self.row[int(i)]] = vectors[n]
        self.row.update((int(fresh[n][0]), len(self.ids) + k) for k, n in enumerate(new))
        self.ids = np.concatenate([self.ids, np.array([fresh[n][0] for n in new], dtype=np.int64)])
        self.matrix = np.concatenate([self.matrix, vectors[new]])
        self.seq = max(self.seq, max(int(s) for _, s, _ in fresh))
        return len(fresh)

    def rank(self, conn: sqlite3.Connection, query: str, filters: MessageFilters, depth: int) -> list[int]:
        """The ids of the ``depth`` messages nearest ``query`` (cosine) that pass ``filters``, nearest first."""
        with self.lock:
            self.refresh(conn)
            if not len(self.ids) or not query.strip():
                return []
            matrix, ids, vector = self.matrix, self.ids, self._vector(query)
        passing: dict[int, tuple[str, str]] = {}
        wanted = depth
        while True:  # ask for more when the filters leave too few of the nearest
            top = nearest(matrix, vector, wanted)
            passing = conversations_and_texts(conn, [int(i) for i in ids[top]], filters, 0)
            if len(passing) >= depth or wanted >= len(ids):
                return [int(i) for i in ids[top] if int(i) in passing][:depth]
            wanted *= 4

    def _vector(self, query: str) -> np.ndarray:
        if query in self.queries:
            self.queries.move_to_end(query)
        else:
            self.queries[query] = self.encoder.encode([query])[0]
            while len(self.queries) > _REMEMBERED:
                self.queries.popitem(last=False)
        return self.queries[query]


def nearest(matrix: np.ndarray, vector: np.ndarray, count: int) -> np.ndarray:
    """The row numbers of the ``count`` rows of ``matrix`` (n × d) with the largest dot product with ``vector``
    (d), largest first (ties to the lower row).

    One matrix-vector product on one BLAS thread (OpenBLAS's threads spin on a busy machine), then
    a partial sort: only the best ``count`` are ordered.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        scores = matrix @ vector
    if count < len(scores):
        best = np.argpartition(-scores, count - 1)[:count]
    else:
        best = np.arange(len(scores))
    return np.asarray(best[np.lexsort((best, -scores[best]))])


def fuse(keyword: list[tuple[int, float]], dense: list[int], limit: int) -> tuple[list[tuple[int, float]], set[int]]:
    """The best ``limit`` of the keyword ranking ``(id, score)`` and the dense ranking (ids), fused by
    reciprocal rank, and the ids that came by the dense ranking alone.

    Each id scores ``1 / (DENSE_K + keyword rank) + DENSE_WEIGHT / (DENSE_K + dense rank)``; the
    returned score is that sum negated (lower is better, as ``bm25()``). Ties keep the keyword order.
    """
    scores = rrf_scores([[i for i, _ in keyword], dense], k=DENSE_K, weights=(1.0, DENSE_WEIGHT))
    order = sorted(scores, key=lambda i: -scores[i])[:limit]
    held = {i for i, _ in keyword}
    return [(i, -scores[i]) for i in order], {i for i in order if i not in held}


class DenseKeeper:
    """One home's :class:`DenseIndex`, made at its first use and kept (thread-safe).

    The daemon holds one for its life and hands it to every read operation
    (:class:`~tapestryd.operations.base.ReadDeps`), so the weights and the matrix load once;
    a caller that asks while another is loading them waits for that load.
    """

    def __init__(self) -> None:
        self._index: DenseIndex | None = None
        self._lock = threading.Lock()

    def get(self, reader: Reader) -> DenseIndex | None:
        """The kept index, made by :func:`dense_for` when there is none yet (None while that gives None:
        embeddings off or not installed, or no vector stored yet; asked again next time)."""
        with self._lock:
            if self._index is None:
                self._index = dense_for(reader)
            return self._index


def dense_for(reader: Reader) -> DenseIndex | None:
    """A new dense index of ``reader``'s database (its encoder loaded, its vectors read at its first
    query), or None when embeddings are off, not installed, or no message has a vector yet.

    Raises TapestryError for a ``[search] embeddings`` folder without a model
    (:func:`~tapestryd.embeddings.model.model_dir`).
    """
    folder = model_dir(reader.settings.search.embeddings)
    if folder is None or not has_vectors(reader.conn):
        return None
    return DenseIndex(load_encoder(folder))
