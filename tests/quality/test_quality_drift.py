"""Drift between successive NodeSummarized versions of a node, with severity labels."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tapestryd.events.store import EventStore
from tapestryd.events.types import NewEvent, NodeSummarized, event_id
from tapestryd.projections.hierarchy_forget import TOMBSTONE
from tapestryd.quality.drift import Version, measure_drift, read_versions, severity_of
from tapestryd.quality.similarity import TfidfSimilarity


def version(seq: int, text: str, node: str = "L1:chatgpt:2026-03-04", provider: str = "extractive") -> Version:
    return Version(node, 1, seq, f"2026-03-05T0{seq}:00:00.000000Z", "chatgpt", text, provider, "")


@pytest.mark.parametrize(("drift", "label"), [(0.0, "stable"), (0.0999, "stable"), (0.10, "minor"),
                                              (0.30, "moderate"), (0.5999, "moderate"), (0.60, "severe"),
                                              (1.0, "severe")])
def test_severity_labels_follow_the_documented_bands(drift: float, label: str) -> None:
    """Lower bounds are inclusive: 0.10 minor, 0.30 moderate, 0.60 severe."""
    assert severity_of(drift) == label


def test_an_identical_rebuild_has_no_drift_and_a_changed_one_has_the_hand_computed_drift() -> None:
    """Fitted on the three versions: idf(apple) = 1, idf(banana) = ln(4/3) + 1, idf(cherry) = ln 2 + 1,
    so the second step's cosine is 1 / (sqrt(1 + b^2) * sqrt(1 + c^2)) = 0.3119 and its drift 0.688."""
    b, c = math.log(4 / 3) + 1, math.log(2) + 1
    expected = 1 / (math.sqrt(1 + b * b) * math.sqrt(1 + c * c))
    [node] = measure_drift([version(1, "apple banana"), version(2, "apple banana"), version(3, "apple cherry")],
                           TfidfSimilarity())
    first, second = node.steps
    assert (first.drift, first.severity) == (0.0, "stable")
    assert second.similarity == pytest.approx(expected)
    assert second.drift == pytest.approx(1 - expected)
    assert (second.severity, node.worst, node.versions) == ("severe", second, 3)


def test_a_node_summarized_once_has_nothing_to_compare() -> None:
    """Drift needs two versions; single-version nodes are not listed."""
    nodes = measure_drift([version(1, "apple banana"), version(2, "kiwi", node="L1:chatgpt:2026-03-05")],
                          TfidfSimilarity())
    assert nodes == []


def test_versions_are_compared_in_log_order_and_a_provider_change_is_marked() -> None:
    """Steps follow seq order whatever order versions arrive in; a new provider is flagged on its step."""
    [node] = measure_drift([version(5, "pear plum", provider="openai"), version(2, "pear plum")], TfidfSimilarity())
    assert [(s.from_seq, s.to_seq, s.provider_changed) for s in node.steps] == [(2, 5, True)]
    assert node.to_dict()["steps"][0]["drift"] == 0.0


def summarized(node: str, level: int, text: str, n: int) -> NewEvent:
    event = NodeSummarized(node=node, level=level, fingerprint=f"f{n}", provider="extractive", model="",
                           prompt_version="1", title="t", text=text)
    return NewEvent(event_id("test", node, str(n)), event, datetime(2026, 3, 5, n, tzinfo=timezone.utc),
                    agent=node.split(":")[1])


def test_versions_are_read_from_the_log_by_agent_and_level(tmp_path: Path) -> None:
    """Every stored version is kept, so the log alone answers what a node said before."""
    db = tmp_path / "events.db"
    with EventStore(db) as store:
        store.append([summarized("L1:chatgpt:2026-03-04", 1, "one", 1),
                      summarized("L1:chatgpt:2026-03-04", 1, "two", 2),
                      summarized("L2:chatgpt:2026-03-02w", 2, "week", 3),
                      summarized("L1:claude-code:2026-03-04", 1, "other", 4)])
    found = read_versions(db, agent="chatgpt", level=1)
    assert [(v.node, v.text, v.agent) for v in found] == [("L1:chatgpt:2026-03-04", "one", "chatgpt"),
                                                          ("L1:chatgpt:2026-03-04", "two", "chatgpt")]
    assert len(read_versions(db)) == 4


def test_versions_scrubbed_by_compact_are_not_compared(tmp_path: Path) -> None:
    """A summary compact replaced by its tombstone (or emptied, as older compacts did) is no version to drift from."""
    db = tmp_path / "events.db"
    node = "L1:chatgpt:2026-03-04"
    with EventStore(db) as store:
        store.append([summarized(node, 1, TOMBSTONE + ":7:0", 1), summarized(node, 1, "", 2),
                      summarized(node, 1, "the kept summary", 3)])
    assert [v.text for v in read_versions(db)] == ["the kept summary"]
