"""Fitting context into a token budget: shorten, then drop, highest and oldest levels first.

The ladder, stopping as soon as the total fits:

1. shorten summaries, level L4 first, then L3 … L0, oldest period first within a level;
2. shorten today's raw messages, oldest first;
3. drop summaries in the same order;
4. drop raw messages, oldest first.

Token counts use :func:`tapestryd.queries.tokens.estimate_tokens` on each piece's rendered
text; the estimate is subadditive, so the reported total bounds the joined text's estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tapestryd.queries.tokens import estimate_tokens

__all__ = ["Piece", "fit_budget"]

RAW_RANK = 5


@dataclass
class Piece:
    """A budgetable part: its full and short renderings, where it sits in the cut order.

    ``rank`` is 0 for L4 … 4 for L0 and 5 (:data:`RAW_RANK`) for a raw message; ``start``
    orders pieces oldest first within a rank; ``state`` is ``full``, ``shortened`` or
    ``dropped``.
    """

    key: str
    level: str
    period: str
    full: str
    short: str
    rank: int
    start: str
    state: str = "full"

    def text(self) -> str:
        """The rendering for the current state ('' when dropped)."""
        if self.state == "full":
            return self.full
        return self.short if self.state == "shortened" else ""

    def tokens(self) -> int:
        """Estimated tokens of the current rendering."""
        return estimate_tokens(self.text())


def fit_budget(pieces: list[Piece], *, max_tokens: int | None,
               fixed_tokens: int = 0) -> tuple[int, list[dict[str, Any]]]:
    """Cut ``pieces`` in place until ``fixed_tokens`` plus their tokens fit ``max_tokens``.

    Returns ``(used tokens, cut records)``; each record has ``key``, ``level``, ``period``,
    ``action`` (``shortened`` or ``dropped``), ``tokens_before`` and ``tokens_after``.
    ``max_tokens`` None means no budget: nothing is cut. The total can stay above the
    budget only when ``fixed_tokens`` alone exceed it.
    """
    total = fixed_tokens + sum(p.tokens() for p in pieces)
    if max_tokens is None or total <= max_tokens:
        return total, []
    cuts: dict[str, dict[str, Any]] = {}
    for action, sequence in _ladder(pieces):
        for piece in sequence:
            if total <= max_tokens:
                return total, list(cuts.values())
            total += _cut(piece, action, cuts)
    return total, list(cuts.values())


def _ladder(pieces: list[Piece]) -> list[tuple[str, list[Piece]]]:
    summaries = sorted((p for p in pieces if p.rank < RAW_RANK), key=lambda p: (p.rank, p.start, p.key))
    raw = sorted((p for p in pieces if p.rank >= RAW_RANK), key=lambda p: (p.start, p.key))
    return [("shortened", summaries), ("shortened", raw), ("dropped", summaries), ("dropped", raw)]


def _cut(piece: Piece, action: str, cuts: dict[str, dict[str, Any]]) -> int:
    """Apply ``action`` to ``piece``; returns the change in tokens (zero or negative)."""
    before = piece.tokens()
    if action == "shortened" and (piece.state != "full" or len(piece.short) >= len(piece.full)):
        return 0
    piece.state = action
    after = piece.tokens()
    record = cuts.setdefault(piece.key, {"key": piece.key, "level": piece.level, "period": piece.period,
                                         "tokens_before": before})
    record.update(action=action, tokens_after=after)
    return after - before
