"""Dates typed on the command line: the supported range, and a bare --until day taken whole, locally."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest
from cli_runner import tapestryctl

from tapestryd.config import load_settings
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime

EVENING_UTC = datetime(2024, 12, 5, 18, 6, tzinfo=timezone.utc)  # 2024-12-06 08:06 in Kiritimati
MORNING_UTC = datetime(2024, 12, 5, 5, 0, tzinfo=timezone.utc)   # 2024-12-05 19:00 in Kiritimati


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl (the full CLI, no daemon) in this process (tests/cli_runner.py) against ``home``."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), "TAPESTRY_FAST": "0"}
    return tapestryctl(*args, env=env)


def home_in(tmp_path: Path, zone: str) -> Path:
    """A home in ``zone`` holding two 'gmail' messages, 13 hours apart on 2024-12-05 UTC."""
    home = tmp_path / zone.replace("/", "_")
    home.mkdir()
    (home / "tapestry.toml").write_text(f'[general]\ntimezone = "{zone}"\n')
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append([
            NewEvent(event_id("d", str(n)), MessageRecorded(f"chatgpt:c{n}", "m1", "user", f"gmail filter {n}",
                                                            format_utc(ts)), ts, "chatgpt", f"f#{n}")
            for n, ts in ((1, MORNING_UTC), (2, EVENING_UTC))])
        runtime.projector.catch_up()
    return home


def conversations_found(home: Path, *args: str) -> set[str]:
    done = ctl("search", "gmail", *args, "-f", "jsonl", home=home)
    assert done.returncode == 0, done.stderr
    return {json.loads(line)["conversation"] for line in done.stdout.splitlines() if line.strip()}


@pytest.mark.parametrize("args", [["recall", "9999"], ["search", "x", "in", "9999"],
                                  ["search", "x", "--until", "0001-01-01"],
                                  ["search", "x", "--until", "0001-01-01T00:00"],
                                  ["context", "--date", "9999-12-31"],
                                  ["context", "--date", "0001-01-01"], ["forget", "--before", "9999-01-01"],
                                  ["iterate", "9999-12-31"], ["catchup", "0001-01-01"]])
def test_extreme_dates_are_one_line_naming_the_supported_range(tmp_path: Path, args: list[str]) -> None:
    """The tester's commands: exit 1, the value and 1970-01-01 to 2999-12-31 named, no traceback."""
    home = home_in(tmp_path, "UTC")
    done = ctl(*args, home=home)
    assert done.returncode == 1 and "Traceback" not in done.stderr and "OverflowError" not in done.stderr
    assert "is outside the supported dates 1970-01-01 to 2999-12-31" in done.stderr
    assert f"'{args[-1]}'" in done.stderr or "'in 9999'" in done.stderr, done.stderr


def test_until_a_bare_day_includes_the_whole_day(tmp_path: Path) -> None:
    """--until 2024-12-05 keeps 18:06Z that day; --since and --until the same day mean that day."""
    home = home_in(tmp_path, "UTC")
    assert conversations_found(home, "--until", "2024-12-05") == {"chatgpt:c1", "chatgpt:c2"}
    assert conversations_found(home, "--since", "2024-12-05", "--until", "2024-12-05") == {"chatgpt:c1", "chatgpt:c2"}
    assert conversations_found(home, "--until", "2024-12-04") == set()
    assert conversations_found(home, "--until", "2024-12-05T12:00:00Z") == {"chatgpt:c1"}


def test_a_bare_day_is_the_local_day_of_the_configured_zone(tmp_path: Path) -> None:
    """In Kiritimati (UTC+14) 18:06Z on the 5th is 08:06 on the 6th: outside --until 2024-12-05."""
    home = home_in(tmp_path, "Pacific/Kiritimati")
    assert conversations_found(home, "--until", "2024-12-05") == {"chatgpt:c1"}
    assert conversations_found(home, "--since", "2024-12-06", "--until", "2024-12-06") == {"chatgpt:c2"}
    assert conversations_found(home, "--since", "2024-12-05") == {"chatgpt:c1", "chatgpt:c2"}
