"""generate-* with a day outside the supported range names the range, not "not a date"."""

from __future__ import annotations

import sqlite3

import pytest
from query_helpers import NOW, History
from typer.testing import CliRunner

import tapestryd.cli.hierarchy  # noqa: F401  (registers the commands)
from tapestryd.cli.app import app
from tapestryd.errors import TapestryError
from tapestryd.queries.tree import resolve_nodes


@pytest.mark.parametrize("when", ["1969-12-31", "3000-01", "1969"])
def test_a_period_outside_the_supported_dates_names_them(when: str) -> None:
    with pytest.raises(TapestryError, match="outside the supported dates 1970-01-01 to 2999-12-31"):
        resolve_nodes(sqlite3.connect(":memory:"), 2, when, first_day_of_week=0)


def test_text_that_is_no_period_still_says_what_is_expected() -> None:
    with pytest.raises(TapestryError, match="not a date, month or year: 'soon'"):
        resolve_nodes(sqlite3.connect(":memory:"), 2, "soon", first_day_of_week=0)


def test_generate_weekly_before_1970_prints_the_supported_range(history: History) -> None:
    history.message("chatgpt:c1", NOW, "Braided bread recipe", agent="chatgpt")
    history.commit()
    result = CliRunner().invoke(app, ["generate-weekly", "1969-12-31"])
    assert result.exit_code != 0
    assert "'1969-12-31' is outside the supported dates 1970-01-01 to 2999-12-31" in result.output + str(
        result.exception)
