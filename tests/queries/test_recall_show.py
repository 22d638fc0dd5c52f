"""recall DATE|RANGE: the best available nodes with links down; show NODE."""

from __future__ import annotations

import json
import subprocess
from datetime import date, datetime
from pathlib import Path

import pytest
from cli_runner import tapestryctl
from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader
from tapestryd.queries.recall import cover, recall, show_node


def at(y: int, m: int, d: int, h: int = 10) -> datetime:
    return datetime(y, m, d, h, 0, tzinfo=PARIS)


def test_a_range_is_tiled_by_the_largest_periods_that_fit() -> None:
    """Whole months by L3, whole (split) weeks by L2, leftover days by L1."""
    assert [f"L{p.level}:{p.key}" for p in cover(date(2026, 3, 1), date(2026, 3, 15))] == [
        "L2:2026-03-01w", "L2:2026-03-02w", "L2:2026-03-09w"]
    assert [f"L{p.level}:{p.key}" for p in cover(date(2025, 12, 30), date(2026, 2, 3))] == [
        "L1:2025-12-30", "L1:2025-12-31", "L3:2026-01", "L2:2026-02-01w", "L1:2026-02-02", "L1:2026-02-03"]
    assert [f"L{p.level}:{p.key}" for p in cover(date(2025, 1, 1), date(2025, 12, 31))] == ["L4:2025"]


@pytest.fixture
def reader(history: History) -> Reader:
    h = history
    h.message("claude-code:s1", at(2026, 2, 3), "Design the event log", session="s1")
    h.message("claude-code:s2", at(2026, 2, 17), "Write the tailer", session="s2")
    h.message("chatgpt:c1", at(2026, 3, 2), "Braided bread recipe", agent="chatgpt")
    h.message("chatgpt:c2", at(2026, 3, 4, 9), "Sourdough starter", agent="chatgpt")
    h.commit()
    h.summary("L3:claude-code:2026-02", "February: log and tailer", "Designed the event log, then wrote the tailer.")
    h.summary("L1:chatgpt:2026-03-02", "Bread", "Asked for a braided bread recipe.")
    h.summary("L0:chatgpt:2026-03-02:chatgpt:c1", "Bread chat", "Braided bread, three strands.")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def test_a_month_is_answered_by_its_monthly_with_links_to_its_weeks(reader: Reader) -> None:
    """recall 2026-02 gives the L3 node and its L2 children as sources."""
    result = recall(reader, "2026-02", now=NOW)
    assert result["periods"] == ["L3:2026-02"]
    [node] = result["nodes"]
    assert node["key"] == "L3:claude-code:2026-02" and node["title"] == "February: log and tailer"
    assert [s["source"] for s in node["sources"]] == ["L2:claude-code:2026-02-02w", "L2:claude-code:2026-02-16w"]


def test_a_period_without_its_summary_falls_back_to_summarized_children(reader: Reader) -> None:
    """March has no monthly yet: the bread daily answers, and today's open segment is listed."""
    result = recall(reader, "March 2026", now=NOW)
    assert [n["key"] for n in result["nodes"]] == ["L1:chatgpt:2026-03-02", "L0:chatgpt:2026-03-04:chatgpt:c2"]
    daily = result["nodes"][0]
    assert daily["sources"][0]["source"] == "L0:chatgpt:2026-03-02:chatgpt:c1"
    assert daily["sources"][0]["title"] == "Bread chat"


def test_a_segment_links_down_to_its_messages(reader: Reader) -> None:
    """show of an L0 lists its messages with role, time and text."""
    node = show_node(reader, "L0:chatgpt:2026-03-02:chatgpt:c1")
    assert [(s["kind"], s["message_key"], s["text"]) for s in node["sources"]] == [
        ("message", "m3", "Braided bread recipe")]


def test_a_phrase_and_an_agent_narrow_recall(reader: Reader) -> None:
    """'yesterday' in Paris is 3 March: nothing summarized; its (empty) listing says so."""
    assert recall(reader, "last month", now=NOW, agent="chatgpt")["nodes"] == []
    result = recall(reader, "2026-03-02", now=NOW, agent="chatgpt")
    assert [n["key"] for n in result["nodes"]] == ["L1:chatgpt:2026-03-02"]


def test_a_range_with_no_nodes_lists_its_conversations(reader: Reader) -> None:
    """When the hierarchy has nothing for a range the conversations are listed instead."""
    result = recall(reader, "2026-03-04", now=NOW, agent="claude-code")
    assert result["nodes"] == [] and result["conversations"] == []
    listing = recall(reader, "2026-03-04", now=NOW, agent="nobody")
    assert listing["nodes"] == []


def test_unknown_node_and_unreadable_dates_are_clear_errors(reader: Reader) -> None:
    """Errors name what was asked."""
    with pytest.raises(TapestryError, match="no node 'L1:x:2026-01-01'"):
        show_node(reader, "L1:x:2026-01-01")
    with pytest.raises(TapestryError, match="cannot read 'banana'"):
        recall(reader, "banana", now=NOW)


def ctl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return tapestryctl(*args, env=env)


def test_the_cli_recalls_and_shows_nodes_and_conversations(reader: Reader) -> None:
    """recall prints the range and the nodes; show takes a node key or a conversation."""
    home = reader.settings.home
    assert home is not None
    out = ctl(home, "recall", "2026-02")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("recall '2026-02': 2026-02-01 00:00 → 2026-03-01 00:00 (Europe/Paris)")
    assert "# L3:claude-code:2026-02" in out.stdout and "L2:claude-code:2026-02-16w" in out.stdout
    shown = ctl(home, "show", "L1:chatgpt:2026-03-02")
    assert "title: Bread" in shown.stdout and "L0:chatgpt:2026-03-02:chatgpt:c1  Bread chat" in shown.stdout
    assert json.loads(ctl(home, "show", "L1:chatgpt:2026-03-02", "-f", "json").stdout)["summary"].startswith("Asked")
    assert "Braided bread recipe" in ctl(home, "show", "chatgpt:c1").stdout
    missing = ctl(home, "show", "L2:claude-code:2020-01-06w")
    assert missing.returncode == 1 and "no node" in missing.stderr and "Traceback" not in missing.stderr


def test_a_reversed_range_is_a_clear_error_not_an_empty_answer(reader: Reader) -> None:
    """recall 2026-03-04..2026-02-01 names both ends instead of answering 'no summaries'."""
    with pytest.raises(TapestryError, match=r"'2026-03-04\.\.2026-02-01' ends \(2026-02-01\) before it starts"):
        recall(reader, "2026-03-04..2026-02-01", now=NOW)
