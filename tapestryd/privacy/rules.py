"""The shape of one detection rule, and the entropy test that tells a token from a word."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable

__all__ = ["Accept", "Rule", "shannon_entropy", "token_like"]

Accept = Callable[["re.Match[str]"], bool]


@dataclass(frozen=True)
class Rule:
    """A regex for one secret ``kind``.

    ``keywords`` are lowercase substrings one of which must occur in the text for the
    regex to run at all (a cheap pre-filter, as gitleaks' rule keywords); ``group`` is
    the part of the match that is the secret; ``accept`` vets a match (None: always);
    ``classify`` names the kind from the match when it depends on it (None: ``kind``);
    ``gate(text)`` is a cheap test that must pass for the rule to run at all.
    """

    kind: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]
    group: int | str = 0
    accept: Accept | None = None
    classify: Callable[["re.Match[str]"], str] | None = None
    gate: Callable[[str], bool] | None = None

    def kind_of(self, match: re.Match[str]) -> str:
        """The kind of secret ``match`` found."""
        return self.classify(match) if self.classify is not None else self.kind


def shannon_entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (0.0 for an empty string)."""
    if not value:
        return 0.0
    counts, total = Counter(value), len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def token_like(value: str, min_entropy: float = 3.0) -> bool:
    """Whether ``value`` looks generated: it holds a digit and has ``min_entropy`` bits/char.

    English words of 16+ letters stay under 3.5 bits/char and hold no digit; API tokens
    of that length are near 4.5 (log2 of a 62-letter alphabet is 5.95).
    """
    return any(c.isdigit() for c in value) and shannon_entropy(value) >= min_entropy
