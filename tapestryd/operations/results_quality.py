"""The results of eval, drift, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tapestryd.operations.shape import Record

__all__ = ["DriftResult", "DriftStep", "DriftedNode", "EvalFacts", "EvalMethod", "EvalResult", "LevelEval",
    "LevelYield", "ProviderName", "RecallYield"]


@dataclass(frozen=True)
class EvalMethod(Record):
    """How ``eval`` measured: the ``similarity`` (tfidf, embedding), the cosine ``threshold`` at which a
    fact counts as retained, and the ``match``, ``compression`` and ``score`` rules in words."""

    similarity: str = ""
    threshold: float = 0.0
    match: str = ""
    compression: str = ""
    score: str = ""


@dataclass(frozen=True)
class EvalFacts(Record):
    """The facts ``eval`` looked for: their ``source`` (``file`` or ``extracted``), the ``file`` (None:
    extracted), how many in all, ``matched`` to a node and not (``unmatched``), and the lines of the
    file ``skipped`` with their ``problems`` (one line each)."""

    source: str = ""
    file: str | None = None
    total: int = 0
    matched: int = 0
    unmatched: int = 0
    skipped: int = 0
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class LevelEval(Record):
    """One level's evaluation (docs/EVAL.md): nodes and those not summarized, source and summary size
    (chars, tokens), compression ratios, facts and those retained, retention, Tapestry Score, facts
    without a summary, the chance retention and the recall decay (ratios None when undefined)."""

    level: int = 0
    nodes: int = 0
    unsummarized: int = 0
    source_chars: int = 0
    summary_chars: int = 0
    source_tokens: int = 0
    summary_tokens: int = 0
    compression_chars: float | None = None
    compression_tokens: float | None = None
    facts: int = 0
    retained: int = 0
    retention: float | None = None
    tapestry_score: float | None = None
    facts_without_summary: int = 0
    chance_retention: float | None = None
    recall_decay: float | None = None


@dataclass(frozen=True)
class LevelYield(Record):
    """One level's Recall Yield: nodes that could be sampled (``candidates``) and were, the similarity
    of fresh summaries to the stored ones (mean, min, max; None when none was sampled), the facts
    and their retention with and without telescoping context."""

    level: int = 0
    candidates: int = 0
    sampled: int = 0
    similarity_mean: float | None = None
    similarity_min: float | None = None
    similarity_max: float | None = None
    facts: int = 0
    retention_with_context: float | None = None
    retention_without_context: float | None = None


@dataclass(frozen=True)
class RecallYield(Record):
    """Recall Yield: nodes sampled per level at most (``sample``) and each level's figures."""

    sample: int = 0
    levels: tuple[LevelYield, ...] = ()


@dataclass(frozen=True)
class ProviderName(Record):
    """A summarizer provider's ``name`` and ``model`` (``""``: its default)."""

    name: str = ""
    model: str = ""


@dataclass(frozen=True)
class DriftStep(Record):
    """One step between two successive summaries of a node: the events' seqs, when the later was
    made, the cosine ``similarity``, ``drift`` (1 - cosine), its ``severity`` label and whether the
    provider changed between them."""

    from_seq: int = 0
    to_seq: int = 0
    at: str = ""
    similarity: float = 0.0
    drift: float = 0.0
    severity: str = ""
    provider_changed: bool = False


@dataclass(frozen=True)
class DriftedNode(Record):
    """A node with two or more summaries: its key, level, agent, ``versions``, the largest drift of a
    step and its severity, the latest step's drift, and the ``steps``, oldest first."""

    node: str = ""
    level: int = 0
    agent: str = ""
    versions: int = 0
    max_drift: float = 0.0
    severity: str = ""
    latest_drift: float = 0.0
    steps: tuple[DriftStep, ...] = ()


@dataclass(frozen=True)
class EvalResult(Record):
    """The memory's quality (docs/EVAL.md), report version ``schema``: the ``agent`` evaluated (None:
    all), the ``levels_evaluated``, the ``method``, the ``facts`` looked for, each level's figures
    (compression, retention, Tapestry Score), ``recall_yield`` (None when not run) and the
    summarizer ``provider`` (None only in a report built without the operation, as the eval bench's)."""

    schema: int = 1
    agent: str | None = None
    levels_evaluated: tuple[int, ...] = ()
    method: EvalMethod = field(default_factory=EvalMethod)
    facts: EvalFacts = field(default_factory=EvalFacts)
    levels: tuple[LevelEval, ...] = ()
    recall_yield: RecallYield | None = None
    provider: ProviderName | None = None


@dataclass(frozen=True)
class DriftResult(Record):
    """Nodes whose successive summaries moved, report version ``schema``: the similarity ``method``,
    the drift ``threshold`` that flags a node, the severity ``labels`` (label → lowest drift), the
    summaries read (``versions``) and nodes compared, how many nodes each severity has
    (``by_severity``), the ``flagged`` nodes, most drifted first, and with ``--all`` every compared
    node (``nodes``; None without it)."""

    schema: int = 1
    method: str = ""
    threshold: float = 0.0
    labels: Mapping[str, float] = field(default_factory=dict)
    versions: int = 0
    nodes_compared: int = 0
    by_severity: Mapping[str, int] = field(default_factory=dict)
    flagged: tuple[DriftedNode, ...] = ()
    nodes: tuple[DriftedNode, ...] | None = None
