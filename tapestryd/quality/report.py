"""One call for the whole evaluation and its stable JSON shape (documented in docs/EVAL.md)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tapestryd.db import translate_errors
from tapestryd.errors import TapestryError
from tapestryd.quality.evaluate import LEVELS, evaluate_levels, home_facts
from tapestryd.quality.facts import load_facts
from tapestryd.quality.recall import NodeSummarize, recall_yield
from tapestryd.quality.similarity import make_similarity
from tapestryd.quality.tree import load_tree

__all__ = ["EVAL_SCHEMA_VERSION", "EvalOptions", "run_eval"]

EVAL_SCHEMA_VERSION = 1
MATCH_RULE = "best cosine between the fact and any one sentence of the node's summary, at or above the threshold"
COMPRESSION_RULE = ("raw message characters under the node over summary characters; tokens estimated as "
                    "ceil(characters / 4) per text")
SCORE_RULE = "compression_chars x retention"


@dataclass(frozen=True)
class EvalOptions:
    """What to evaluate: agent ('' for all), levels, a facts file (None: extract), method,
    threshold (None: the method's default), Recall Yield sample per level (0: skip) and the
    SQLite file that keeps embeddings between runs (None: none)."""

    agent: str = ""
    levels: tuple[int, ...] = LEVELS
    facts_file: Path | None = None
    method: str = "tfidf"
    threshold: float | None = None
    sample: int = 0
    embedding_cache: Path | None = None


def run_eval(conn: sqlite3.Connection, options: EvalOptions, summarize: NodeSummarize | None = None) -> dict[str, Any]:
    """Evaluate the tree in ``projections.db`` (``conn``, read-only is enough).

    ``summarize`` makes fresh summaries for Recall Yield (skipped when None or when the
    sample is 0). Raises TapestryError when no node is stored, for a bad facts file, a bad
    level or method; StoreError when the hierarchy tables cannot be read.
    """
    _check_levels(options.levels)
    with translate_errors(conn):
        tree = load_tree(conn, agent=options.agent)
    if not tree.nodes:
        who = f" for agent {options.agent!r}" if options.agent else ""
        raise TapestryError(f"no summary nodes{who} yet: import conversations, then run `tapestryctl iterate`")
    read = load_facts(options.facts_file) if options.facts_file else None
    facts = read.facts if read is not None else None
    homed, unmatched = home_facts(tree, facts)
    similarity = make_similarity(options.method, threshold=options.threshold, cache_file=options.embedding_cache)
    reports = evaluate_levels(tree, homed, similarity, options.levels)
    recall = None
    if summarize is not None and options.sample > 0:
        with translate_errors(conn):
            recall = recall_yield(tree, conn, homed, similarity, summarize, levels=options.levels,
                                  sample=options.sample)
    return {
        "schema": EVAL_SCHEMA_VERSION, "agent": options.agent or None, "levels_evaluated": sorted(options.levels),
        "method": {"similarity": similarity.method, "threshold": similarity.threshold, "match": MATCH_RULE,
                   "compression": COMPRESSION_RULE, "score": SCORE_RULE},
        "facts": {"source": "file" if facts is not None else "extracted",
                  "file": str(options.facts_file) if options.facts_file else None,
                  "total": len(homed) + unmatched, "matched": len(homed), "unmatched": unmatched,
                  "skipped": read.skipped if read else 0, "problems": list(read.problems) if read else []},
        "levels": [r.to_dict() for r in reports],
        "recall_yield": None if recall is None else {"sample": options.sample,
                                                     "levels": [y.to_dict() for y in recall]},
    }


def _check_levels(levels: tuple[int, ...]) -> None:
    bad = [lv for lv in levels if lv not in LEVELS]
    if bad or not levels:
        raise TapestryError(f"levels must be among 0-4, got {list(levels)}")
