"""``tapestryctl eval``: compression, fact retention and Tapestry Score per level of the tree.

How one evaluation runs (the output is documented in docs/EVAL.md):

1. Facts get *homes*. Extracted facts (the default) live in the L0 whose messages they
   came from. A facts file's fact lives in the L0 nodes of its conversation (narrowed to
   its day and agent when given), or, with only a day, in that day's L1 nodes.
2. The similarity is fitted once on every raw sentence, every fact and every summary
   sentence in scope, so all levels are scored with the same weights.
3. At each level a fact is checked against the summary of its home's ancestor at that
   level (itself at its own level). A fact whose ancestor has no summary yet is counted
   apart (``facts_without_summary``), not as lost.
4. Compression at a level pools every summarized node of that level: raw source
   characters (and estimated tokens) under them over their summaries' characters.
5. Two references make the figures readable: ``chance_retention`` checks each fact
   against a *different* node's summary of the same level (the next one in key order), the
   rate at which the threshold matches by accident; ``recall_decay`` is the share of facts
   retained at the level below that this level no longer retains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tapestryd.quality.facts import Fact, extract_facts
from tapestryd.quality.metrics import (
    Compression,
    Retention,
    best_scores,
    compression_of,
    contained,
    tapestry_score,
)
from tapestryd.quality.similarity import Similarity
from tapestryd.quality.text import estimate_tokens, split_sentences
from tapestryd.quality.tree import EvalNode, Tree

__all__ = ["LEVELS", "Homed", "LevelReport", "evaluate_levels", "home_facts"]

LEVELS = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class Homed:
    """A fact's text and the keys of the nodes it belongs to (L0s, or L1s for a day-only fact)."""

    text: str
    homes: tuple[str, ...]


@dataclass(frozen=True)
class LevelReport:
    """The figures of one level and the counts behind them."""

    level: int
    nodes: int
    unsummarized: int
    compression: Compression
    retention: Retention
    facts_without_summary: int
    chance: Retention
    recall_decay: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the keys documented in docs/EVAL.md."""
        c, r = self.compression, self.retention
        return {"level": self.level, "nodes": self.nodes, "unsummarized": self.unsummarized,
                "source_chars": c.source_chars, "summary_chars": c.summary_chars, "source_tokens": c.source_tokens,
                "summary_tokens": c.summary_tokens, "compression_chars": _round(c.chars_ratio),
                "compression_tokens": _round(c.tokens_ratio), "facts": r.facts, "retained": r.retained,
                "retention": _round(r.rate), "tapestry_score": _round(tapestry_score(c.chars_ratio, r.rate)),
                "facts_without_summary": self.facts_without_summary, "chance_retention": _round(self.chance.rate),
                "recall_decay": _round(self.recall_decay)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def home_facts(tree: Tree, facts: Sequence[Fact] | None) -> tuple[list[Homed], int]:
    """Facts with their homes, and how many facts matched no node (a facts file's strays).

    ``facts`` None extracts them from each L0's messages.
    """
    if facts is None:
        return [Homed(text, (leaf,)) for leaf, texts in sorted(tree.messages.items())
                for text in extract_facts(texts)], 0
    index, days = _conversation_index(tree), tree.at_level(1)
    homed = [Homed(f.text, _homes(tree, index, days, f)) for f in facts]
    return [h for h in homed if h.homes], sum(1 for h in homed if not h.homes)


def _conversation_index(tree: Tree) -> dict[str, list[str]]:
    """L0 keys by conversation key and by the id after the conversation key's first colon."""
    index: dict[str, list[str]] = {}
    for node in tree.at_level(0):
        for name in {node.conversation, node.conversation.partition(":")[2]} - {""}:
            index.setdefault(name, []).append(node.key)
    return index


def _homes(tree: Tree, index: dict[str, list[str]], days: list[EvalNode], fact: Fact) -> tuple[str, ...]:
    day = fact.day.isoformat() if fact.day else ""
    keys = [tree.nodes[k] for k in index.get(fact.conversation, [])] if fact.conversation else days
    return tuple(n.key for n in keys
                 if (not day or n.period_start == day) and (not fact.agent or n.agent == fact.agent))


def fit_corpus(tree: Tree, homed: Sequence[Homed], levels: Sequence[int]) -> list[str]:
    """Every raw sentence, fact and summary sentence in scope: what the similarity is fitted on."""
    raw = [s for texts in tree.messages.values() for text in texts for s in split_sentences(text)]
    summaries = [s for n in tree.nodes.values() if n.level in levels for s in split_sentences(n.summary)]
    return raw + [h.text for h in homed] + summaries


def evaluate_levels(tree: Tree, homed: Sequence[Homed], similarity: Similarity,
                    levels: Sequence[int] = LEVELS) -> list[LevelReport]:
    """One :class:`LevelReport` per level in ``levels`` (ascending), the similarity fitted here."""
    similarity.fit(fit_corpus(tree, homed, levels))
    similarity.prepare([h.text for h in homed] + [s for n in tree.nodes.values() if n.level in levels
                                                  for s in split_sentences(n.summary)])
    sizes = {leaf: _leaf_size(texts) for leaf, texts in tree.messages.items()}
    reports: list[LevelReport] = []
    previous: np.ndarray | None = None
    for level in sorted(levels):
        report, retained = _level(tree, homed, similarity, sizes, level, previous)
        reports.append(report)
        previous = retained if level + 1 in levels else None
    return reports


def _leaf_size(texts: Sequence[str]) -> Compression:
    return Compression(sum(len(t) for t in texts), 0, sum(estimate_tokens(t) for t in texts), 0)


def _level(tree: Tree, homed: Sequence[Homed], similarity: Similarity, sizes: dict[str, Compression], level: int,
           previous: np.ndarray | None) -> tuple[LevelReport, np.ndarray]:
    """The report of one level and, per fact, 1 retained / 0 lost / -1 not counted here."""
    nodes = tree.at_level(level)
    summarized = [n for n in nodes if n.summary.strip()]
    compression = _compression(tree, summarized, sizes, level)
    ancestors = [sorted({tree.ancestor(h, level) for h in fact.homes} - {""}) for fact in homed]
    with_summary = [[k for k in keys if tree.nodes[k].summary.strip()] for keys in ancestors]
    scores = _scores(tree, homed, with_summary, similarity)
    status = np.where([bool(k) for k in with_summary], contained(scores, similarity.threshold).astype(int), -1)
    counted = status >= 0
    retention = Retention(int(counted.sum()), int((status == 1).sum()))
    waiting = sum(1 for keys, ok in zip(ancestors, with_summary) if keys and not ok)
    chance = _chance(tree, homed, with_summary, summarized, similarity)
    report = LevelReport(level, len(summarized), len(nodes) - len(summarized), compression,
                         retention, waiting, chance, _decay(previous, status))
    return report, status


def _compression(tree: Tree, summarized: Sequence[Any], sizes: dict[str, Compression], level: int) -> Compression:
    leaves = tree.leaves_by_ancestor(level)
    total = Compression()
    for node in summarized:
        source = sum((sizes[leaf] for leaf in leaves.get(node.key, [])), Compression())
        total += source + compression_of("", node.summary)
    return total


def _scores(tree: Tree, homed: Sequence[Homed], keys_per_fact: Sequence[list[str]],
            similarity: Similarity) -> np.ndarray:
    """Per fact, its best cosine against any sentence of any of its nodes' summaries."""
    by_node: dict[str, list[int]] = {}
    for i, keys in enumerate(keys_per_fact):
        for key in keys:
            by_node.setdefault(key, []).append(i)
    scores = np.zeros(len(homed))
    for key, indexes in by_node.items():
        found = best_scores([homed[i].text for i in indexes], tree.nodes[key].summary, similarity)
        scores[indexes] = np.maximum(scores[indexes], found)
    return scores


def _chance(tree: Tree, homed: Sequence[Homed], keys_per_fact: Sequence[list[str]], summarized: Sequence[Any],
            similarity: Similarity) -> Retention:
    """Facts checked against the next summarized node of the level instead of their own."""
    order = [n.key for n in summarized]
    if len(order) < 2:
        return Retention()
    position = {key: i for i, key in enumerate(order)}
    others = [[order[(position[keys[0]] + 1) % len(order)]] if keys else [] for keys in keys_per_fact]
    scores = _scores(tree, homed, others, similarity)
    counted = np.array([bool(k) for k in others], dtype=bool)
    return Retention(int(counted.sum()), int((contained(scores, similarity.threshold) & counted).sum()))


def _decay(previous: np.ndarray | None, status: np.ndarray) -> float | None:
    """Of the facts retained one level below and counted here, the share this level lost."""
    if previous is None:
        return None
    kept_below = (previous == 1) & (status >= 0)
    return float((status[kept_below] == 0).mean()) if kept_below.any() else None
