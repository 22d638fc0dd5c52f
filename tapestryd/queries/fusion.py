"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): an item's score is the sum,
over the rankings it appears in, of ``weight / (k + rank)`` (ranks from 1)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

__all__ = ["rrf_scores"]

H = TypeVar("H", bound=Hashable)


def rrf_scores(rankings: Sequence[Sequence[H]], *, k: float, weights: Sequence[float] | None = None) -> dict[H, float]:
    """``{item: fused score}`` of ``rankings`` (each best first), in order of first appearance, so a
    stable sort by score keeps that order among ties. ``weights`` (one per ranking) default to 1."""
    scores: dict[H, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings)):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return scores
