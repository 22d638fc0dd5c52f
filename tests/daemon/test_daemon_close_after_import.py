"""Tester report 4, item 13: days already closed by the clock are closed right after an inbox
import or a tail pass that appended their messages, not at the next minute tick."""

from __future__ import annotations

import os
from pathlib import Path

from daemon_helpers import Daemon, session_line, wait_for, write_config
from test_daemon_pause_reload import export
from tapestryd.paths import paths_for


def _started(tmp_path: Path) -> Daemon:
    """A daemon of an empty home whose first hierarchy run (at start) is over: the next is a minute away."""
    write_config(tmp_path, roots=[tmp_path / "projects"])
    daemon = Daemon(tmp_path).start()
    wait_for(lambda: "hierarchy" in daemon.call("status")["daemon"]["jobs"])
    assert daemon.event_count("DayClosed") == 0
    return daemon


def test_an_inbox_import_of_past_days_closes_them_at_once(tmp_path: Path) -> None:
    """Three conversations of January 2025 dropped in the inbox: their days are closed within seconds."""
    daemon = _started(tmp_path)
    try:
        inbox = paths_for(daemon.settings).inbox
        inbox.mkdir(parents=True, exist_ok=True)
        os.replace(export(tmp_path / "export.json", 3), inbox / "export.json")
        wait_for(lambda: daemon.event_count() == 6)
        wait_for(lambda: daemon.event_count("DayClosed") > 0)
    finally:
        daemon.stop()


def test_a_tail_pass_with_past_messages_closes_their_day_at_once(tmp_path: Path) -> None:
    """A Claude Code session line of 2026-03-04 appended: that day (long over) is closed within seconds."""
    daemon = _started(tmp_path)
    try:
        folder = tmp_path / "projects" / "-home-me-proj"
        folder.mkdir(parents=True)
        (folder / "s1.jsonl").write_bytes(session_line("s1", "u1", "an old question about sourdough"))
        wait_for(lambda: daemon.event_count() == 1)
        wait_for(lambda: daemon.event_count("DayClosed") > 0)
    finally:
        daemon.stop()
