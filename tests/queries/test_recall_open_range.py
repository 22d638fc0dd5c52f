"""recall of an open-ended range ("2026-03-02..") and of a rolling window ("last 3 days")."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime

import pytest
from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.queries.reader import Reader
from tapestryd.queries.recall import recall


@pytest.fixture
def reader(history: History) -> Reader:
    history.message("chatgpt:c0", datetime(2026, 2, 20, 10, tzinfo=PARIS), "Rye loaf", agent="chatgpt")
    history.message("chatgpt:c1", datetime(2026, 3, 2, 10, tzinfo=PARIS), "Braided bread recipe", agent="chatgpt")
    history.message("chatgpt:c2", datetime(2026, 3, 4, 9, tzinfo=PARIS), "Sourdough starter", agent="chatgpt")
    history.commit()
    history.summary("L1:chatgpt:2026-03-02", "Bread", "Asked for a braided bread recipe.")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def test_an_open_end_runs_up_to_today(reader: Reader) -> None:
    """NOW is 2026-03-04: '2026-03-02..' covers 2, 3 and 4 March."""
    result = recall(reader, "2026-03-02..", now=NOW)
    assert result["periods"] == ["L1:2026-03-02", "L1:2026-03-03", "L1:2026-03-04"]
    assert result["range"]["until"] is None and result["range"]["label"].endswith("→ now (Europe/Paris)")
    assert [n["key"] for n in result["nodes"]] == ["L1:chatgpt:2026-03-02", "L0:chatgpt:2026-03-04:chatgpt:c2"]


def test_an_open_start_begins_at_the_first_recorded_day(reader: Reader) -> None:
    result = recall(reader, "..2026-02", now=NOW)
    assert result["periods"][0] == "L1:2026-02-20" and result["range"]["since"] is None


def test_last_n_days_is_a_window_ending_today(reader: Reader) -> None:
    result = recall(reader, "last 2 days", now=NOW)
    assert result["periods"] == ["L1:2026-03-02", "L1:2026-03-03", "L1:2026-03-04"]


def test_the_cli_recalls_an_open_ended_range(reader: Reader) -> None:
    home = reader.settings.home
    assert home is not None
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "recall", "2026-03-02.."], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("recall '2026-03-02..': 2026-03-02 00:00 → now (Europe/Paris)")


def test_two_phrases_are_read_as_the_later_with_the_reading_echoed(reader: Reader) -> None:
    """An agent passes a user's words on as said: 'last week yesterday' is not an error but the later of the
    two (yesterday, 3 March), as search reads it, and the range's label says so."""
    result = recall(reader, "last week yesterday", now=NOW)
    assert result["periods"] == ["L1:2026-03-03"]
    assert "'last week' and 'yesterday' do not overlap: read as 'yesterday'" in result["range"]["label"]
