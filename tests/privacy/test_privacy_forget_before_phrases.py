"""forget --before takes what a user types (tester report 4 item 15): a date, a month, a year, an
ISO time, or a phrase ("yesterday", "last 3 months": everything before the start of what it
names); the resolved instant is said first; an impossible day is named as search names it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_runner import tapestryctl
from privacy_helpers import at, message, record, texts

from tapestryd.errors import TapestryError
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json

NOW = "2025-03-15T12:00:00Z"


def forget(rt: Runtime, before: str, **args: object) -> dict[str, object]:
    return run_json("forget", rt, {"before": before, "now": NOW, **args})


def _history(rt: Runtime) -> None:
    record(rt,
           message("claude-code:a", "1", "old winter note", at("2024-12-20")),
           message("claude-code:a", "2", "january note", at("2025-01-10")),
           message("claude-code:b", "1", "february note", at("2025-02-20")),
           message("chatgpt:c", "1", "yesterday's note", at("2025-03-14"), agent="chatgpt"),
           message("chatgpt:c", "2", "today's note", at("2025-03-15", 9), agent="chatgpt"))


@pytest.mark.parametrize(("before", "instant", "left"), [
    ("2025", "2025-01-01T00:00:00Z", 4),
    ("2025-02", "2025-02-01T00:00:00Z", 3),
    ("2025-02-20", "2025-02-20T00:00:00Z", 3),
    ("2025-02-20T13:00:00", "2025-02-20T13:00:00Z", 2),
    ("yesterday", "2025-03-14T00:00:00Z", 2),
    ("last 2 months", "2025-01-15T00:00:00Z", 3),
    ("March 2025", "2025-03-01T00:00:00Z", 2),
])
def test_before_takes_dates_periods_and_phrases(runtime: Runtime, before: str, instant: str, left: int) -> None:
    _history(runtime)
    dry = forget(runtime, before, dry_run=True)
    assert dry["rule"]["before"] == instant.replace("Z", ".000000Z") and len(texts(runtime)) == 5  # type: ignore[index]
    assert dry["before_read"] == f"reading --before {before!r} as everything before {instant[:10]} " \
                                 f"{instant[11:16]} (UTC), {instant}"
    done = forget(runtime, before)
    assert done["rule"]["before"] == instant.replace("Z", ".000000Z") and len(texts(runtime)) == left  # type: ignore[index]


def test_an_impossible_day_is_named_as_search_names_it(runtime: Runtime) -> None:
    _history(runtime)
    with pytest.raises(TapestryError, match=r"^--before: '2025-02-30' is not a valid date: February 2025 has 28 days$"):
        forget(runtime, "2025-02-30")
    with pytest.raises(TapestryError, match=r"^--before '\.\.2024' names no start"):
        forget(runtime, "..2024")
    with pytest.raises(TapestryError, match=r"^--before: cannot read 'sometime soon'"):
        forget(runtime, "sometime soon")
    assert not list(runtime.store.read(types=["Forgotten"])) and len(texts(runtime)) == 5


def test_the_cli_prints_the_resolved_instant_first(home: Path, runtime: Runtime) -> None:
    _history(runtime)
    runtime.close()
    done = tapestryctl("forget", "--before", "2025-02", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "reading --before '2025-02' as everything before 2025-02-01 00:00 (UTC), 2025-02-01T00:00:00Z",
        "would forget 2 messages in 1 conversation"]
    help_text = tapestryctl("forget", "--help", env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"}).stdout
    assert "6 or more" in help_text and "last 3 months" in help_text
