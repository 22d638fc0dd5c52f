"""SIGKILL during push and during pull, 20 times each: nothing lost, nothing doubled."""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from multiprocessing.process import BaseProcess
from pathlib import Path

from sync_helpers import event_ids, make_home, sync_here, sync_round
from waiting import PATIENCE

from tapestryd.config import Settings
from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.operations.runtime import Runtime
from tapestryd.sync.hub import Hub

KILLS = 20
PER_ROUND = 300  # events added before each killed round
BATCH = 30  # events per hub transaction and per local append: ten commits each way a round

# Rounds run in children forked from a server that imported what a round loads once (the sync engine
# and its PostgreSQL driver, the runtime and its projections, the log renderer): a kill lands in the
# round itself, not in an interpreter's start-up (which a ``tapestryctl sync`` child spends most of
# its life in), and 42 children do not pay 42 start-ups.
CHILDREN = multiprocessing.get_context("forkserver")
CHILDREN.set_forkserver_preload(["tapestryd.operations.dispatch", "tapestryd.operations.runtime",
                                 "tapestryd.operations.syncing", "tapestryd.projections", "tapestryd.sync.engine",
                                 "tapestryd.sync.hub", "psycopg", "sqlalchemy", "structlog.dev"])


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


def start_sync(settings: Settings) -> BaseProcess:
    """One sync round of the home (as ``tapestryctl sync --batch BATCH`` runs it without a daemon) in a
    child process; its stderr goes to ``<home>/sync.log``."""
    assert settings.home is not None
    child = CHILDREN.Process(target=sync_round, args=(str(settings.home), BATCH, str(settings.home / "sync.log")))
    child.start()
    return child


def kill_after(child: BaseProcess, delay: float, settings: Settings) -> str:
    """SIGKILL ``child`` ``delay`` seconds after its start unless it ended (then it must have
    succeeded); returns how it ended."""
    child.join(delay)
    if child.exitcode is not None:
        assert settings.home is not None
        assert child.exitcode == 0, (settings.home / "sync.log").read_text()[-3000:]
        return "finished"
    child.kill()
    child.join(PATIENCE)
    assert child.exitcode is not None
    return "killed"


def timed_round(settings: Settings) -> float:
    """Seconds a whole sync round in a child takes (the span kills are drawn from)."""
    assert settings.home is not None
    started = time.monotonic()
    child = start_sync(settings)
    child.join(PATIENCE)
    assert child.exitcode == 0, (settings.home / "sync.log").read_text()[-3000:]
    return time.monotonic() - started


def hub_ids(url: str) -> list[str]:
    with Hub(url) as hub:
        return [row.event_id for row in hub.rows_after(0, 10_000_000)[1]]


def test_sigkill_during_push_and_pull_20_times_each_loses_and_doubles_nothing(tmp_path: Path, hub_url: str) -> None:
    """Each time, the laptop captures 300 events and pushes while the desktop pulls, both in child
    processes killed at random moments of a round (ten commits each way); at the end one whole
    round each: the hub holds every laptop event once, the desktop the hub's, none twice."""
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    add_events(laptop, "warmup")
    warm = CHILDREN.Process(target=os.getpid)  # the fork server's start-up is no part of a round's span
    warm.start()
    warm.join(PATIENCE)
    span = max(timed_round(laptop), timed_round(desktop))
    rng = random.Random(16)
    pushes: Counter[str] = Counter()
    pulls: Counter[str] = Counter()
    for n in range(KILLS):
        add_events(laptop, f"r{n}")
        started = time.monotonic()
        children = [(rng.uniform(0, span), start_sync(laptop), laptop, pushes),
                    (rng.uniform(0, span), start_sync(desktop), desktop, pulls)]
        for delay, child, home, outcomes in sorted(children, key=lambda item: item[0]):
            outcomes[kill_after(child, max(0.0, delay - (time.monotonic() - started)), home)] += 1
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
