"""The warm index: messages and summaries as term counts in memory, kept current from the feed.

Fitted once (term counts of :class:`~tapestryd.projections.analysis.Analyzer` stems, FTS5's
tokens, by :mod:`tapestryd.projections.termcount`), then kept current without refitting:
each :meth:`SimilarityIndex.refresh` reads the documents the similarity feed
(:mod:`tapestryd.projections.similarity`) lists after the last seq it saw, hides their old
rows and counts their new text into a small delta block with the fitted vocabulary. When
the delta passes ``refit_fraction`` of the fitted rows (or a ``reset`` arrives: something
was forgotten), a background thread refits from the database and swaps the new index in;
queries keep using the old one meanwhile. A fit remembers how far the messages and hierarchy
projections had come when it read them (:class:`Through`): the feed rows of changes it read
already are passed over, not refitted (:mod:`tapestryd.projections.warmsnap` holds the
snapshot of a fit and the steps from one to the next). The feed lags behind those projections when the
similarity projection catches up later than they did (a first start on a home imported
without it: at 1M messages every message came back as changed, and each fit that ended
during the catch-up started another one of the whole store).
A poller thread refreshes every few seconds in the daemon.

Each fit is saved beside the home's other caches (:mod:`tapestryd.projections.warmfile`,
stamped with the feed seq and checkpoints it read through), and :meth:`~SimilarityIndex.start`
loads it instead of fitting when it is still current: then the feed rows after its seq come in
through the delta, as they do while the daemon runs. A file that is missing, damaged, of another
format or analyzer, or older than a ``Forgotten`` event or the database it was fitted on (a
rebuilt or replaced ``projections.db``) is not used: the index is fitted and the file replaced.

:meth:`~SimilarityIndex.query` answers ``similar`` from the counts: TF-IDF cosine
similarity (:mod:`tapestryd.projections.termmatrix`). Search does not use this index: it
ranks with FTS5 alone (:mod:`tapestryd.queries.rerank`), with the daemon up or down.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from tapestryd.db import connect
from tapestryd.lazylog import get_logger
from tapestryd.projections.analysis import Analyzer
from tapestryd.projections.failures import Failures
from tapestryd.projections.hierarchy_views import summary_count
from tapestryd.projections.messages_read import document_count
from tapestryd.projections.similarity import feed_after, feed_head
from tapestryd.projections.termcount import fit_counts
from tapestryd.projections.termmatrix import Codes, cosine
from tapestryd.projections.warmdocs import MESSAGE, Corpus, load_changed
from tapestryd.projections.warmfile import Saved, Unusable, discard, read, write
from tapestryd.projections.warmsnap import (Snapshot, Through, delta_block, fitted_snapshot, from_saved, hide, outdated,
                                            saved_of)

__all__ = ["MESSAGE", "Match", "SimilarityIndex", "Through"]

log = get_logger(__name__)


@dataclass(frozen=True)
class Match:
    """One similar document: ``doc`` is ``m:<message id>`` or ``n:<node key>``, ``kind``
    :data:`MESSAGE` or a node level, ``score`` the cosine similarity (0, 1]."""

    doc: str
    kind: int
    score: float


class SimilarityIndex:
    """The warm index of one ``projections.db`` (see the module docstring).

    Thread-safe: queries read an immutable snapshot; refresh and refit swap snapshots
    under a lock. ``refit_fraction`` and ``refit_min`` (documents) say when the delta is
    big enough to refit in the background. With ``saved`` (a file path:
    :func:`~tapestryd.projections.warmfile.index_file`), every fit is saved there and
    :meth:`start` loads it when it is still current.
    """

    def __init__(self, db_path: Path, *, saved: Path | None = None, refit_fraction: float = 0.2,
                 refit_min: int = 2000) -> None:
        self.db_path = db_path
        self.saved = saved
        self.refit_fraction = refit_fraction
        self.refit_min = refit_min
        self.codes = Codes()
        self.analyzer = Analyzer()
        self._snap: Snapshot | None = None
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._stopping = threading.Event()
        self._fitting = False
        self._refit: threading.Thread | None = None
        self._poller: threading.Thread | None = None
        self._conn: Any = None
        self.failures = Failures("similarity", db=str(db_path))
        self.last_fit: dict[str, Any] = {}
        self.last_load: dict[str, Any] = {}
        self.origin = ""  # how the snapshot's fitted block came: "fitted" here or "loaded" from the saved file

    # -- life cycle ----------------------------------------------------------------------

    def start(self, *, poll_seconds: float = 2.0) -> None:
        """Load the saved index or else fit, in a background thread (queries wait for it), then refresh
        every ``poll_seconds``."""
        self._start_refit(load=True)
        self._poller = threading.Thread(target=self._poll, args=(poll_seconds,), name="similarity-poll", daemon=True)
        self._poller.start()

    def build(self) -> None:
        """Fit now, in this thread (the CLI's one-off index when no daemon runs), and save the fit."""
        snap = self._fit()
        self._install(snap, "fitted")
        self.refresh()
        self._save(snap)

    def open_saved(self) -> bool:
        """Install the saved index brought up to date with the feed, in this thread, changing nothing on disk (the
        CLI's answer when no daemon runs, the one the daemon would give); False, with nothing installed, when the
        file is missing, unusable or outdated, or when more documents changed since it was saved than the refit
        threshold (the daemon would refit). Raises StoreError when the database cannot be opened."""
        found = self._current_file()
        if found is None or isinstance(found, Unusable):
            return False
        snap = from_saved(found)
        most = self._threshold(snap)
        self._conn = connect(self.db_path, readonly=True)
        docs, seq = self._pending(snap, most)
        if len(docs) > most or "reset" in docs:
            return False
        self.codes = found.codes
        self._install(self._with_delta(snap, docs, seq) if docs else replace(snap, seq=seq), "loaded")
        return True

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
        """Documents fitted and in the delta, hidden rows, feed seq, bytes, ``origin`` (``fitted``, or
        ``loaded`` from the saved file), the last fit's and the last load's figures, and ``errors`` (task →
        ``"Type: message"``) while a background refit, refresh or save keeps failing."""
        snap, errors = self._snap, self.failures.current()
        failing = {"errors": errors} if errors else {}
        if snap is None:
            return {"ready": False, **self.last_fit, **self.last_load, **failing}
        hidden = sum(int(b.dead.sum()) for b in snap.blocks())
        return {"ready": True, "fitted": snap.fitted.size, "delta": snap.delta.size if snap.delta else 0,
                "hidden": hidden, "seq": snap.seq, "refitting": self._fitting, "origin": self.origin,
                "bytes": sum(b.nbytes() for b in snap.blocks()), **self.last_fit, **self.last_load, **failing}

    # -- fitting -------------------------------------------------------------------------

    def _start_refit(self, *, load: bool = False) -> None:
        if self._stopping.is_set() or (self._refit is not None and self._refit.is_alive()):
            return
        self._refit = threading.Thread(target=self._refit_run, args=(load,), name="similarity-refit", daemon=True)
        self._refit.start()

    def _refit_run(self, load: bool) -> None:
        """Fit (or with ``load`` first try the saved index), install, fold in the feed, save a fit."""
        self._fitting = True
        try:
            from_file = self._load() if load else None
            snap = from_file or self._fit()
        except Exception as exc:  # a failed refit keeps the old snapshot; the next trigger retries
            self.failures.failed("refit", exc)
            return
        finally:
            self._fitting = False
        self.failures.succeeded("refit")
        self._install(snap, "loaded" if from_file else "fitted")
        self._refresh_guarded()
        if from_file is None:
            self._save(snap)

    def _install(self, snap: Snapshot, origin: str) -> None:
        with self._lock:
            self._snap, self.origin = snap, origin
        self._ready.set()

    # -- the saved index -----------------------------------------------------------------

    def _load(self) -> Snapshot | None:
        """The saved index as a snapshot when it is usable and current, else None (the reason logged;
        a damaged or outdated file removed, the fit that follows writes it again)."""
        started = time.monotonic()
        found = self._current_file()
        if found is None:
            return None
        if isinstance(found, Unusable):
            self._not_loaded(found)
            return None
        self.codes, snap = found.codes, from_saved(found)
        self.last_load = {"load_seconds": round(time.monotonic() - started, 3), "loaded_documents": found.fitted.size,
                          "loaded_seq": found.stamp.seq}
        log.info("similarity.loaded", file=str(self.saved), terms=len(found.terms), **self.last_load)
        return snap

    def _current_file(self) -> Saved | Unusable | None:
        """The saved index when it is usable and still current for the database, else why not (None without
        ``saved``). Changes nothing on disk."""
        if self.saved is None:
            return None
        found = read(self.saved)
        if isinstance(found, Unusable):
            return found
        conn = connect(self.db_path, readonly=True)
        try:
            stale = outdated(conn, found.stamp)
        finally:
            conn.close()
        return Unusable(stale) if stale else found

    def _not_loaded(self, why: Unusable) -> None:
        """Log why the saved file is not used and remove it (the fit that follows writes it again)."""
        assert self.saved is not None
        discard(self.saved)
        if why.damaged:
            log.warning("similarity.saved_index_damaged", file=str(self.saved), reason=why.reason)
        else:
            log.info("similarity.saved_index_unused", file=str(self.saved), reason=why.reason)

    def _save(self, snap: Snapshot) -> None:
        """Write ``snap`` (a fit) to the saved file, unless something was forgotten since it was read: then
        the file is removed (checked again after the rename, which a forget may have raced)."""
        if self.saved is None:
            return
        saved = saved_of(snap, self.codes)
        conn = connect(self.db_path, readonly=True)
        try:
            if not outdated(conn, saved.stamp):
                size = write(self.saved, saved)
                if not outdated(conn, saved.stamp):
                    log.info("similarity.saved", file=str(self.saved), bytes=size, seq=saved.stamp.seq)
                    self.failures.succeeded("save")
                    return
            discard(self.saved)
        except Exception as exc:  # the index works without its file; the next fit tries again
            self.failures.failed("save", exc)
        finally:
            conn.close()

    def _fit(self) -> Snapshot:
        started = time.monotonic()
        conn = connect(self.db_path, readonly=True)
        corpus = Corpus()
        try:
            seq, through = feed_head(conn), Through.read(conn)
            vocabulary, counts, lengths = _count(corpus.stream(conn, self.codes), _documents(conn))
        finally:
            conn.close()
        snap = fitted_snapshot(vocabulary, counts, lengths, corpus, seq, through)
        self.last_fit = {"fit_seconds": round(time.monotonic() - started, 3), "documents": snap.fitted.size,
                         "terms": len(vocabulary), "matrix_bytes": snap.fitted.nbytes()}
        log.info("similarity.fitted", **self.last_fit)
        return snap

    # -- keeping current -----------------------------------------------------------------

    def refresh(self) -> int:
        """Fold in feed rows newer than the snapshot; returns how many documents changed.

        More pending rows than the refit threshold, a ``reset``, or a delta grown past the
        threshold start a background refit instead. Does nothing (returns 0) before the
        first fit or while another thread refreshes.
        """
        if self._snap is None or not self._lock.acquire(blocking=False):
            return 0
        try:
            return self._refresh_locked()
        finally:
            self._lock.release()

    def _threshold(self, snap: Snapshot | None) -> int:
        """Changed documents past which ``snap`` is refitted rather than brought up to date."""
        fitted = snap.fitted.size if snap is not None else 0
        return int(max(self.refit_min, self.refit_fraction * fitted))

    def _refresh_locked(self) -> int:
        snap = self._snap
        assert snap is not None
        if self._conn is None:
            self._conn = connect(self.db_path, readonly=True)
        most = self._threshold(snap)
        docs, seq = self._pending(snap, most)
        if seq == snap.seq:
            return 0
        if not docs:  # changes the fit read already: only the position in the feed moves
            self._snap = replace(snap, seq=seq)
            return 0
        if len(docs) > most or "reset" in docs or not snap.vocabulary:
            self._start_refit()
            return 0
        self._snap = self._with_delta(snap, docs, seq)
        if self._snap.delta is not None and self._snap.delta.size > self._threshold(self._snap):
            self._start_refit()
        log.debug("similarity.refreshed", changed=len(docs))
        return len(docs)

    def _pending(self, snap: Snapshot, most: int) -> tuple[list[str], int]:
        """The documents of the feed rows after ``snap``'s position that its fit did not read (at
        most ``most`` + 1 of the rows, a page), and the seq of the last row read (``snap.seq`` when
        none): pages the fit read whole are passed over, so a page with something new comes next."""
        seq = snap.seq
        while True:
            rows = feed_after(self._conn, seq, limit=most + 1)
            if not rows:
                return [], seq
            seq = rows[-1][1]
            docs = [doc for doc, at in rows if not snap.through.covers(doc, at)]
            if docs or len(rows) <= most:
                return docs, seq

    def _with_delta(self, snap: Snapshot, changed: list[str], seq: int) -> Snapshot:
        """A new snapshot: ``changed`` docs' old rows hidden, their current text in the delta."""
        fresh = load_changed(self._conn, changed, self.codes, snap.node_keys)
        gone = set(changed)
        fitted = replace(snap.fitted, dead=hide(snap, gone))
        corpus = snap.delta_corpus.without(gone).plus(fresh)
        delta = delta_block(snap, corpus, self.analyzer)
        return Snapshot(snap.vocabulary, snap.stats, fitted, snap.node_keys, seq, corpus, delta, snap.through)

    def _poll(self, seconds: float) -> None:
        while not self._stopping.wait(seconds):
            if self._snap is None:
                self._start_refit()  # the first fit failed: try again
            self._refresh_guarded()

    def _refresh_guarded(self) -> None:
        """:meth:`refresh`, its errors logged once each (they repeat at every tick until the
        cause goes); a new error also starts a refit, which rebuilds everything from the database."""
        try:
            self.refresh()
        except Exception as exc:
            if self.failures.failed("refresh", exc):
                self._start_refit()
        else:
            self.failures.succeeded("refresh")

    # -- querying ------------------------------------------------------------------------

    def _current(self, wait: float) -> Snapshot:
        if not self._ready.wait(wait):
            raise TimeoutError("the similarity index is still being built")
        assert self._snap is not None
        return self._snap

    def query(self, text: str, *, top: int = 10, kinds: set[int] | None = None, wait: float = 30.0) -> list[Match]:
        """The ``top`` documents most similar to ``text`` by TF-IDF cosine, best first; zero scores dropped.

        ``kinds`` keeps only those kinds (:data:`MESSAGE`, node levels 0–4). Waits up to
        ``wait`` seconds for the first fit; raises TimeoutError when it is still running.
        """
        import numpy as np

        snap = self._current(wait)
        columns, tf = _columns(snap, self.analyzer.terms(text))
        if columns is None:
            return []
        found = []
        for block in snap.blocks():
            scores = cosine(block, snap.stats, columns, tf)
            keep = ~block.dead if kinds is None else ~block.dead & np.isin(block.kinds, list(kinds))
            found += [Match(snap.doc(block, i), int(block.kinds[i]), float(scores[i]))
                      for i in _best(np.where(keep, scores, 0.0), top)]
        return sorted(found, key=lambda m: -m.score)[:top]


def _documents(conn: Any) -> int:
    """How many documents a fit will read (messages with text, summarized nodes)."""
    return document_count(conn) + summary_count(conn)


def _count(texts: Iterator[str], total: int) -> tuple[dict[str, int], Any, list[int]]:
    """Vocabulary, docs × terms counts (float32) and token lengths of the ``total`` streamed ``texts``.

    An empty store (or one holding only stop words) gives an empty vocabulary, and numpy
    and scipy are not even imported for a store with no text yet.
    """
    if not total:
        return {}, None, []
    analyzer = Analyzer()
    try:
        vocabulary, counts = fit_counts(texts, analyzer, min_df=2 if total >= 50_000 else 1)
    except ValueError:  # empty vocabulary: only stop words
        return {}, None, analyzer.lengths
    return vocabulary, counts, analyzer.lengths


def _columns(snap: Snapshot, terms: list[str], *, strict: bool = False) -> tuple[Any, Any]:
    """Vocabulary columns of ``terms`` and their counts; None when none is known (or, ``strict``, any is not)."""
    import numpy as np

    known = [snap.vocabulary[t] for t in terms if t in snap.vocabulary]
    if not known or (strict and len(known) < len(terms)):
        return None, None
    columns, counts = np.unique(np.asarray(known, dtype=np.int64), return_counts=True)
    return columns, counts


def _best(scores: Any, top: int) -> list[int]:
    """Indices of the ``top`` highest positive scores, best first."""
    import numpy as np

    positive = np.flatnonzero(scores > 0)
    if len(positive) > top:
        positive = positive[np.argpartition(-scores[positive], top - 1)[:top]]
    return [int(i) for i in positive[np.argsort(-scores[positive], kind="stable")]]
