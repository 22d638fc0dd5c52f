"""A query whose digits cannot form a date is read without importing dateparser (a fifth of a
CPU-second), and reads the same as when dateparser is asked."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.queries import timephrase
from tapestryd.queries.timephrase import find_time_phrase

NOW = datetime(2026, 3, 4, 12, tzinfo=timezone.utc)
TZ = ZoneInfo("Europe/Paris")
QUERIES = ("route 66", "error 404 on login", "sqlite wal 2 gb", "v1.2.3 release", "python 3.12", "port 8080",
           "10:30 meeting", "3 days ago", "last 3 days", "12/03", "in 2025", "12 november 2025", "a 1 b 22 c 3")


def test_a_query_of_short_numbers_does_not_import_dateparser() -> None:
    """'route 66' and 'error 404' hold no run of four date characters, 'python 3.12' a decimal number,
    '10:30 meeting' a clock time: dateparser stays unloaded."""
    code = ("import sys; from datetime import datetime, timezone; from zoneinfo import ZoneInfo\n"
            "from tapestryd.queries.timephrase import find_time_phrase\n"
            "now = datetime(2026, 3, 4, tzinfo=timezone.utc)\n"
            "for q in ('route 66', 'error 404 on login', 'sqlite wal 2 gb', 'python 3.12', '10:30 meeting',"
            " 'took 1.25 hours'):\n"
            "    assert find_time_phrase(q, now=now, tz=ZoneInfo('UTC')) == (None, q), q\n"
            "print('dateparser' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("query", QUERIES)
def test_the_shortcut_reads_as_dateparser_does(query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the shortcut and with dateparser always asked, every query reads the same."""
    fast = find_time_phrase(query, now=NOW, tz=TZ)
    monkeypatch.setattr(timephrase, "_may_hold_a_date", lambda text: True)
    assert find_time_phrase(query, now=NOW, tz=TZ) == fast


def test_a_clock_time_alone_is_no_day() -> None:
    """dateparser read '10:30' as 30 December; a time of day alone names no day."""
    assert find_time_phrase("10:30 standup", now=NOW, tz=TZ) == (None, "10:30 standup")
    assert find_time_phrase("10:30 yesterday", now=NOW, tz=TZ)[0] is not None
