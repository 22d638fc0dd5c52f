"""Per-level length budgets: how long a summary of each level may be, in characters.

A summary gets a fixed share of the raw message text under its node (``source_chars``),
bounded below (a tiny day still gets a sentence) and above (a busy year stays readable),
and never more than its own input. The shares make a day (L1) about 22 times smaller than
its messages, so the memory stays above 20:1 compression on ordinary days.
"""

from __future__ import annotations

__all__ = ["LEVEL_BUDGETS", "target_chars"]

# level: (share of source characters, floor, cap), characters
LEVEL_BUDGETS: dict[int, tuple[float, int, int]] = {
    0: (1 / 8, 200, 1600),
    1: (1 / 22, 120, 1500),
    2: (1 / 60, 200, 2000),
    3: (1 / 150, 300, 2500),
    4: (1 / 400, 400, 3000),
}


def target_chars(level: int, source_chars: int, input_chars: int) -> int:
    """The summary length budget (characters) of a node of ``level``.

    ``source_chars`` is the raw message text under the node, ``input_chars`` the text the
    summarizer is given (messages or child summaries).
    """
    share, floor, cap = LEVEL_BUDGETS[level]
    budget = min(cap, max(floor, int(max(source_chars, input_chars if level == 0 else 0) * share)))
    return max(1, min(budget, input_chars)) if input_chars else budget
