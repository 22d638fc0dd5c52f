"""One state of the warm index (:class:`Snapshot`): what a fit read and how far, and the steps that
make a new one from it, fit, delta, saved file and back.

A :class:`~tapestryd.projections.tfidf.SimilarityIndex` swaps whole snapshots, never changes one:
:func:`fitted_snapshot` makes one from a fit's counts, :func:`hide` and :func:`delta_block` the
parts of the next one when documents changed, :func:`saved_of` and :func:`from_saved` turn one into
what :mod:`tapestryd.projections.warmfile` writes and back, and :func:`outdated` says whether a
saved one may still be used for the database as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tapestryd.projections.analysis import Analyzer
from tapestryd.projections.hierarchy import HierarchyProjection
from tapestryd.projections.messages import MessagesProjection
from tapestryd.projections.runner import checkpoints
from tapestryd.projections.similarity import feed_head, last_reset
from tapestryd.projections.termcount import count
from tapestryd.projections.termmatrix import Block, Codes, Stats
from tapestryd.projections.warmdocs import MESSAGE, Corpus
from tapestryd.projections.warmfile import Saved, Stamp

__all__ = ["Snapshot", "Through", "delta_block", "fitted_snapshot", "from_saved", "hide", "outdated", "saved_of"]


@dataclass(frozen=True)
class Through:
    """The log seqs through which a fit's documents were current: ``messages`` the messages
    projection's checkpoint and ``summaries`` the hierarchy's, read before the documents were."""

    messages: int = 0
    summaries: int = 0

    @classmethod
    def read(cls, conn: Any) -> Through:
        """The two checkpoints in ``projections.db`` now (0 for one never written)."""
        marks = checkpoints(conn)
        return cls(marks.get(MessagesProjection.name, 0), marks.get(HierarchyProjection.name, 0))

    def covers(self, doc: str, seq: int) -> bool:
        """Whether feed row ``(doc, seq)`` names a change the fit read already: a message changed
        at or before ``messages``, a summary at or before ``summaries``, a ``reset`` before both."""
        if doc.startswith("m:"):
            return seq <= self.messages
        if doc.startswith("n:"):
            return seq <= self.summaries
        return seq <= min(self.messages, self.summaries)


@dataclass
class Snapshot:
    """One fitted state: vocabulary, statistics, the fitted block and the delta block.

    ``delta_corpus`` holds the delta's documents with their texts; it shares ``node_keys``
    (the same list object), since its nodes' refs are positions in that table.
    """

    vocabulary: dict[str, int]
    stats: Stats
    fitted: Block
    node_keys: list[str]
    seq: int
    delta_corpus: Corpus
    delta: Block | None = None
    through: Through = Through()

    def blocks(self) -> list[Block]:
        """The fitted block, then the delta block when there is one."""
        return [self.fitted] + ([self.delta] if self.delta is not None else [])

    def doc(self, block: Block, row: int) -> str:
        """The identity of ``block``'s row ``row``: ``m:<message id>`` or ``n:<node key>``."""
        kind, ref = int(block.kinds[row]), int(block.refs[row])
        return f"m:{ref}" if kind == MESSAGE else f"n:{self.node_keys[ref]}"


def fitted_snapshot(vocabulary: dict[str, int], counts: Any, lengths: list[int], corpus: Corpus, seq: int,
                    through: Through) -> Snapshot:
    """The snapshot of a fit: ``counts`` (docs × terms, float32; None for no term) of ``corpus``'s
    documents, their token ``lengths``, read at feed ``seq`` and ``through`` those checkpoints."""
    import numpy as np
    import scipy.sparse as sp

    if counts is None:
        counts = sp.csr_matrix((len(corpus), 0), dtype=np.float32)
    stats = Stats.of(counts)
    fitted = Block.build(counts, lengths, corpus.columns(), stats.idf_smooth)
    return Snapshot(vocabulary, stats, fitted, corpus.node_keys, seq, Corpus(node_keys=corpus.node_keys),
                    through=through)


def delta_block(snap: Snapshot, corpus: Corpus, analyzer: Analyzer) -> Block | None:
    """The block of ``corpus``'s kept texts counted over ``snap``'s vocabulary (None for no text)."""
    if not corpus.texts:
        return None
    analyzer.lengths = []
    counts = count(corpus.texts, analyzer, snap.vocabulary)
    return Block.build(counts, analyzer.lengths, corpus.columns(), snap.stats.idf_smooth)


def hide(snap: Snapshot, gone: set[str]) -> Any:
    """The fitted block's dead mask with the rows of ``gone`` docs set."""
    import numpy as np

    dead = snap.fitted.dead.copy()
    ids = np.array([int(d[2:]) for d in gone if d.startswith("m:")], dtype=np.int64)
    if len(ids):
        dead |= (snap.fitted.kinds == MESSAGE) & np.isin(snap.fitted.refs, ids)
    keys = {d[2:] for d in gone if d.startswith("n:")}
    for row in np.flatnonzero(snap.fitted.kinds >= 0):
        if snap.node_keys[int(snap.fitted.refs[row])] in keys:
            dead[row] = True
    return dead


def saved_of(snap: Snapshot, codes: Codes) -> Saved:
    """What the file keeps of a fit's snapshot (its fitted block; it has no delta yet) and the ``codes`` its
    agent, role and conversation columns use."""
    terms = [""] * len(snap.vocabulary)
    for term, column in snap.vocabulary.items():
        terms[column] = term
    stamp = Stamp(snap.seq, snap.through.messages, snap.through.summaries)
    return Saved(terms, snap.stats.idf_smooth, snap.fitted, snap.node_keys, codes, stamp)


def from_saved(saved: Saved) -> Snapshot:
    """The snapshot of a saved fit, as :func:`fitted_snapshot` made it."""
    return Snapshot({term: column for column, term in enumerate(saved.terms)}, Stats(saved.idf), saved.fitted,
                    saved.node_keys, saved.stamp.seq, Corpus(node_keys=saved.node_keys),
                    through=Through(saved.stamp.messages, saved.stamp.summaries))


def outdated(conn: Any, stamp: Stamp) -> str:
    """Why an index fitted as ``stamp`` says may no longer be used for the database ``conn`` reads ('' if it
    may): the feed or the checkpoints went back (``projections.db`` rebuilt or replaced), or something was
    forgotten after the fit read the documents."""
    if feed_head(conn) < stamp.seq:
        return f"the similarity feed ends before seq {stamp.seq} it was fitted at (projections.db rebuilt)"
    now = Through.read(conn)
    if now.messages < stamp.messages or now.summaries < stamp.summaries:
        return "the projections' checkpoints are before those it was fitted at (projections.db rebuilt)"
    reset = last_reset(conn)
    if reset > stamp.seq and not Through(stamp.messages, stamp.summaries).covers("reset", reset):
        return f"something was forgotten at seq {reset}, after it was fitted"
    return ""
