"""SIGKILL during `tapestryctl iterate`, then a restart: nothing missing, nothing twice, no call repeated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

from fake_llm import FakeLLM
from hierarchy_helpers import append, history, write_config
from waiting import PATIENCE, wait_for

from tapestryd.events import EventStore
from tapestryd.operations.runtime import Runtime
from tapestryd.projections.hierarchy_checks import run_checks


def iterate(home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "tapestryd.cli", "iterate"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_calls(llm: FakeLLM, n: int) -> None:
    wait_for(lambda: len(llm.calls) >= n, interval=0.02)


def recorded(home: Path) -> list[tuple[str, str]]:
    """(node, text) of every NodeSummarized in the log."""
    with EventStore(home / "events.db", readonly=True) as store:
        events = [e.event for e in store.read(types=["NodeSummarized"])]
    return [(e.node, e.text) for e in events]  # type: ignore[attr-defined]


def test_a_killed_iterate_resumes_without_gaps_duplicates_or_repeated_calls(home: Path, llm: FakeLLM) -> None:
    """The run is killed while a call is in flight; the second run finishes the tree.

    Every answer names the hash of its prompt, so a call after the restart whose prompt was
    already answered in the log would be a repeated call.
    """
    settings = write_config(home, llm=llm)
    with Runtime.open(settings) as runtime:
        append(runtime.store, history(date(2025, 10, 27), 40))
    llm.slow_from = 41
    first = iterate(home)
    wait_for_calls(llm, 41)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    llm.slow_from = None
    before_kill = recorded(home)
    answered = {text.split("I worked on ")[1].split(" ")[0] for _, text in before_kill}
    calls_before_restart = len(llm.calls)
    assert len(before_kill) == 40 and calls_before_restart >= 41  # more if the slow call timed out and was retried

    second = iterate(home)
    _, err = second.communicate(timeout=PATIENCE)
    assert second.returncode == 0, err.decode()
    later = llm.calls[calls_before_restart:]
    assert later and not any(c["hash"] in answered for c in later)

    final = recorded(home)
    per_node = Counter(node for node, _ in final)
    assert max(per_node.values()) == 1
    with Runtime.open(settings) as runtime:
        conn = runtime.projector.conn
        closed = {r[0] for r in conn.execute("SELECT key FROM nodes WHERE closed = 1")}
        assert set(per_node) == closed
        assert conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 1 AND state != 'clean'").fetchone()[0] == 0
        assert all(check.ok for check in run_checks(conn))
