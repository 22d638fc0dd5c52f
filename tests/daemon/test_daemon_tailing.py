"""Live tailing with real watchdog observers on real folders, the daemon as a real process."""

from __future__ import annotations

import errno
import io
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from watchdog.observers.api import BaseObserver

from daemon_helpers import Daemon, session_line, wait_for, write_config
from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.sources.tailer import Tailer, read_complete_lines, scan_sessions
from tapestryd.sources.watch import FolderWatcher


def texts(daemon: Daemon) -> list[str]:
    """Message texts in the projections, in log order."""
    return [text for _, _, text in daemon.messages()]


def test_appended_lines_are_searchable_and_a_half_line_waits_for_the_rest(daemon: Daemon, projects: Path) -> None:
    """Complete lines become messages at once; a half-written line is stored only once finished."""
    daemon.start()
    session = projects / "-home-me-proj" / "s1.jsonl"
    session.parent.mkdir()
    session.write_bytes(session_line("s1", "u1", "the first otter"))
    wait_for(lambda: daemon.call("search", {"query": "otter"})["hits"])
    whole = session_line("s1", "u2", "the second beaver")
    passes = daemon.call("status")["daemon"]["tail"]["passes"]
    with session.open("ab") as fh:
        fh.write(whole[:40])
        fh.flush()
        wait_for(lambda: daemon.call("status")["daemon"]["tail"]["passes"] > passes)
        assert texts(daemon) == ["the first otter"]
        fh.write(whole[40:])
    wait_for(lambda: daemon.call("search", {"query": "beaver"})["hits"])
    assert texts(daemon) == ["the first otter", "the second beaver"]
    assert daemon.call("status")["daemon"]["tail"]["problems"] == 0


def test_a_truncated_or_replaced_file_is_read_again_without_duplicates(daemon: Daemon, projects: Path) -> None:
    """A smaller file or a new inode restarts at byte 0; event ids absorb what was stored."""
    daemon.start()
    session = projects / "-home-me-proj" / "s2.jsonl"
    session.parent.mkdir()
    first = session_line("s2", "a", "alpha") + session_line("s2", "b", "bravo") + session_line("s2", "c", "charlie")
    session.write_bytes(first)
    wait_for(lambda: len(daemon.messages()) == 3)
    session.write_bytes(session_line("s2", "a", "alpha"))  # truncated (same inode, smaller)
    wait_for(lambda: daemon.call("status")["daemon"]["tail"]["restarts"] >= 1)
    replacement = projects / "-home-me-proj" / "s2.tmp"
    replacement.write_bytes(first + session_line("s2", "d", "delta"))
    os.replace(replacement, session)  # replaced (new inode), as an editor's atomic save does
    wait_for(lambda: len(daemon.messages()) == 4)
    assert texts(daemon) == ["alpha", "bravo", "charlie", "delta"]
    assert daemon.event_count() == 4


def test_new_project_folders_and_files_are_picked_up_without_restart(daemon: Daemon, projects: Path) -> None:
    """A folder created after start (with files already in it when its watch lands) is read."""
    daemon.start()
    staging = projects.parent / "staging" / "-home-me-fresh"
    staging.mkdir(parents=True)
    for n in range(3):
        (staging / f"s{n}.jsonl").write_bytes(session_line(f"fresh{n}", "u1", f"fresh session {n}"))
    os.rename(staging, projects / "-home-me-fresh")  # a whole folder with files appears at once
    nested = projects / "-home-me-deep" / "sub" / "subagents"
    nested.mkdir(parents=True)
    (nested / "agent-1.jsonl").write_bytes(session_line("deep", "u1", "deep subagent line"))
    wait_for(lambda: len(daemon.messages()) == 4)
    assert sorted(texts(daemon)) == ["deep subagent line", "fresh session 0", "fresh session 1", "fresh session 2"]


def test_changes_made_while_the_daemon_was_down_are_caught_up_at_start(daemon: Daemon, projects: Path) -> None:
    """Start reads every session file from its stored offset: new files and appended lines."""
    folder = projects / "-home-me-proj"
    folder.mkdir()
    (folder / "s1.jsonl").write_bytes(session_line("s1", "u1", "before the first start"))
    daemon.start()
    wait_for(lambda: len(daemon.messages()) == 1)
    assert daemon.stop()[0] == 0
    with (folder / "s1.jsonl").open("ab") as fh:
        fh.write(session_line("s1", "u2", "appended while down"))
    (folder / "s2.jsonl").write_bytes(session_line("s2", "u1", "created while down"))
    daemon.start()
    wait_for(lambda: len(daemon.messages()) == 3)
    assert sorted(texts(daemon)) == ["appended while down", "before the first start", "created while down"]
    assert daemon.event_count() == 3


def test_polling_mode_tails_too(daemon: Daemon, home: Path, projects: Path) -> None:
    """With sources.polling = true the polling observer feeds the tailer."""
    write_config(home, roots=[projects], sweep=600, extra="polling = true\n")
    daemon.start()
    assert daemon.call("status")["daemon"]["sources"]["mode"] == "polling"
    (projects / "-home-me-p").mkdir()
    (projects / "-home-me-p" / "s.jsonl").write_bytes(session_line("p", "u1", "polled pelican"))
    wait_for(lambda: daemon.call("search", {"query": "pelican"})["hits"])


class _ExhaustedInotify(BaseObserver):
    """A native observer whose watches fail as inotify does at max_user_watches."""

    def __init__(self) -> None:
        super().__init__(emitter_class=object)  # type: ignore[arg-type]

    def schedule(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


def test_a_root_falls_back_to_polling_when_the_inotify_limit_is_reached(tmp_path: Path) -> None:
    """ENOSPC from the native observer moves the root to a real polling observer that still reports."""
    seen: list[set[str]] = []
    got = threading.Event()

    def changed(files: set[str], folders: set[str]) -> None:
        seen.append(files)
        got.set()

    watcher = FolderWatcher(changed, accept=lambda p: p.endswith(".jsonl"), native_factory=_ExhaustedInotify,
                            poll_interval=0.1)
    watcher.start([tmp_path, tmp_path / "missing"])
    try:
        assert watcher.mode == "polling" and watcher.missing == [str(tmp_path / "missing")]
        (tmp_path / "a.jsonl").write_text("{}\n")
        assert got.wait(10)
        assert str(tmp_path / "a.jsonl") in set().union(*seen)
        (tmp_path / "missing").mkdir()
        assert watcher.refresh() == [str(tmp_path / "missing")]
    finally:
        watcher.stop()


@pytest.mark.parametrize("limit", [4, 16, 1 << 20])
def test_read_complete_lines_stops_at_the_last_newline_whatever_the_chunk(limit: int) -> None:
    """Lines longer than the chunk are read whole; the unfinished tail is left for later."""
    data = b'{"a": 1}\n' + b'{"long": "' + b"x" * 50 + b'"}\n' + b"\n" + b'{"half'
    lines, end = [], 0
    while True:
        more, next_end = read_complete_lines(io.BytesIO(data), end, limit)
        if next_end == end:
            break
        lines, end = lines + more, next_end
    assert [offset for offset, _ in lines] == [0, 9]
    assert lines[1][1].endswith(b'"}\n') and end == len(data) - len(b'{"half')


def test_many_files_share_transactions_and_each_offset_lands_with_its_events(settings: Settings,
                                                                            tmp_path: Path) -> None:
    """tail_many batches several files per append; every file ends at its size, nothing twice."""
    folder = tmp_path / "-home-me-many"
    folder.mkdir()
    for n in range(7):
        (folder / f"m{n}.jsonl").write_bytes(b"".join(session_line(f"m{n}", f"u{i}", f"m{n} line {i}")
                                                      for i in range(3)) + b'{"half')
    paths_for(settings).ensure()
    with EventStore(paths_for(settings).events_db) as store:
        tailer = Tailer(store, agent="claude-code", batch_events=4)
        scan = scan_sessions([tmp_path])
        reports = tailer.tail_many(tailer.changed(scan))
        # per file: 3 messages and the session's title from its first prompt
        assert [(r.lines, r.new, r.known) for r in reports] == [(3, 4, 0)] * 7
        assert {p: o.offset for p, o in store.offsets().items()} == {p: size - len(b'{"half')
                                                                    for p, (size, _) in scan.items()}
        assert tailer.changed(scan) == [] and store.count() == 28
        again = tailer.tail_many(sorted(scan))
        assert sum(r.lines for r in again) == 0 and store.count() == 28


def test_status_counts_a_new_session_file_before_the_next_sweep(daemon: Daemon, home: Path, projects: Path) -> None:
    """A session file created while the daemon runs is counted at once, not after the hourly sweep."""
    write_config(home, roots=[projects], sweep=3600)
    (projects / "-home-me-a").mkdir()
    (projects / "-home-me-a" / "one.jsonl").write_bytes(session_line("one", "u1", "the first heron"))
    daemon.start()
    wait_for(lambda: daemon.call("status")["daemon"]["files"] == 1)
    (projects / "-home-me-a" / "two.jsonl").write_bytes(session_line("two", "u2", "the second egret"))
    wait_for(lambda: daemon.call("search", {"query": "egret"})["hits"])
    assert daemon.call("status")["daemon"]["files"] == 2


def test_a_file_truncated_then_written_past_its_old_offset_is_read_from_the_start(settings: Settings,
                                                                                 tmp_path: Path) -> None:
    """`: > s.jsonl` then one longer line: same inode, larger size, but no newline before the old
    offset, so the tailer restarts at byte 0 instead of parsing from the middle of the new line."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(session_line("s", "u1", "short"))
    paths_for(settings).ensure()
    with EventStore(paths_for(settings).events_db) as store:
        tailer = Tailer(store, agent="claude-code")
        assert tailer.tail(str(session)).new == 2  # the message and the session's title from its first prompt
        with session.open("r+b") as fh:
            fh.truncate(0)
            fh.write(session_line("s", "u2", "a much longer line written after the truncation"))
        report = tailer.tail(str(session))
        assert report.restarted and report.new == 1 and not report.problems
        assert store.offset(str(session)).offset == session.stat().st_size


def test_a_defect_met_in_one_file_does_not_stop_the_others(settings: Settings, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected error parsing one file is that file's problem; the other files are still read,
    and the failing one is read again on the next pass (its offset is not advanced)."""
    bad, good = tmp_path / "bad.jsonl", tmp_path / "good.jsonl"
    bad.write_bytes(session_line("bad", "u1", "the troubled line"))
    good.write_bytes(session_line("good", "u2", "the healthy line"))
    paths_for(settings).ensure()
    with EventStore(paths_for(settings).events_db) as store:
        tailer = Tailer(store, agent="claude-code")
        real = tailer.parser.parse_lines

        def parse_lines(lines: Any, origin: Any, hint: str) -> Any:
            if hint == "bad":
                raise OverflowError("date value out of range")
            return real(lines, origin, hint)

        monkeypatch.setattr(tailer.parser, "parse_lines", parse_lines)
        reports = {Path(r.path).name: r for r in tailer.tail_many([str(bad), str(good)])}
        assert reports["good.jsonl"].new == 2 and not reports["good.jsonl"].problems  # message, first-prompt title
        assert "OverflowError: date value out of range" in reports["bad.jsonl"].problems[0]
        assert store.offset(str(bad)) is None
        monkeypatch.setattr(tailer.parser, "parse_lines", real)
        assert tailer.tail(str(bad)).new == 2
