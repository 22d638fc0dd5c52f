"""Budget arithmetic: the ladder cuts highest and oldest first, and the counts add up."""

from __future__ import annotations

from tapestryd.queries.budget import RAW_RANK, Piece, fit_budget
from tapestryd.queries.tokens import estimate_tokens, shorten


def piece(key: str, rank: int, start: str, full_chars: int, short_chars: int) -> Piece:
    level = "raw" if rank == RAW_RANK else f"L{4 - rank}"
    return Piece(key, level, start, "x" * full_chars, "x" * short_chars, rank, start)


def pieces() -> list[Piece]:
    return [
        piece("y2024", 0, "2024", 400, 40), piece("y2025", 0, "2025", 400, 40),
        piece("m01", 1, "2026-01", 200, 40), piece("d03", 3, "2026-03-03", 200, 40),
        piece("r1", RAW_RANK, "09:00", 80, 40), piece("r2", RAW_RANK, "10:00", 80, 40),
    ]


def test_estimate_is_chars_over_four_rounded_up() -> None:
    """The offline estimate: 0 for nothing, 1 for up to four characters, 2 for five."""
    assert [estimate_tokens(t) for t in ("", "abcd", "abcde")] == [0, 1, 2]


def test_without_a_budget_nothing_is_cut() -> None:
    """No budget: complete, and used is the sum of every piece plus the fixed part."""
    items = pieces()
    used, cuts = fit_budget(items, max_tokens=None, fixed_tokens=7)
    assert cuts == [] and used == 7 + (400 + 400 + 200 + 200 + 80 + 80) // 4
    assert all(p.state == "full" for p in items)


def test_shortening_starts_with_the_oldest_highest_level() -> None:
    """Just over budget: only the oldest yearly is shortened."""
    items = pieces()
    total = 10 + 1360 // 4
    used, cuts = fit_budget(items, max_tokens=total - 50, fixed_tokens=10)
    assert [(c["key"], c["action"]) for c in cuts] == [("y2024", "shortened")]
    assert used == total - 90 and used <= total - 50
    assert cuts[0]["tokens_before"] == 100 and cuts[0]["tokens_after"] == 10


def test_summaries_are_shortened_before_raw_messages_and_dropped_after() -> None:
    """The ladder: shorten L4, L3 … then raw; then drop summaries oldest-highest first."""
    items = pieces()
    used, cuts = fit_budget(items, max_tokens=10 + 45, fixed_tokens=10)
    actions = {c["key"]: c["action"] for c in cuts}
    assert actions == {"y2024": "dropped", "y2025": "dropped", "m01": "shortened", "d03": "shortened",
                       "r1": "shortened", "r2": "shortened"}
    assert used == 10 + 4 * 10 <= 55
    assert used == 10 + sum(p.tokens() for p in items)


def test_the_reported_total_bounds_the_joined_text() -> None:
    """Per-piece estimates add up to at least the estimate of the text they make together."""
    items = [Piece(str(i), "L1", str(i), "word " * (i + 1) + "end\n", "w\n", 3, str(i)) for i in range(9)]
    used, _ = fit_budget(items, max_tokens=30, fixed_tokens=0)
    joined = "".join(p.text() for p in items)
    assert estimate_tokens(joined) <= used <= 30


def test_a_budget_below_the_fixed_part_cuts_everything_it_can() -> None:
    """When even the fixed part does not fit, every piece is dropped and the total says so."""
    items = pieces()
    used, cuts = fit_budget(items, max_tokens=5, fixed_tokens=10)
    assert used == 10 and all(p.state == "dropped" for p in items) and len(cuts) == len(items)


def test_shorten_cuts_at_a_word_and_marks_it() -> None:
    """shorten keeps whole words and ends with an ellipsis; short text is untouched."""
    assert shorten("the quick brown fox jumps", 14) == "the quick…"
    assert shorten("short", 14) == "short"
