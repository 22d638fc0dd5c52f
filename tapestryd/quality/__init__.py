"""Measured memory quality: compression, fact retention, Tapestry Score, Recall Yield, drift.

Where it sits in the import rule of DESIGN.md: a layer of its own, above ``queries`` and
``summarize`` and below ``daemon``::

    daemon (ops/quality_ops.py) → quality → queries, projections (read), summarize, events,
                                            db, config, paths, clock, errors

It only reads: the projections (nodes, their sources, messages) through a read-only
connection and the event log (every NodeSummarized version) read-only. Recall Yield needs
summaries made on demand; it takes the summarizing function as an argument, which the
daemon's operation supplies, so this package never imports the daemon.

Modules: :mod:`~tapestryd.quality.text` (sentences, token estimate),
:mod:`~tapestryd.quality.similarity` (TF-IDF or embedding cosine, stated thresholds),
:mod:`~tapestryd.quality.metrics` (compression, retention, score),
:mod:`~tapestryd.quality.facts` (extraction and the facts file),
:mod:`~tapestryd.quality.drift` (successive versions of a node).
"""
