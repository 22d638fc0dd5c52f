"""The requests of eval, drift.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DriftRequest", "EvalRequest"]


@dataclass(frozen=True)
class EvalRequest:
    """Evaluate memory quality.

    ``levels``: 0-4 or L0-L4 (empty: every level); ``facts``: a facts file; ``method``:
    tfidf or another similarity; ``threshold``: a cosine in (0, 1] (None: the method's);
    ``sample``: nodes per level for Recall Yield (None: 3 with a local provider, 0 with a
    remote one).
    """

    agent: str = ""
    levels: tuple[str, ...] = ()
    facts: str = ""
    method: str = "tfidf"
    threshold: float | None = None
    sample: int | None = None


@dataclass(frozen=True)
class DriftRequest:
    """Nodes whose successive summaries moved (``all``: list every node compared)."""

    agent: str = ""
    level: str = ""
    threshold: float | None = None
    method: str = "tfidf"
    all: bool = False
