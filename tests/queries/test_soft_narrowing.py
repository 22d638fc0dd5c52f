"""Soft narrowing by a time phrase: strong matches from other times rank among the range's weaker ones, marked."""

from __future__ import annotations

from tapestryd.cli.render import render_hits
from tapestryd.queries.search import SOFT_K, SearchHit, soft_narrow


def _hit(n: int) -> SearchHit:
    return SearchHit("message", n, "chatgpt:c", f"m{n}", "t", "chatgpt", "user", "2026-03-04T08:00:00.000000Z",
                     "2026-03-04T09:00:00+01:00", f"text {n}", -1.0)


def test_a_strong_match_from_other_times_ranks_above_a_weak_one_inside_and_is_marked() -> None:
    """Inside the range 1, 2, 3, of which only 1 ranks well over all times; 10 ranks best over all times,
    then 1, then 20, 21, ... (2 and 3 rank too low over all times to be in that list)."""
    inside = [_hit(1), _hit(2), _hit(3)]
    anywhere = [_hit(10), _hit(1)] + [_hit(n) for n in range(20, 20 + 4 * SOFT_K)]
    fused = soft_narrow(inside, anywhere, limit=5)
    assert [h.id for h in fused] == [1, 10, 2, 3, 20]
    assert [bool(h.extra.get("outside_range")) for h in fused] == [False, True, False, False, True]
    assert not any(h.extra for h in inside + anywhere)  # the inputs are left unmarked


def test_soft_narrowing_keeps_the_limit_and_the_range_first_on_ties() -> None:
    """A hit in both lists at the same rank beats one in a single list; the limit cuts the fused list."""
    fused = soft_narrow([_hit(1)], [_hit(1), _hit(2), _hit(3)], limit=2)
    assert [h.id for h in fused] == [1, 2] and fused[1].extra == {"outside_range": True}


def test_text_marks_each_hit_from_other_times_when_they_rank_among_the_range() -> None:
    """Interleaved: a header says so and each outside hit is marked; behind: the one separator, no marks."""
    mixed = [_hit(1).to_dict(), {**_hit(10).to_dict(), "extra": {"outside_range": True}}, _hit(2).to_dict()]
    span = {"phrase": "this morning", "label": "2026-03-04 06:00 → 2026-03-04 12:00 (Europe/Paris)"}
    text = render_hits({"query": "bread this morning", "time": span, "hits": mixed})
    assert "2 matches in 'this morning'; strong matches from other times rank among them" in text
    assert text.count("(outside the range)") == 2  # the header's mention and the one hit
    assert "m10\n" not in text and "(outside the range)\n  chatgpt:c" in text
    behind = render_hits({"query": "bread this morning", "time": span, "hits": [mixed[0], mixed[2], mixed[1]]})
    assert "── 2 matches in 'this morning'; matches from other times follow ──" in behind
    assert "(outside the range)" not in behind
