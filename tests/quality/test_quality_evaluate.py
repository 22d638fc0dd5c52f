"""Per-level evaluation over a small hand-built tree whose figures can be worked out by hand.

The tree (agent x)::

    L2 week   "Carol adopted a grey kitten named Miso."
    ├── L1 2026-03-02  "Alice moved to Paris in 2019."
    │   └── L0 c1: "Alice moved to Paris in 2019." (29) + "Then Bob bought a red bicycle." (30)
    │              summary "Alice moved to Paris in 2019."
    └── L1 2026-03-03  (not summarized yet)
        └── L0 c2: "Carol adopted a grey kitten named Miso." (39), summary the same sentence
"""

from __future__ import annotations

from datetime import date

import pytest

from tapestryd.quality.evaluate import evaluate_levels, home_facts
from tapestryd.quality.facts import Fact
from tapestryd.quality.similarity import TfidfSimilarity
from tapestryd.quality.tree import EvalNode, Tree

ALICE = "Alice moved to Paris in 2019."
BOB = "Then Bob bought a red bicycle."
CAROL = "Carol adopted a grey kitten named Miso."
WEEK, DAY1, DAY2 = "L2:x:2026-03-02w", "L1:x:2026-03-02", "L1:x:2026-03-03"
SEG1, SEG2 = "L0:x:2026-03-02:claude-ai:c1", "L0:x:2026-03-03:claude-ai:c2"


@pytest.fixture
def tree() -> Tree:
    nodes = [
        EvalNode(WEEK, 2, "x", "", "2026-03-02", "2026-03-08", summary=CAROL),
        EvalNode(DAY1, 1, "x", WEEK, "2026-03-02", "2026-03-02", summary=ALICE),
        EvalNode(DAY2, 1, "x", WEEK, "2026-03-03", "2026-03-03"),
        EvalNode(SEG1, 0, "x", DAY1, "2026-03-02", "2026-03-02", "claude-ai:c1", summary=ALICE),
        EvalNode(SEG2, 0, "x", DAY2, "2026-03-03", "2026-03-03", "claude-ai:c2", summary=CAROL),
    ]
    return Tree({n.key: n for n in nodes}, {SEG1: [ALICE, BOB], SEG2: [CAROL]})


def figures(tree: Tree, facts: list[Fact] | None = None) -> dict[int, dict[str, object]]:
    homed, _ = home_facts(tree, facts)
    return {r.level: r.to_dict() for r in evaluate_levels(tree, homed, TfidfSimilarity(), levels=(0, 1, 2))}


def test_extracted_facts_live_in_the_segment_they_came_from(tree: Tree) -> None:
    """Each sentence with a name is a fact of its own L0."""
    homed, unmatched = home_facts(tree, None)
    assert [(h.text, h.homes) for h in homed] == [(ALICE, (SEG1,)), (BOB, (SEG1,)), (CAROL, (SEG2,))]
    assert unmatched == 0


def test_level_zero_pools_compression_and_counts_retained_facts(tree: Tree) -> None:
    """L0: (29 + 30 + 39) / (29 + 39) = 1.441 compression, 2 of 3 facts kept, score 0.961."""
    level0 = figures(tree)[0]
    assert (level0["source_chars"], level0["summary_chars"], level0["nodes"]) == (98, 68, 2)
    assert (level0["facts"], level0["retained"]) == (3, 2)
    assert level0["compression_chars"] == pytest.approx(98 / 68, abs=1e-4)
    assert level0["tapestry_score"] == pytest.approx(98 / 68 * 2 / 3, abs=1e-4)


def test_a_fact_whose_node_is_not_summarized_yet_is_counted_apart(tree: Tree) -> None:
    """L1: Carol's day has no summary, so her fact is waiting, not lost: 1 of 2 kept."""
    level1 = figures(tree)[1]
    assert (level1["nodes"], level1["unsummarized"], level1["facts_without_summary"]) == (1, 1, 1)
    assert (level1["facts"], level1["retained"], level1["retention"]) == (2, 1, 0.5)
    assert (level1["source_chars"], level1["summary_chars"]) == (59, 29)


def test_recall_decay_is_the_share_of_facts_kept_below_that_a_level_loses(tree: Tree) -> None:
    """Alice's fact, kept by her day, is gone from the week's summary: decay 1.0 at L2."""
    by_level = figures(tree)
    assert by_level[0]["recall_decay"] is None
    assert by_level[1]["recall_decay"] == 0.0
    assert by_level[2]["recall_decay"] == 1.0
    assert (by_level[2]["facts"], by_level[2]["retained"], by_level[2]["source_chars"]) == (3, 1, 98)


def test_chance_retention_checks_facts_against_a_different_nodes_summary(tree: Tree) -> None:
    """No fact matches the other segment's summary; a level with one summary has no reference."""
    by_level = figures(tree)
    assert by_level[0]["chance_retention"] == 0.0
    assert by_level[1]["chance_retention"] is None


def test_file_facts_find_their_segment_by_conversation_id_and_day(tree: Tree) -> None:
    """A conversation id without its agent prefix, a day-only fact, and a stray that matches nothing."""
    facts = [Fact(ALICE, "c1"), Fact(CAROL, "claude-ai:c2", date(2026, 3, 3)), Fact(BOB, "", date(2026, 3, 2)),
             Fact("Lost fact about Zed.", "c9")]
    homed, unmatched = home_facts(tree, facts)
    assert [h.homes for h in homed] == [(SEG1,), (SEG2,), (DAY1,)]
    assert unmatched == 1
    by_level = figures(tree, facts)
    assert (by_level[0]["facts"], by_level[0]["retained"]) == (2, 2)
    assert (by_level[1]["facts"], by_level[1]["retained"], by_level[1]["facts_without_summary"]) == (2, 1, 1)


def test_a_fact_for_the_wrong_day_of_its_conversation_has_no_home(tree: Tree) -> None:
    """The day narrows the conversation's segments; none on that day means unmatched."""
    homed, unmatched = home_facts(tree, [Fact(ALICE, "c1", date(2026, 3, 9))])
    assert (homed, unmatched) == ([], 1)


def test_facts_that_find_no_node_leave_every_level_with_none_counted(tree: Tree) -> None:
    """A facts file whose facts all match nothing (or an empty one) is reported, not a crash: 0 facts a level."""
    by_level = figures(tree, [Fact("Lost fact about Zed.", "c9")])
    assert [(by_level[lv]["facts"], by_level[lv]["retained"]) for lv in (0, 1, 2)] == [(0, 0)] * 3
    assert by_level[0]["chance_retention"] is None
