"""The first search with a time phrase after tapestryd starts does not load the phrase reader.

Reading a first time phrase imports dateparser and its English data (about 0.4 CPU-seconds,
several seconds of wall time on a busy machine); the daemon does that in the background as it
starts (logged as ``time_phrases.warmed``), so a query right after start answers at once.
"""

from __future__ import annotations

import os
from pathlib import Path

from daemon_helpers import Daemon, session_line
from waiting import wait_for

FIRST_COST_BOUND = 0.2  # CPU-seconds the first time-phrase query may cost beyond the second (cold: about 0.4)


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _query_cpu(daemon: Daemon, pid: int) -> float:
    before = _cpu_seconds(pid)
    result = daemon.call("search", {"query": "heat pump last week", "now": "2026-03-10T12:00:00Z"})
    assert result["time"]["phrase"] == "last week"
    assert [h["message_key"] for h in result["hits"]] == ["u1"]
    return _cpu_seconds(pid) - before


def test_the_first_time_phrase_after_start_finds_the_reader_loaded(daemon: Daemon, projects: Path) -> None:
    session = projects / "-home-me-proj" / "s1.jsonl"
    session.parent.mkdir()
    session.write_bytes(session_line("s1", "u1", "the heat pump draws 2 kW at night"))
    daemon.start()
    assert daemon.proc is not None
    wait_for(lambda: daemon.messages())
    wait_for(lambda: "time_phrases.warmed" in daemon.log.read_text() and "similarity.fitted" in daemon.log.read_text())
    first = _query_cpu(daemon, daemon.proc.pid)
    second = _query_cpu(daemon, daemon.proc.pid)
    assert first - second < FIRST_COST_BOUND, (first, second)
