"""tapestryctl iterate, catchup, generate-*, tree and repair, run in process with the extractive provider."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hierarchy_helpers import append, history, write_config
from typer.testing import CliRunner

import tapestryd.cli.hierarchy  # noqa: F401  (registers the commands)
from tapestryd.cli.app import app
from tapestryd.config import load_settings
from tapestryd.events import EventStore
from tapestryd.operations.runtime import Runtime
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import status_view

COMMANDS = ("iterate", "catchup", "generate-l0", "generate-daily", "generate-weekly", "generate-monthly",
            "generate-yearly", "tree", "repair")


@pytest.fixture
def filled(home: Path) -> Path:
    """A home with four weeks of 2025 and the extractive provider."""
    with Runtime.open(write_config(home)) as runtime:
        append(runtime.store, history(date(2025, 11, 24), 28))
        runtime.projector.catch_up()
    return home


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def parsed(out: str) -> object:
    """The JSON document of a command's output (log lines, printed before it in process, skipped)."""
    start = min(i for i in (out.find("\n{"), out.find("\n[")) if i >= 0) + 1 if out[:1] not in "{[" else 0
    return json.loads(out[start:])


def test_every_hierarchy_command_has_help() -> None:
    """Each command explains itself."""
    for name in COMMANDS:
        assert "Usage" in run(name, "--help")


def test_iterate_summarizes_everything_closed_and_tree_shows_it(filled: Path) -> None:
    """iterate builds every closed node; tree prints years down to days with titles and states."""
    result = parsed(run("iterate", "-f", "json"))
    assert result["summarized"] > 40 and result["remaining"] == 0 and result["failed"] == {}
    text = run("tree", "--from", "2025-12-01", "--to", "2025-12-03")
    assert "chatgpt 2025" in text and "2025-12" in text and "2025-12-02" in text and "(not summarized)" not in text
    nodes = parsed(run("tree", "--segments", "-f", "json"))
    assert nodes[0]["level"] == 4 and nodes[0]["children"][0]["level"] == 3
    assert "0 nodes summarized" in run("iterate")
    with Reader.open(load_settings(filled)) as reader:
        view = status_view(reader)
    assert view["grade"] == "A" and set(view["checks"].values()) == {"ok"}


def test_iterate_stops_at_the_end_date(filled: Path) -> None:
    """Only periods ending by END_DATE are summarized; later ones stay dirty."""
    result = parsed(run("iterate", "2025-11-30", "-f", "json"))
    with EventStore(filled / "events.db", readonly=True) as store:
        nodes = {e.event.node for e in store.read(types=["NodeSummarized"])}  # type: ignore[attr-defined]
    assert result["summarized"] == len(nodes) > 0
    assert all(n.split(":")[2] <= "2025-11-30" for n in nodes if n.startswith(("L0", "L1")))
    assert "L3:chatgpt:2025-11" in nodes and "L3:chatgpt:2025-12" not in nodes


def test_generate_daily_builds_one_day_and_its_segments(filled: Path) -> None:
    """generate-daily summarizes that day's dirty segments first, then the day, nothing else."""
    out = run("generate-daily", "2025-12-03")
    assert "generated L1:chatgpt:2025-12-03" in out and "3 nodes summarized" in out
    assert "generated L3:chatgpt:2025-12" in run("generate-monthly", "2025-12")


def test_generate_reports_a_missing_period_clearly(filled: Path) -> None:
    """No node for that day: exit 1 with a sentence, not a traceback."""
    result = CliRunner().invoke(app, ["generate-weekly", "2024-01-01"])
    assert result.exit_code == 1 and "no L2 node" in str(result.exception)


def test_catchup_marks_its_nodes(filled: Path) -> None:
    """catchup builds without context and says so in every summary event."""
    assert parsed(run("catchup", "-f", "json"))["summarized"] > 0
    with EventStore(filled / "events.db", readonly=True) as store:
        modes = {e.event.mode for e in store.read(types=["NodeSummarized"])}  # type: ignore[attr-defined]
    assert modes == {"catchup"}


def test_repair_reports_a_grade(filled: Path) -> None:
    """repair runs the cascade now and prints the grade."""
    assert "grade A;" in run("repair")
