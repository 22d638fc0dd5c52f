"""Bounded answers: fit a list of entries under a token budget, saying what was left out.

Tokens are estimated as the context budget does (:func:`tapestryd.queries.tokens.estimate_tokens`,
about four characters each) on each entry's compact JSON.
"""

from __future__ import annotations

import json
from typing import Any

from tapestryd.queries.tokens import estimate_tokens, shorten

__all__ = ["compact_json", "fit_entries"]


def compact_json(value: Any) -> str:
    """``value`` as one line of JSON without spaces (what a tool returns as text)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def fit_entries(entries: list[dict[str, Any]], max_tokens: int, *, text_field: str) -> tuple[list[dict[str, Any]], int]:
    """The leading ``entries`` whose JSON fits in ``max_tokens``, and how many were left out.

    The first entry is always kept: when it alone is too long, its ``text_field`` is cut
    to fit (ending with ``…``) and it gains ``"cut": true``.
    """
    kept: list[dict[str, Any]] = []
    used = 0
    for entry in entries:
        cost = estimate_tokens(compact_json(entry))
        if used + cost > max_tokens:
            if kept:
                break
            entry = _cut(entry, max_tokens, text_field)
            cost = estimate_tokens(compact_json(entry))
        kept.append(entry)
        used += cost
    return kept, len(entries) - len(kept)


def _cut(entry: dict[str, Any], max_tokens: int, text_field: str) -> dict[str, Any]:
    text = str(entry.get(text_field) or "")
    rest = estimate_tokens(compact_json({**entry, text_field: ""})) + 4
    room = max(40, (max_tokens - rest) * 4)
    return {**entry, text_field: shorten(text, room), "cut": True}
