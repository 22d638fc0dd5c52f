"""SIGKILL during push and during pull, 20 times each: nothing lost, nothing doubled."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sync_helpers import event_ids, make_home, sync_here

from tapestryd.config import Settings
from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.operations.runtime import Runtime
from tapestryd.sync.hub import Hub

KILLS = 20
PER_ROUND = 1000  # events added before each killed round
BATCH = 100  # events per hub transaction and per local append: ten commits each way a round
ROOT = Path(__file__).resolve().parents[2]


def add_events(settings: Settings, tag: str, n: int = PER_ROUND) -> None:
    """Append ``n`` messages to the home's log, as capture would."""
    start = datetime(2026, 3, 4, 10, tzinfo=timezone.utc)
    events = [NewEvent(f"{tag}-{i}", MessageRecorded(conversation=f"claude-code:{tag}", message=f"m{i}", role="user",
                                                     text=f"{tag} message {i} " + "lorem ipsum " * 20,
                                                     timestamp=(start + timedelta(seconds=i)).isoformat()),
                       start + timedelta(seconds=i), agent="claude-code", source=f"/k/{tag}.jsonl:{i}")
              for i in range(n)]
    with Runtime.open(settings) as runtime:
        runtime.store.append(events)


def start_sync(settings: Settings) -> subprocess.Popen[bytes]:
    """``tapestryctl sync`` of the home in a child process."""
    env = {**os.environ, "TAPESTRY_HOME": str(settings.home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tapestryd.cli", "sync", "--batch", str(BATCH)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def kill_after(child: subprocess.Popen[bytes], delay: float) -> str:
    """SIGKILL ``child`` ``delay`` seconds after its start unless it ended; returns how it ended."""
    try:
        child.wait(delay)
        return "finished"
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        return "killed"


def timed_round(settings: Settings) -> float:
    """Seconds a whole ``tapestryctl sync`` child takes (the span kills are drawn from)."""
    started = time.monotonic()
    child = start_sync(settings)
    _, err = child.communicate(timeout=300)
    assert child.returncode == 0, err.decode()
    return time.monotonic() - started


def hub_ids(url: str) -> list[str]:
    with Hub(url) as hub:
        return [row.event_id for row in hub.rows_after(0, 10_000_000)[1]]


@pytest.mark.timeout(900)  # 40 child processes: about 30 s on an idle 2-core machine, minutes on a loaded one
def test_sigkill_during_push_and_pull_20_times_each_loses_and_doubles_nothing(tmp_path: Path, hub_url: str) -> None:
    """Each time, the laptop captures 1,000 events and pushes while the desktop pulls, both in child
    processes killed at random moments of a round (ten commits each way); at the end one whole
    round each: the hub holds every laptop event once, the desktop the hub's, none twice."""
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    add_events(laptop, "warmup")
    span = max(timed_round(laptop), timed_round(desktop))
    rng = random.Random(16)
    pushes: Counter[str] = Counter()
    pulls: Counter[str] = Counter()
    for n in range(KILLS):
        add_events(laptop, f"r{n}")
        started = time.monotonic()
        children = [(rng.uniform(0.1, span), start_sync(laptop), pushes),
                    (rng.uniform(0.1, span), start_sync(desktop), pulls)]
        for delay, child, outcomes in sorted(children, key=lambda item: item[0]):
            outcomes[kill_after(child, max(0.0, delay - (time.monotonic() - started)))] += 1
        ids = event_ids(desktop)
        assert len(ids) == len(set(ids))
    sync_here(laptop)
    sync_here(desktop)
    local, hub, pulled = event_ids(laptop), hub_ids(hub_url), event_ids(desktop)
    assert len(local) == (KILLS + 1) * PER_ROUND
    assert sorted(hub) == sorted(local) and len(set(hub)) == len(hub)
    assert sorted(pulled) == sorted(hub) and len(set(pulled)) == len(pulled)
    with Hub(hub_url) as h:
        assert h.pushed("laptop") == len(local)
    assert pushes["killed"] >= KILLS // 2 and pulls["killed"] >= KILLS // 2, (pushes, pulls)
