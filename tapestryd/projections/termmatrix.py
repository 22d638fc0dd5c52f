"""Scoring over in-memory blocks of raw term counts: TF-IDF cosine.

A :class:`Block` holds documents as a terms × documents CSR matrix of raw term
frequencies, so a query touches only the posting lists (rows) of its own terms. From the
same counts:

cosine similarity of sublinear TF-IDF vectors, ``(1 + ln tf) · idf`` with scikit-learn's
smooth idf ``ln((1 + N) / (1 + df)) + 1``, rows and query L2-normalized.

:class:`Stats` (the idf) come from the fitted block; a delta block of later documents is
scored with them until the next refit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Block", "Codes", "Stats", "cosine"]


class Codes:
    """Small integer codes for repeated strings (agents, roles, conversations); code 0 is ''."""

    def __init__(self) -> None:
        self.names: list[str] = [""]
        self.index: dict[str, int] = {"": 0}

    @classmethod
    def of(cls, names: list[str]) -> Codes:
        """The codes whose names are ``names`` in code order (a saved table; ``names[0]`` must be ``''``).

        Raises ValueError when it is not, or when a name repeats.
        """
        codes = cls()
        codes.names, codes.index = list(names), {name: code for code, name in enumerate(names)}
        if not names or names[0] != "" or len(codes.index) != len(names):
            raise ValueError("a code table starts with '' and names each string once")
        return codes

    def code(self, name: str) -> int:
        """The code of ``name``, assigning the next one when new."""
        found = self.index.get(name)
        if found is None:
            found = self.index[name] = len(self.names)
            self.names.append(name)
        return found

    def find(self, name: str) -> int:
        """The code of ``name``, or -1 when it was never seen."""
        return self.index.get(name, -1)


@dataclass(frozen=True)
class Stats:
    """Collection statistics of the fitted documents: ``idf_smooth``, counting every one."""

    idf_smooth: Any

    @classmethod
    def of(cls, docs_terms: Any) -> Stats:
        """Statistics of a docs × terms count matrix."""
        import numpy as np

        n, terms = docs_terms.shape
        df_all = np.bincount(docs_terms.indices, minlength=terms).astype(np.float64)
        return cls((np.log((1 + n) / (1 + df_all)) + 1).astype(np.float32))


@dataclass(frozen=True)
class Block:
    """Documents as raw counts (terms × docs CSR) with what filters and scores need per document.

    ``kinds`` are -1 for messages and 0–4 for node levels; ``refs`` a message id or an
    index into the index's node keys; ``ts`` microseconds since the epoch (UTC, 0 for
    nodes); ``agent``, ``role`` and ``conversation`` are :class:`Codes`; ``dead`` hides rows
    replaced by a newer version.
    """

    counts: Any
    lengths: Any
    norms: Any
    kinds: Any
    refs: Any
    ts: Any
    agent: Any
    role: Any
    conversation: Any
    dead: Any

    @classmethod
    def build(cls, docs_terms: Any, lengths: list[int], columns: dict[str, Any], idf_smooth: Any) -> Block:
        """A block from a docs × terms count matrix (float32), token lengths and per-document columns."""
        import numpy as np

        arrays = {name: np.asarray(columns[name], dtype=dtype) for name, dtype in
                  (("kinds", np.int8), ("refs", np.int64), ("ts", np.int64), ("agent", np.int32),
                   ("role", np.int32), ("conversation", np.int32))}
        norms = _norms(docs_terms, idf_smooth)
        return cls(docs_terms.T.tocsr(), np.asarray(lengths, dtype=np.float32), norms,
                   dead=np.zeros(len(lengths), bool), **arrays)

    @property
    def size(self) -> int:
        """How many documents the block holds."""
        return len(self.lengths)

    def nbytes(self) -> int:
        """Bytes held by the block's arrays."""
        parts = (self.counts.data, self.counts.indices, self.counts.indptr, self.lengths, self.norms, self.kinds,
                 self.refs, self.ts, self.agent, self.role, self.conversation, self.dead)
        return int(sum(p.nbytes for p in parts))


def _norms(docs_terms: Any, idf_smooth: Any, chunk: int = 65536) -> Any:
    """L2 norm of each row's sublinear TF-IDF vector, a chunk of rows at a time (no full copy)."""
    import numpy as np

    indptr, norms = docs_terms.indptr, np.empty(docs_terms.shape[0], dtype=np.float32)
    for lo in range(0, docs_terms.shape[0], chunk):
        hi = min(lo + chunk, docs_terms.shape[0])
        a, b = indptr[lo], indptr[hi]
        weights = (1 + np.log(docs_terms.data[a:b])) * idf_smooth[docs_terms.indices[a:b]]
        sums = np.concatenate(([0.0], np.cumsum(np.square(weights, dtype=np.float64))))
        norms[lo:hi] = np.sqrt(sums[indptr[lo + 1:hi + 1] - a] - sums[indptr[lo:hi] - a])
    return norms


def cosine(block: Block, stats: Stats, columns: Any, query_tf: Any) -> Any:
    """Cosine of each document with a query given as term columns and their counts."""
    import numpy as np

    idf = stats.idf_smooth[columns]
    weights = (1 + np.log(query_tf.astype(np.float32))) * idf
    weights /= np.linalg.norm(weights) or 1.0
    weights *= idf  # the documents' side of each term's weight, (1 + ln tf) · idf, gets its idf here
    rows = block.counts[columns]
    rows.data = 1 + np.log(rows.data)
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.asarray(rows.T @ weights).ravel() / block.norms
    return np.nan_to_num(scores, nan=0.0, posinf=0.0)
