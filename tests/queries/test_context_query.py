"""Telescoping context over a real projected history in Europe/Paris, at a fixed instant."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from cli_runner import tapestryctl
from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.contextdoc import ContextRequest, context_answer
from tapestryd.queries.nowblock import NOW_MAX_TOKENS
from tapestryd.queries.reader import Reader
from tapestryd.queries.tokens import estimate_tokens


def at(y: int, m: int, d: int, h: int = 10) -> datetime:
    return datetime(y, m, d, h, 0, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    """Two years of history for two agents, summarized up to yesterday (one day left unsummarized)."""
    h = history
    h.message("claude-code:s0", at(2024, 6, 10), "Started the rope library", cwd="/p/rope", session="s0")
    h.message("claude-code:s1", at(2025, 11, 3), "Set up the sqlite event store", cwd="/p/tapestry", session="s1")
    h.message("chatgpt:c1", at(2026, 1, 15), "Plan a trip to Lisbon", agent="chatgpt")
    h.message("claude-code:s2", at(2026, 2, 10), "Fix the flaky watchdog test", cwd="/p/tapestry", session="s2")
    h.message("claude-code:s3", at(2026, 3, 1), "Sunday: sketch the calendar page", cwd="/p/tapestry", session="s3")
    h.message("chatgpt:c2", at(2026, 3, 2), "Recipe for braided bread", agent="chatgpt")
    h.message("claude-code:s4", at(2026, 3, 3), "Refactor the budget module", cwd="/p/other", session="s4")
    h.message("claude-code:s5", at(2026, 3, 4, 9), "Write the context query", cwd="/p/tapestry", session="s5")
    h.message("claude-code:s5", at(2026, 3, 4, 10), "Here is a plan for it.", role="assistant", cwd="/p/tapestry",
              session="s5")
    h.commit()
    for key, title in [("L4:claude-code:2024", "Rope year"), ("L4:claude-code:2025", "Event store year"),
                       ("L3:chatgpt:2026-01", "Lisbon trip"), ("L3:claude-code:2026-02", "Watchdog month"),
                       ("L2:claude-code:2026-03-01w", "Calendar sketch"), ("L1:chatgpt:2026-03-02", "Bread day"),
                       ("L0:claude-code:2026-03-03:claude-code:s4", "Budget refactor")]:
        h.summary(key, title, f"{title}: the summary. It has a second sentence that the budget can cut away.")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def labels(answer: dict) -> list[tuple[str, str, str]]:
    return [(i["level"], i["period"], i["title"]) for i in answer["items"] if i["level"] != "raw"]


def test_the_document_a_model_reads_carries_no_budget_accounting(reader: Reader) -> None:
    """The hook and the MCP server pass ``rendered`` to a model: the "N of M tokens" line is the
    person's, kept apart in ``budget_note``; the document still ends with a newline."""
    for fmt in ("markdown", "text"):
        answer = context_answer(reader, ContextRequest(max_tokens=200, fmt=fmt), now=NOW)
        assert "tokens;" not in answer["rendered"] and answer["rendered"].endswith("\n")
        assert answer["budget_note"] == f"{answer['tokens']['used']} of 200 tokens; " + (
            f"{sum(c['action'] == 'shortened' for c in answer['tokens']['cut'])} shortened, "
            f"{sum(c['action'] == 'dropped' for c in answer['tokens']['cut'])} dropped")
    assert context_answer(reader, ContextRequest(), now=NOW)["budget_note"] == ""


def test_each_earlier_period_appears_once_at_its_level_and_today_raw(reader: Reader) -> None:
    """Years before this one as L4, this year's months as L3, this month's weeks as L2, this
    week's days as L1 (a day without its daily falls back to its segment), today as messages."""
    answer = context_answer(reader, ContextRequest(), now=NOW)
    assert labels(answer) == [("L4", "2024", "Rope year"), ("L4", "2025", "Event store year"),
                              ("L3", "2026-01", "Lisbon trip"), ("L3", "2026-02", "Watchdog month"),
                              ("L2", "2026-03-01w", "Calendar sketch"), ("L1", "2026-03-02", "Bread day"),
                              ("L0", "2026-03-03", "Budget refactor")]
    assert "text" not in answer["items"][0]
    items = context_answer(reader, ContextRequest(fmt="json"), now=NOW)["items"]
    raw = [(i["period"], i["role"], i["text"]) for i in items if i["level"] == "raw"]
    assert raw == [("09:00", "user", "Write the context query"), ("10:00", "assistant", "Here is a plan for it.")]
    text = answer["rendered"]
    assert text.index("[L4 2024 · claude-code] Rope year") < text.index("[L1 2026-03-02 · chatgpt] Bread day")
    assert "[today 2026-03-04: the 2 most recent messages]" in text and "[now]" in text


def test_without_a_budget_nothing_is_cut_and_tokens_are_counted(reader: Reader) -> None:
    """Complete answer: every item in full, no cut, and the count bounds the text's estimate."""
    answer = context_answer(reader, ContextRequest(), now=NOW)
    assert answer["tokens"]["cut"] == [] and answer["tokens"]["max"] is None
    assert all(i["state"] == "full" for i in answer["items"])
    assert estimate_tokens(answer["rendered"]) <= answer["tokens"]["used"] <= estimate_tokens(answer["rendered"]) + 20


@pytest.mark.parametrize("budget", [150, 200, 260, 320])
def test_a_budget_cuts_the_oldest_highest_levels_first_and_reports_it(reader: Reader, budget: int) -> None:
    """Under a budget the text fits, the report adds up, and nothing newer is cut before something older."""
    answer = context_answer(reader, ContextRequest(max_tokens=budget, fmt="markdown"), now=NOW)
    used, cut = answer["tokens"]["used"], answer["tokens"]["cut"]
    assert estimate_tokens(answer["rendered"]) <= used <= budget
    assert answer["budget_note"].startswith(f"{used} of {budget} tokens")
    order = ["L4", "L3", "L2", "L1", "L0", "raw"]
    dropped = [(order.index(c["level"]), c["period"]) for c in cut if c["action"] == "dropped" and c["level"] != "raw"]
    kept = [(order.index(i["level"]), i["period"]) for i in answer["items"] if i["level"] != "raw"]
    assert all(d < k for d in dropped for k in kept)
    if any(c["level"] == "raw" and c["action"] == "dropped" for c in cut):
        assert kept == []
    assert answer["now"] in answer["rendered"]


def test_shortening_keeps_the_first_sentence(reader: Reader) -> None:
    """A shortened summary keeps its label and first sentence."""
    full = context_answer(reader, ContextRequest(fmt="json"), now=NOW)["tokens"]["used"]
    answer = context_answer(reader, ContextRequest(max_tokens=full - 10, fmt="json"), now=NOW)
    first = answer["items"][0]
    assert first["state"] == "shortened" and first["text"] == "Rope year: the summary."
    cut = answer["tokens"]["cut"]
    assert cut[0]["key"] == "L4:claude-code:2024" and {c["action"] for c in cut} == {"shortened"}


def test_a_budget_smaller_than_the_header_is_a_clear_error(reader: Reader) -> None:
    """The fixed part (header, short block) cannot be cut: a tiny budget says how much it needs."""
    with pytest.raises(TapestryError, match="too small"):
        context_answer(reader, ContextRequest(max_tokens=20), now=NOW)


def test_project_narrows_to_sessions_under_the_path(reader: Reader) -> None:
    """Only periods the project's sessions touched, its segments, and its messages of today."""
    answer = context_answer(reader, ContextRequest(project="/p/tapestry", fmt="json"), now=NOW)
    assert labels(answer) == [("L4", "2025", "Event store year"), ("L3", "2026-02", "Watchdog month"),
                              ("L2", "2026-03-01w", "Calendar sketch")]
    assert answer["project"] == "/p/tapestry"
    assert "project /p/tapestry" in context_answer(reader, ContextRequest(project="/p/tapestry"), now=NOW)["rendered"]
    assert {i["text"] for i in answer["items"] if i["level"] == "raw"} == {"Write the context query",
                                                                           "Here is a plan for it."}


def test_a_project_with_nothing_recorded_falls_back_to_everything(reader: Reader) -> None:
    """An unknown path is said, not silently empty."""
    answer = context_answer(reader, ContextRequest(project="/p/nowhere"), now=NOW)
    assert answer["project"] == "" and "nothing recorded under /p/nowhere" in answer["notes"][0]
    assert len(labels(answer)) == 7


def test_agent_and_date_move_the_telescope(reader: Reader) -> None:
    """--agent keeps one agent; --date anchors the levels on another day."""
    answer = context_answer(reader, ContextRequest(agent="chatgpt"), now=NOW)
    assert labels(answer) == [("L3", "2026-01", "Lisbon trip"), ("L1", "2026-03-02", "Bread day")]
    past = context_answer(reader, ContextRequest(anchor=date(2026, 2, 10), fmt="json"), now=NOW)
    assert labels(past) == [("L4", "2024", "Rope year"), ("L4", "2025", "Event store year"),
                            ("L3", "2026-01", "Lisbon trip")]
    assert [i["text"] for i in past["items"] if i["level"] == "raw"] == ["Fix the flaky watchdog test"]


def test_the_now_block_names_today_yesterday_and_the_conversation_in_progress(reader: Reader) -> None:
    """Short enough for every prompt, and it says what is going on."""
    answer = context_answer(reader, ContextRequest(now_only=True), now=NOW)
    block = answer["now"]
    assert estimate_tokens(block) <= NOW_MAX_TOKENS
    assert "Today: Write the context query (claude-code, 2 messages)" in block
    assert "Yesterday: Refactor the budget module (claude-code, 1 message)" in block
    assert 'In progress: Write the context query' in block and 'last asked: "Write the context query"' in block
    assert answer["items"] == [] and answer["rendered"] == block + "\n"
    assert block.startswith("Where we are now: Wed 04 Mar 2026, 15:30 (Europe/Paris)")


def test_the_now_block_is_dated_by_the_anchor_day(reader: Reader) -> None:
    """context --date 2026-02-10: the block says Tue 10 Feb 2026 (no hour), as its Today line describes."""
    block = context_answer(reader, ContextRequest(anchor=date(2026, 2, 10), now_only=True), now=NOW)["now"]
    assert block.startswith("Where we are now: Tue 10 Feb 2026 (Europe/Paris)")
    assert "Today: Fix the flaky watchdog test (claude-code, 1 message)" in block and "04 Mar" not in block


def test_the_now_block_stays_short_with_huge_messages(history: History) -> None:
    """Long titles and prompts are shortened so the block stays under 300 tokens."""
    for n in range(8):
        history.message(f"claude-code:big{n}", at(2026, 3, 4, 9 + n), "word " * 2000, session=f"big{n}")
    history.commit()
    with Reader.open(load_settings(history.settings.home)) as reader:
        block = context_answer(reader, ContextRequest(now_only=True), now=NOW)["now"]
    assert estimate_tokens(block) <= NOW_MAX_TOKENS


def test_json_format_carries_items_without_a_rendering(reader: Reader) -> None:
    """-f json: the items and the report; nothing rendered."""
    answer = context_answer(reader, ContextRequest(fmt="json"), now=NOW)
    assert answer["rendered"] == "" and answer["items"][0]["key"] == "L4:claude-code:2024"
    with pytest.raises(TapestryError, match="unknown context format"):
        context_answer(reader, ContextRequest(fmt="yaml"), now=NOW)


def test_the_cli_prints_the_context_and_its_json(reader: Reader) -> None:
    """tapestryctl context without a daemon answers read-only, in markdown or JSON."""
    import json
    import subprocess

    home = reader.settings.home
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}

    def ctl(*args: str) -> subprocess.CompletedProcess[str]:
        return tapestryctl("context", *args, env=env)

    markdown = ctl("--date", "2026-03-04", "--max-tokens", "300", "-f", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("# Memory context for Wed 04 Mar 2026 (Europe/Paris)")
    assert "## Where we are now" in markdown.stdout and "of 300 tokens" in markdown.stderr
    assert markdown.stdout.endswith("\n") and "tokens;" not in markdown.stdout
    answer = json.loads(ctl("--date", "2026-03-04", "--project", "/p/tapestry", "-f", "json").stdout)
    assert answer["project"] == "/p/tapestry" and answer["items"][0]["key"] == "L4:claude-code:2025"
    bad = ctl("--max-tokens", "5")
    assert bad.returncode == 1 and "too small" in bad.stderr and "Traceback" not in bad.stderr
