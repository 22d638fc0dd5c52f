"""The daemon summarizes with the local provider in a child process, so it never loads scikit-learn."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from daemon_helpers import Daemon, session_line, wait_for, write_config

from tapestryd.config import SummarizeSettings
from tapestryd.errors import DaemonError
from tapestryd.daemon.summary_worker import IsolatedSummarizer, isolated
from tapestryd.summarize import Budget
from tapestryd.summarize.base import Passage, SummaryRequest
from tapestryd.summarize.extractive import ExtractiveSummarizer

REQUEST = SummaryRequest(
    node="L0:chatgpt:2026-03-04:chatgpt:c1", level=0, period="Wednesday 04 March 2026", title_hint="Bread",
    inputs=(Passage("09:00 me", "I fed the starter at 9pm with 100 g flour. It doubled by 7am.", "user"),
            Passage("09:01 assistant", "Then mix the levain at 7am and bake 500 g loaves at 250°C.", "assistant")),
    source_chars=120)


def test_the_child_gives_the_same_summary_and_the_parent_keeps_the_budget() -> None:
    """Same title, text and usage as in process; the parent's budget is spent; close ends the child."""
    expected = ExtractiveSummarizer().summarize(REQUEST, Budget())
    budget = Budget(calls=5)
    worker = IsolatedSummarizer(SummarizeSettings())
    try:
        assert worker.summarize(REQUEST, budget) == expected
        assert worker.name == "extractive" and worker.local
        assert budget.spent.calls == 1
    finally:
        worker.close()
    assert worker._pool is None


KILLED_PARENT = textwrap.dedent("""
    import os, signal, sys
    sys.path[:0] = sys.argv[1:]
    from test_daemon_summary_worker import REQUEST
    from tapestryd.config import SummarizeSettings
    from tapestryd.daemon.summary_worker import IsolatedSummarizer
    from tapestryd.summarize import Budget

    if __name__ == "__main__":
        worker = IsolatedSummarizer(SummarizeSettings())
        worker.summarize(REQUEST, Budget())
        print(*[p.pid for p in worker._pool._processes.values()], flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
""")


def test_the_child_ends_when_the_daemon_is_killed(tmp_path: Path) -> None:
    """A daemon killed with SIGKILL mid-job leaves no summarizer process behind."""
    script = tmp_path / "killed_parent.py"
    script.write_text(KILLED_PARENT)
    repo = Path(__file__).resolve().parents[2]  # the script runs from tmp_path: tapestryd need not be installed
    tests = Path(__file__).parent
    done = subprocess.run([sys.executable, str(script), str(tests), str(tests.parent)], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(repo)})
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 1, done.stderr[-2000:]
    wait_for(lambda: not _alive(pids[0]))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:  # a zombie has ended; only its entry is left
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:  # no /proc (macOS), or it just went
        return True


def test_a_remote_provider_is_not_isolated() -> None:
    """Only the local provider moves to a child; an HTTP provider stays in process."""
    with isolated(SummarizeSettings(provider="openai", base_url="http://127.0.0.1:9", model="m")) as provider:
        assert not isinstance(provider, IsolatedSummarizer)


def _iterate(daemon: Daemon) -> dict[str, Any] | None:
    """``iterate`` through the socket; None while a scheduled run holds the summarizer."""
    try:
        return daemon.call("iterate", {}, timeout=60)  # type: ignore[no-any-return]
    except DaemonError as exc:
        if "already running" in exc.message:
            return None
        raise


def test_the_running_daemon_summarizes_without_loading_scikit_learn(tmp_path: Path) -> None:
    """`iterate` through the socket summarizes, yet no scikit-learn library is mapped into the daemon."""
    root = tmp_path / "projects" / "-home-me-p"
    root.mkdir(parents=True)
    (root / "s1.jsonl").write_bytes(b"".join(
        session_line("s1", f"u{i}", f"On day {i} I chose PostgreSQL 16 for project number {i}.",
                     ts=f"2026-03-0{i}T10:00:00Z") for i in range(1, 4)))
    write_config(tmp_path, roots=[tmp_path / "projects"])
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.event_count("MessageRecorded") == 3)
        result = wait_for(lambda: _iterate(daemon))  # the start-up job may hold the summarizer
        assert not result["failed"] and daemon.event_count("NodeSummarized") >= 3
        assert daemon.proc is not None
        maps = Path(f"/proc/{daemon.proc.pid}/maps").read_text()
        assert "sklearn" not in maps
    finally:
        daemon.stop()
