"""A warm TF-IDF index of messages and summaries, kept in memory and updated from the feed.

Fitted once (scikit-learn's ``TfidfVectorizer``: sublinear tf, English stop words,
L2-normalized rows, float32), then kept current without refitting: each
:meth:`SimilarityIndex.refresh` reads the documents the similarity feed
(:mod:`tapestryd.projections.similarity`) lists after the last seq it saw, hides their old
rows and appends their new vectors, transformed with the fitted vocabulary, to a small
delta matrix. When the delta grows past ``refit_fraction`` of the fitted rows (or a
``reset`` is seen), a background thread refits from the database and swaps the new index
in; queries keep using the old one meanwhile.

Scores are cosine similarities (rows and query are unit vectors). The fitted matrix is
stored transposed (terms × documents, CSR) so a query touches only the posting lists of
its own terms, not every document.
"""

from __future__ import annotations

import threading
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import structlog

from tapestryd.db import connect, translate_errors
from tapestryd.projections.similarity import feed_after, feed_head

__all__ = ["Match", "SimilarityIndex"]

log = structlog.get_logger(__name__)

MESSAGE = -1  # kind of a message row; nodes use their level 0–4
_CHUNK = 900  # ids per IN (...) list, under SQLite's parameter limit
QUERY_REFRESH = 2000  # most pending documents a query folds in before answering


@dataclass(frozen=True)
class Match:
    """One similar document: ``doc`` is ``m:<message id>`` or ``n:<node key>``, ``kind``
    :data:`MESSAGE` or a node level, ``score`` the cosine similarity (0, 1]."""

    doc: str
    kind: int
    score: float


@dataclass
class _Snapshot:
    """One fitted state: vectorizer, terms × docs matrix, row identities, hidden rows, delta.

    Fitted rows ``0 .. len(msg_ids) - 1`` are messages in id order; the rest are the nodes
    of ``node_keys``. Identities are kept as an id array rather than strings so a million
    messages cost 8 bytes each.
    """

    vectorizer: Any
    terms_docs: Any
    msg_ids: Any
    node_keys: list[str]
    kinds: Any
    dead: Any
    seq: int
    delta: Any = None
    delta_docs: list[str] = field(default_factory=list)
    delta_kinds: list[int] = field(default_factory=list)
    node_rows: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.node_rows:
            base = len(self.msg_ids)
            self.node_rows = {key: base + i for i, key in enumerate(self.node_keys)}

    @property
    def fitted(self) -> int:
        """How many rows were fitted."""
        return len(self.msg_ids) + len(self.node_keys)

    def doc(self, row: int) -> str:
        """The document identity of fitted row ``row``."""
        base = len(self.msg_ids)
        return f"m:{self.msg_ids[row]}" if row < base else f"n:{self.node_keys[row - base]}"

    def row_of(self, doc: str) -> int | None:
        """The fitted row of ``doc``, or None when it was not fitted."""
        import numpy as np

        if doc.startswith("n:"):
            return self.node_rows.get(doc[2:])
        mid = int(doc[2:])
        row = int(np.searchsorted(self.msg_ids, mid))
        return row if row < len(self.msg_ids) and int(self.msg_ids[row]) == mid else None


class SimilarityIndex:
    """The warm index of one ``projections.db`` (see the module docstring).

    ``refit_fraction`` and ``refit_min`` (documents) say when the delta is big enough to
    refit in the background. Thread-safe: queries read an immutable snapshot; refresh and
    refit swap snapshots under a lock.
    """

    def __init__(self, db_path: Path, *, refit_fraction: float = 0.2, refit_min: int = 2000) -> None:
        self.db_path = db_path
        self.refit_fraction = refit_fraction
        self.refit_min = refit_min
        self._snap: _Snapshot | None = None
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._refit: threading.Thread | None = None
        self._poller: threading.Thread | None = None
        self._stopping = threading.Event()
        self._fitting = False
        self._conn: Any = None
        self.last_fit: dict[str, Any] = {}

    def start(self, *, poll_seconds: float = 5.0) -> None:
        """Fit in a background thread (queries wait for it, see :meth:`query`), then keep
        current: another thread refreshes from the feed every ``poll_seconds``."""
        self._start_refit()
        self._poller = threading.Thread(target=self._poll, args=(poll_seconds,), name="similarity-poll", daemon=True)
        self._poller.start()

    def build(self) -> None:
        """Fit now, in this thread (the CLI's one-off index when no daemon runs)."""
        self._install(self._fit())

    def stop(self, timeout: float = 10.0) -> None:
        """Stop polling, wait for a running refit (at most ``timeout`` s), close the connection."""
        self._stopping.set()
        for thread in (self._poller, self._refit):
            if thread is not None:
                thread.join(timeout)
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @property
    def ready(self) -> bool:
        """Whether a fitted snapshot is available."""
        return self._ready.is_set()

    def status(self) -> dict[str, Any]:
        """Documents fitted and in the delta, hidden rows, feed seq, and the last fit's figures."""
        snap = self._snap
        if snap is None:
            return {"ready": False, **self.last_fit}
        return {"ready": True, "fitted": snap.fitted, "delta": len(snap.delta_docs), "hidden": int(snap.dead.sum()),
                "seq": snap.seq, "refitting": self._fitting, **self.last_fit}

    # -- fitting ---------------------------------------------------------------------------

    def _start_refit(self) -> None:
        if self._stopping.is_set() or (self._refit is not None and self._refit.is_alive()):
            return
        self._refit = threading.Thread(target=self._refit_run, name="similarity-refit", daemon=True)
        self._refit.start()

    def _refit_run(self) -> None:
        self._fitting = True
        try:
            snap = self._fit()
        except Exception:  # a failed refit keeps the old snapshot; the next trigger retries
            log.exception("similarity.refit_failed", db=str(self.db_path))
            return
        finally:
            self._fitting = False
        self._install(snap)

    def _install(self, snap: _Snapshot) -> None:
        with self._lock:
            self._snap = snap
        self._ready.set()
        self.refresh()

    def _fit(self) -> _Snapshot:
        import numpy as np

        started = time.monotonic()
        conn = connect(self.db_path, readonly=True)
        try:
            seq = feed_head(conn)
            ids: array[int] = array("q")
            node_keys: list[str] = []
            kinds: array[int] = array("b")
            vectorizer, matrix = _fit_matrix(_documents(conn, ids, node_keys, kinds), len_hint=_count(conn))
        finally:
            conn.close()
        terms_docs = matrix.T.tocsr() if matrix is not None else None
        snap = _Snapshot(vectorizer, terms_docs, np.frombuffer(ids, dtype=np.int64).copy(), node_keys,
                         np.frombuffer(kinds, dtype=np.int8).copy(), np.zeros(len(ids) + len(node_keys), dtype=bool),
                         seq)
        self.last_fit = {"fit_seconds": round(time.monotonic() - started, 3), "documents": snap.fitted,
                         "terms": len(vectorizer.vocabulary_) if vectorizer else 0,
                         "matrix_bytes": _nbytes(terms_docs)}
        log.info("similarity.fitted", **self.last_fit)
        return snap

    # -- keeping current ---------------------------------------------------------------------

    def refresh(self, *, most: int | None = None) -> int:
        """Apply feed rows newer than the snapshot; returns how many documents changed.

        More than ``most`` pending rows (default: the refit threshold), a ``reset``, or a
        delta grown past the threshold start a background refit instead. Does nothing
        (returns 0) before the first fit or while another thread refreshes.
        """
        if self._snap is None or not self._lock.acquire(blocking=False):
            return 0
        try:
            return self._refresh_locked(self._threshold() if most is None else most)
        finally:
            self._lock.release()

    def _threshold(self) -> int:
        fitted = self._snap.fitted if self._snap is not None else 0
        return int(max(self.refit_min, self.refit_fraction * fitted))

    def _refresh_locked(self, most: int) -> int:
        snap = self._snap
        assert snap is not None
        if self._conn is None:
            self._conn = connect(self.db_path, readonly=True)
        rows = feed_after(self._conn, snap.seq, limit=most + 1)
        docs = [doc for doc, _ in rows]
        if not rows:
            return 0
        if len(rows) > most or "reset" in docs or snap.vectorizer is None:
            self._start_refit()
            return 0
        self._snap = _with_delta(snap, self._conn, docs, rows[-1][1])
        if len(self._snap.delta_docs) > self._threshold():
            self._start_refit()
        log.debug("similarity.refreshed", changed=len(docs), delta=len(self._snap.delta_docs))
        return len(docs)

    def _poll(self, seconds: float) -> None:
        while not self._stopping.wait(seconds):
            try:
                self.refresh()
            except Exception:  # a failed refresh is retried at the next tick
                log.exception("similarity.refresh_failed", db=str(self.db_path))

    # -- querying ----------------------------------------------------------------------------

    def query(self, text: str, *, top: int = 10, kinds: set[int] | None = None, wait: float = 30.0) -> list[Match]:
        """The ``top`` documents most similar to ``text``, best first; zero scores left out.

        ``kinds`` keeps only those kinds (:data:`MESSAGE`, node levels 0–4). Refreshes from
        the feed first. Waits up to ``wait`` seconds for the first fit; raises TimeoutError
        when it is still running.
        """
        if not self._ready.wait(wait):
            raise TimeoutError("the similarity index is still being built")
        self.refresh(most=min(QUERY_REFRESH, self._threshold()))
        snap = self._snap
        assert snap is not None
        if snap.vectorizer is None:
            return []
        query = snap.vectorizer.transform([text])
        if query.nnz == 0:
            return []
        found = _top_fitted(snap, query, top, kinds) + _top_delta(snap, query, top, kinds)
        return sorted(found, key=lambda m: -m.score)[:top]


def _count(conn: Any) -> int:
    """Messages plus summarized nodes: how many documents a fit would read."""
    with translate_errors(conn):
        total = int(conn.execute("SELECT COUNT(*) FROM messages WHERE text != ''").fetchone()[0])
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'nodes'").fetchone() is not None:
            total += int(conn.execute("SELECT COUNT(*) FROM nodes WHERE summary != ''").fetchone()[0])
    return total


def _documents(conn: Any, ids: array[int], node_keys: list[str], kinds: array[int]) -> Iterator[str]:
    """Yield every message and summary text, recording its identity and kind as it goes."""
    with translate_errors(conn):
        for mid, text in conn.execute("SELECT id, text FROM messages WHERE text != '' ORDER BY id"):
            ids.append(mid)
            kinds.append(MESSAGE)
            yield text
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'nodes'").fetchone() is None:
            return
        for key, level, title, summary in conn.execute(
                "SELECT key, level, title, summary FROM nodes WHERE summary != '' ORDER BY key"):
            node_keys.append(key)
            kinds.append(int(level))
            yield f"{title or ''}\n{summary}"


def _fit_matrix(texts: Iterator[str], *, len_hint: int) -> tuple[Any, Any]:
    """Fit the vectorizer on ``texts``; ``(None, None)`` when they hold no usable word.

    An empty store is answered without importing scikit-learn (a daemon starting on a
    new home stays light until the first messages arrive).
    """
    if len_hint == 0:
        return None, None
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    big = len_hint >= 50_000
    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english", dtype=np.float32,
                                 min_df=2 if big else 1, max_df=0.5 if big else 1.0)
    try:
        return vectorizer, vectorizer.fit_transform(texts)
    except ValueError:  # empty vocabulary: no documents, or only stop words
        return None, None


def _nbytes(matrix: Any) -> int:
    if matrix is None:
        return 0
    return int(matrix.data.nbytes + matrix.indices.nbytes + matrix.indptr.nbytes)


def _with_delta(snap: _Snapshot, conn: Any, changed: list[str], seq: int) -> _Snapshot:
    """A new snapshot where ``changed`` docs' old rows are hidden and their new vectors appended."""
    import scipy.sparse as sp

    texts = _texts(conn, changed)
    dead = snap.dead.copy()
    for doc in changed:
        row = snap.row_of(doc)
        if row is not None:
            dead[row] = True
    gone = set(changed)
    keep = [i for i, d in enumerate(snap.delta_docs) if d not in gone]
    fresh = [d for d in changed if texts.get(d, ("", 0))[0].strip()] if snap.vectorizer is not None else []
    parts = [snap.delta[keep]] if snap.delta is not None and keep else []
    if fresh:
        parts.append(snap.vectorizer.transform([texts[d][0] for d in fresh]))
    delta = sp.vstack(parts, format="csr") if parts else None
    return _Snapshot(snap.vectorizer, snap.terms_docs, snap.msg_ids, snap.node_keys, snap.kinds, dead, seq, delta,
                     [snap.delta_docs[i] for i in keep] + fresh,
                     [snap.delta_kinds[i] for i in keep] + [texts[d][1] for d in fresh], snap.node_rows)


def _texts(conn: Any, docs: list[str]) -> dict[str, tuple[str, int]]:
    """Current text and kind of each doc that still exists."""
    ids = [int(d[2:]) for d in docs if d.startswith("m:")]
    keys = [d[2:] for d in docs if d.startswith("n:")]
    out: dict[str, tuple[str, int]] = {}
    with translate_errors(conn):
        for chunk in range(0, len(ids), _CHUNK):
            some_ids = ids[chunk:chunk + _CHUNK]
            for mid, text in conn.execute(
                    f"SELECT id, text FROM messages WHERE id IN ({','.join('?' * len(some_ids))})", some_ids):
                out[f"m:{mid}"] = (text, MESSAGE)
        has_nodes = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'nodes'").fetchone() is not None
        for chunk in range(0, len(keys) if has_nodes else 0, _CHUNK):
            some_keys = keys[chunk:chunk + _CHUNK]
            for key, level, title, summary in conn.execute(
                    f"SELECT key, level, title, summary FROM nodes WHERE key IN ({','.join('?' * len(some_keys))})",
                    some_keys):
                out[f"n:{key}"] = (f"{title or ''}\n{summary}" if summary else "", int(level))
    return out


def _top_fitted(snap: _Snapshot, query: Any, top: int, kinds: set[int] | None) -> list[Match]:
    import numpy as np

    if snap.terms_docs is None:
        return []
    scores = np.asarray(snap.terms_docs[query.indices].T @ query.data).ravel()
    scores[snap.dead] = 0.0
    if kinds is not None:
        scores[~np.isin(snap.kinds, list(kinds))] = 0.0
    return [Match(snap.doc(i), int(snap.kinds[i]), float(scores[i])) for i in _best(scores, top)]


def _top_delta(snap: _Snapshot, query: Any, top: int, kinds: set[int] | None) -> list[Match]:
    import numpy as np

    if snap.delta is None:
        return []
    scores = np.asarray((snap.delta @ query.T).todense()).ravel()
    if kinds is not None:
        scores[~np.isin(np.asarray(snap.delta_kinds), list(kinds))] = 0.0
    return [Match(snap.delta_docs[i], int(snap.delta_kinds[i]), float(scores[i])) for i in _best(scores, top)]


def _best(scores: Any, top: int) -> list[int]:
    """Indices of the ``top`` highest positive scores, best first."""
    import numpy as np

    positive = np.flatnonzero(scores > 0)
    if len(positive) > top:
        positive = positive[np.argpartition(-scores[positive], top - 1)[:top]]
    return [int(i) for i in positive[np.argsort(-scores[positive], kind="stable")]]
