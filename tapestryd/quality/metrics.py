"""The memory-quality metrics: compression, fact retention and the Tapestry Score.

* **Compression** is source over summary, in characters and in estimated tokens
  (:func:`tapestryd.quality.text.estimate_tokens`). Over many nodes it is pooled: total
  source over total summary, so a long day weighs more than a short one.
* **Retention** is the share of facts a summary contains. A fact is contained when its
  best cosine against any one sentence of the summary reaches the similarity's threshold
  (:mod:`tapestryd.quality.similarity`): a summary holds a fact in one place, so its best
  sentence is compared, not the whole summary whose length would dilute the cosine.
* **Tapestry Score** = compression (characters) × retention, the figure python-tapestry
  reports (82:1 compression × 12.6 % retention = 10.3): how many times smaller the memory
  is, discounted by what it lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from tapestryd.quality.similarity import Similarity
from tapestryd.quality.text import estimate_tokens, split_sentences

__all__ = ["Compression", "Retention", "best_scores", "compression_of", "contained", "retention_of",
           "tapestry_score"]

_ROUNDING = 1e-9


@dataclass(frozen=True)
class Compression:
    """Sizes of a source and its summary: characters and estimated tokens (sums over nodes)."""

    source_chars: int = 0
    summary_chars: int = 0
    source_tokens: int = 0
    summary_tokens: int = 0

    def __add__(self, other: Compression) -> Compression:
        return Compression(self.source_chars + other.source_chars, self.summary_chars + other.summary_chars,
                           self.source_tokens + other.source_tokens, self.summary_tokens + other.summary_tokens)

    @property
    def chars_ratio(self) -> float | None:
        """Source characters per summary character (None for an empty summary)."""
        return self.source_chars / self.summary_chars if self.summary_chars else None

    @property
    def tokens_ratio(self) -> float | None:
        """Source tokens per summary token (None for an empty summary)."""
        return self.source_tokens / self.summary_tokens if self.summary_tokens else None


def compression_of(source: str, summary: str) -> Compression:
    """The :class:`Compression` of one summary over its source text."""
    return Compression(len(source), len(summary), estimate_tokens(source), estimate_tokens(summary))


@dataclass(frozen=True)
class Retention:
    """How many of ``facts`` a summary (or a set of summaries) retained."""

    facts: int = 0
    retained: int = 0

    def __add__(self, other: Retention) -> Retention:
        return Retention(self.facts + other.facts, self.retained + other.retained)

    @property
    def rate(self) -> float | None:
        """retained / facts, in [0, 1] (None when there are no facts)."""
        return self.retained / self.facts if self.facts else None


def best_scores(facts: Sequence[str], summary: str, similarity: Similarity) -> np.ndarray:
    """Per fact, its best cosine against any one sentence of ``summary`` (0 for an empty summary)."""
    sentences = split_sentences(summary)
    if not facts or not sentences:
        return np.zeros(len(facts))
    return np.asarray(similarity.matrix(list(facts), sentences).max(axis=1), dtype=float)


def retention_of(facts: Sequence[str], summary: str, similarity: Similarity) -> Retention:
    """How many ``facts`` the ``summary`` contains at the similarity's threshold."""
    scores = best_scores(facts, summary, similarity)
    return Retention(len(facts), int(np.count_nonzero(contained(scores, similarity.threshold))))


def contained(scores: np.ndarray, threshold: float) -> np.ndarray:
    """Which cosines reach ``threshold`` (inclusive, allowing 1e-9 of float rounding)."""
    return np.asarray(scores >= threshold - _ROUNDING)


def tapestry_score(compression: float | None, retention: float | None) -> float | None:
    """compression × retention (None when either is unknown)."""
    if compression is None or retention is None:
        return None
    return compression * retention
