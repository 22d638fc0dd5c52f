"""Recall Yield: what telescoping context does to a summary, level by level.

For a sample of nodes per level, the same provider summarizes each node twice, once with
its telescoping context (earlier segments and days, earlier siblings) and once without.
Per level this reports:

* ``similarity``: the cosine of the two summaries as whole texts (mean, min, max). 1.0
  means the context changed nothing; lower means the context moved the summary;
* ``retention_with_context`` / ``retention_without_context``: the share of the sampled
  nodes' facts each version retains (same similarity and threshold as the evaluation), so
  the context's gain or cost in facts is read directly.

Only summarized nodes that *have* context are sampled (without context both calls are the
same request). The sample is spread evenly over the level's nodes in key order, so it is
the same on every run. The summarizing function is passed in: ``summarize(key, context)``
returns the summary text of node ``key`` made with (``True``) or without context.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from tapestryd.projections.hierarchy_read import context_nodes, get_node
from tapestryd.quality.evaluate import Homed
from tapestryd.quality.metrics import Retention, retention_of
from tapestryd.quality.similarity import Similarity
from tapestryd.quality.tree import Tree

__all__ = ["NodeSummarize", "YieldLevel", "even_sample", "recall_yield"]

NodeSummarize = Callable[[str, bool], str]


@dataclass(frozen=True)
class YieldLevel:
    """Recall Yield of one level: sampled nodes, their similarities and fact retention both ways."""

    level: int
    candidates: int
    similarities: tuple[float, ...]
    with_context: Retention
    without_context: Retention

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the keys documented in docs/EVAL.md."""
        sims = self.similarities
        return {"level": self.level, "candidates": self.candidates, "sampled": len(sims),
                "similarity_mean": round(sum(sims) / len(sims), 4) if sims else None,
                "similarity_min": round(min(sims), 4) if sims else None,
                "similarity_max": round(max(sims), 4) if sims else None,
                "facts": self.with_context.facts,
                "retention_with_context": _rate(self.with_context),
                "retention_without_context": _rate(self.without_context)}


def _rate(retention: Retention) -> float | None:
    return None if retention.rate is None else round(retention.rate, 4)


def even_sample(items: Sequence[str], size: int) -> list[str]:
    """``size`` items spread evenly over ``items`` (first and last included), in order."""
    if size <= 0 or not items:
        return []
    if size >= len(items):
        return list(items)
    if size == 1:
        return [items[len(items) // 2]]
    return [items[round(i * (len(items) - 1) / (size - 1))] for i in range(size)]


def recall_yield(tree: Tree, conn: sqlite3.Connection, homed: Sequence[Homed], similarity: Similarity,
                 summarize: NodeSummarize, *, levels: Sequence[int], sample: int) -> list[YieldLevel]:
    """Recall Yield of each level in ``levels`` over ``sample`` nodes (2 provider calls each).

    ``similarity`` must already be fitted (the evaluation fits it). Raises whatever
    ``summarize`` raises (ProviderError for a failing provider).
    """
    return [_level(tree, conn, homed, similarity, summarize, level, sample) for level in sorted(levels)]


def _level(tree: Tree, conn: sqlite3.Connection, homed: Sequence[Homed], similarity: Similarity,
           summarize: NodeSummarize, level: int, sample: int) -> YieldLevel:
    candidates = [n.key for n in tree.at_level(level) if n.summary.strip() and _has_context(conn, n.key)]
    sims: list[float] = []
    kept_with, kept_without = Retention(), Retention()
    for key in even_sample(candidates, sample):
        with_text, without_text = summarize(key, True), summarize(key, False)
        sims.append(1.0 if with_text == without_text else float(similarity.matrix([with_text], [without_text])[0, 0]))
        facts = [h.text for h in homed if any(tree.ancestor(home, level) == key for home in h.homes)]
        kept_with += retention_of(facts, with_text, similarity)
        kept_without += retention_of(facts, without_text, similarity)
    return YieldLevel(level, len(candidates), tuple(sims), kept_with, kept_without)


def _has_context(conn: sqlite3.Connection, key: str) -> bool:
    row = get_node(conn, key)
    return row is not None and bool(context_nodes(conn, row))
