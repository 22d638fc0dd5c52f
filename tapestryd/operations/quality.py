"""Quality operations: ``eval`` (compression, retention, Tapestry Score, Recall Yield) and ``drift``.

Both only read: the projections through the reader's connection and the event log
read-only. ``eval`` may call the configured provider for Recall Yield (two calls per
sampled node); with a remote provider that happens only when a sample is asked for.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from zoneinfo import ZoneInfo

from tapestryd.errors import ConfigError, TapestryError
from tapestryd.operations.base import ReadDeps
from tapestryd.operations.checks import check_agent
from tapestryd.operations.requests import DriftRequest, EvalRequest
from tapestryd.operations.results import DriftResult, EvalResult
from tapestryd.operations.summary_requests import build_request
from tapestryd.projections.hierarchy_read import get_node
from tapestryd.quality.drift import (
    DRIFT_THRESHOLD,
    SEVERITIES,
    measure_drift,
    read_versions,
)
from tapestryd.quality.evaluate import LEVELS
from tapestryd.quality.recall import NodeSummarize
from tapestryd.quality.report import EvalOptions, run_eval
from tapestryd.quality.similarity import make_similarity
from tapestryd.queries.levelnames import level_number
from tapestryd.queries.reader import Reader
from tapestryd.summarize import Budget, Summarizer, make_summarizer

__all__ = ["drift", "evaluate", "node_summarize"]

LOCAL_YIELD_SAMPLE = 3


def evaluate(request: EvalRequest, deps: ReadDeps) -> EvalResult:
    """Evaluate memory quality.

    ``sample`` None means 3 nodes per level with a local provider and none with a remote one
    (nor with a provider whose settings are incomplete); 0 never builds a provider at all.
    """
    reader = deps.reader
    sample = None if request.sample is None else max(0, request.sample)
    agent = check_agent(reader.settings, reader.conn, request.agent)
    summarizer = _provider(reader, sample)
    conf = reader.settings.summarize
    try:
        local = summarizer is not None and summarizer.local
        options = EvalOptions(agent=agent, levels=_levels(request.levels),
                              facts_file=Path(request.facts) if request.facts else None,
                              method=request.method or "tfidf", threshold=_threshold(request.threshold),
                              sample=(LOCAL_YIELD_SAMPLE if local else 0) if sample is None else sample)
        make = None if summarizer is None else node_summarize(reader.conn, reader.tz, summarizer,
                                                              Budget.per_run(conf))
        result = run_eval(reader.conn, options, make)
    finally:
        if summarizer is not None:
            summarizer.close()
    result["provider"] = ({"name": summarizer.name, "model": summarizer.model} if summarizer is not None
                          else {"name": conf.provider, "model": conf.model})
    return EvalResult.from_json(result)


def _provider(reader: Reader, sample: int | None) -> Summarizer | None:
    """The configured provider, or None when no Recall Yield can be asked of it.

    Raises ConfigError only when a sample was asked for explicitly.
    """
    if sample == 0:
        return None
    try:
        return make_summarizer(reader.settings.summarize)
    except ConfigError:
        if sample is None:
            return None
        raise


def node_summarize(conn: sqlite3.Connection, tz: ZoneInfo, summarizer: Summarizer, budget: Budget) -> NodeSummarize:
    """A ``summarize(key, with_context)`` for Recall Yield: the node's request as the summarizer
    process manager builds it, with or without telescoping context, through ``summarizer``."""
    def summarize(key: str, with_context: bool) -> str:
        node = get_node(conn, key)
        if node is None:
            raise TapestryError(f"no node {key!r}")
        request, _ = build_request(conn, node, tz, with_context=with_context)
        return summarizer.summarize(request, budget).text

    return summarize


def drift(request: DriftRequest, deps: ReadDeps) -> DriftResult:
    """Nodes whose successive summaries moved (every node compared with ``all``); raises TapestryError for a
    ``threshold`` (1 - cosine) outside (0, 1], which would flag every node or none."""
    reader = deps.reader
    threshold = DRIFT_THRESHOLD if request.threshold is None else request.threshold
    if not 0 < threshold <= 1:
        raise TapestryError(f"drift threshold is 1 - cosine: more than 0 and at most 1, got {threshold:g}")
    versions = read_versions(reader.paths.events_db, agent=check_agent(reader.settings, reader.conn, request.agent),
                             level=level_number(request.level) if request.level else None)
    similarity = make_similarity(request.method or "tfidf")
    nodes = sorted(measure_drift(versions, similarity), key=lambda n: (-n.worst.drift, n.node))
    flagged = [n for n in nodes if n.worst.drift >= threshold]
    counts = {label: sum(1 for n in nodes if n.worst.severity == label) for label, _ in SEVERITIES}
    return DriftResult.from_json({"schema": 1, "method": similarity.method, "threshold": threshold,
                                  "labels": {label: floor for label, floor in SEVERITIES}, "versions": len(versions),
                                  "nodes_compared": len(nodes), "by_severity": counts,
                                  "flagged": [n.to_dict() for n in flagged],
                                  "nodes": [n.to_dict() for n in nodes] if request.all else None})


def _levels(value: tuple[str, ...]) -> tuple[int, ...]:
    """Levels as 0-4 or L0-L4, sorted; every level when none is given."""
    if not value:
        return LEVELS
    return tuple(sorted({level_number(v) for v in value}))


def _threshold(threshold: float | None) -> float | None:
    """The eval ``threshold``, a cosine in (0, 1]; None for the method's default."""
    if threshold is not None and not 0 < threshold <= 1:
        raise TapestryError(f"threshold is a cosine: more than 0 and at most 1, got {threshold:g}")
    return threshold
