"""recall's output is bounded, status records iterate's real stop reason, flags show no ``<bool>``
value in help, and eval and drift name an unknown agent (found by the fourth fresh-user test)."""

from __future__ import annotations

import importlib
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
import typer.main
from fake_llm import FakeLLM
from test_cli_refuses_and_warns import error_of, fill, iterate_failing, run

from tapestryd.cli.app import app
from tapestryd.cli.main import COMMAND_MODULES
from tapestryd.config import load_settings
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime

for _module in COMMAND_MODULES:  # each registers its commands on ``app``
    importlib.import_module(_module)


@pytest.mark.parametrize("command", [["drift", "--agent", "chatgtp"],
                                     ["eval", "--agent", "chatgtp", "--yield-sample", "0"]])
def test_eval_and_drift_name_an_unknown_agent(home: Path, command: list[str]) -> None:
    fill(home)
    assert error_of(run(*command)) == ("no agent named 'chatgtp'; "
                                       "known: chatgpt, claude-ai, claude-code, codex, gemini-cli, opencode")
    assert run(*command[:1], "--agent", "chatgpt", *command[3:]).exit_code == 0


def test_status_records_the_stop_reason_iterate_printed(home: Path, failing: FakeLLM,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Each slice ends on its time limit; the slice that gives up is recorded as stopped: errors."""
    result = iterate_failing(home, failing, monkeypatch)
    assert "stopped: errors" in result.stdout
    assert "error: gave up after 3 failed attempts in a row" in result.stderr
    status = run("status")
    assert status.exit_code == 0, status.output
    line = next(line for line in status.stdout.splitlines() if "iterate" in line and "remaining" in line)
    assert line.endswith("stopped: errors"), line


def test_help_shows_no_value_for_flags() -> None:
    """A flag (``context --now``) shows no ``<bool>`` in any command's help; valued options keep theirs."""
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for name in commands:
        assert "<bool>" not in run(name, "--help").stdout, name
    lines = run("context", "--help").stdout.splitlines()
    now = next(line for line in lines if "--now" in line)
    assert now.split("--now")[1].strip(" │").startswith("Only the short")
    assert "<int range>" in next(line for line in lines if "--max-tokens" in line)


def backlog(home: Path) -> None:
    """Four chatgpt conversations a day on 12–14 June 2025, none summarized (a backlog)."""
    events = []
    for day in (12, 13, 14):
        for n in range(4):
            when = datetime(2025, 6, day, 9 + n, tzinfo=timezone.utc)
            conversation, key = f"chatgpt:d{day}n{n}", f"m{day}-{n}"
            body = MessageRecorded(conversation, key, "user", f"Question {n} of day {day}", format_utc(when))
            events.append(NewEvent(event_id("t4", conversation, key), body, when, agent="chatgpt", source=f"t4#{key}"))
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append(events)
        runtime.projector.catch_up()


def test_recall_of_a_backlog_answers_its_periods_not_every_segment(home: Path) -> None:
    """A past month with nothing summarized is one node, not its 12 conversation-day segments."""
    backlog(home)
    result = run("recall", "2025-06", "-f", "json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert [n["key"] for n in answer["nodes"]] == ["L3:chatgpt:2025-06"] and answer["more"] == 0
    days = json.loads(run("recall", "2025-06-12..2025-06-14", "-f", "json").stdout)
    assert [n["key"] for n in days["nodes"]] == ["L1:chatgpt:2025-06-12", "L1:chatgpt:2025-06-13",
                                                 "L1:chatgpt:2025-06-14"]


def test_recall_shows_at_most_limit_nodes_and_counts_the_rest(home: Path) -> None:
    backlog(home)
    result = run("recall", "2025-06-12..2025-06-14", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n# L1:chatgpt:") == 2 and "L1:chatgpt:2025-06-14" not in result.stdout
    assert result.stdout.rstrip().splitlines()[-1] == (
        "… and 1 more node (showing the first 2): narrow the range, or "
        "tapestryctl recall 2025-06-12..2025-06-14 --limit 3")
    narrowed = run("recall", "2025-06-12..2025-06-14", "--limit", "2", "--agent", "chatgpt")
    assert narrowed.stdout.rstrip().endswith("--limit 3 --agent chatgpt")  # the hint keeps the agent
    assert error_of(run("recall", "2025-06-12..", "--agent", "nobody")).startswith("no agent named 'nobody'")
    listing = run("recall", "2025-06-12", "--agent", "claude-code", "--limit", "1")
    assert listing.exit_code == 0 and "more" not in listing.stdout
