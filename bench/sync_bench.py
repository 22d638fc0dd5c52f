"""Sync through a PostgreSQL hub: events/s pushed and pulled, a new machine joining, an idle round.

A throwaway PostgreSQL cluster is started (``tests/sync/pgcluster.py``: initdb/pg_ctl, as
``nobody`` under root) unless ``--url`` names a hub (an empty database). Machine A's log gets
``--events`` generated messages (about 300 characters each, 50 per conversation) appended in
batches, as capture would. Then:

* **push**: one sync round on A (every event sealed, COPY'd, committed with the checkpoint);
* **join**: machine B, empty, with A's key: one round (pull everything into its log), then
  its projections caught up (messages + FTS5, hierarchy); the sum is the time to join and rebuild;
* **idle**: ``--idle`` more rounds on A with nothing new, each timed (wall and CPU seconds).

Prints the figures and writes ``bench/out/sync_bench.json``.

Usage: ``python bench/sync_bench.py [--events 1000000] [--idle 10] [--batch 2000] [--url URL]``
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import structlog

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
WORDS = ("queue heap index cache shard replica vacuum planner tuple lock commit rollback sequence bucket "
         "merge join scan sort hash page buffer flush token parser lexer grammar module branch rebase").split()


def make_home(root: Path, machine: str, url: str) -> Any:
    from tapestryd.config import load_settings

    home = root / machine
    home.mkdir()
    (home / "tapestry.toml").write_text(f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n'
                                        f'[sync]\nmachine = "{machine}"\nurl = "{url}"\n')
    return load_settings(home)


def fill(settings: Any, n: int) -> float:
    """Append ``n`` generated messages to the home's log; seconds it took."""
    from tapestryd.events.types import MessageRecorded, NewEvent
    from tapestryd.operations.runtime import Runtime

    start = datetime(2025, 1, 1, 9, tzinfo=timezone.utc)
    began = time.perf_counter()
    with Runtime.open(settings) as runtime:
        for base in range(0, n, 20_000):
            batch = []
            for i in range(base, min(n, base + 20_000)):
                at = start + timedelta(minutes=i)
                words = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 40))
                batch.append(NewEvent(f"bench-{i}", MessageRecorded(
                    conversation=f"claude-code:bench-{i // 50}", message=f"m{i}", role="user" if i % 2 else "assistant",
                    text=f"message {i}: {words}", timestamp=at.isoformat()), at, agent="claude-code",
                    source=f"/bench/{i // 50}.jsonl:{i % 50}"))
            runtime.store.append(batch)
    return time.perf_counter() - began


def timed_round(settings: Any, batch: int, *, catch_up: bool = False) -> dict[str, Any]:
    """One round in this process (writer lock held), wall and CPU seconds; optionally the projections after."""
    from tapestryd.operations.runtime import Runtime
    from tapestryd.operations.syncing import run_round

    with Runtime.open(settings) as runtime:
        wall, cpu = time.perf_counter(), time.process_time()
        report = run_round(settings, runtime.store, lambda fn: fn(runtime.store), batch=batch)
        result = {"seconds": time.perf_counter() - wall, "cpu_seconds": time.process_time() - cpu, "report": report}
        if catch_up:
            began = time.perf_counter()
            runtime.projector.catch_up()
            result["catch_up_seconds"] = time.perf_counter() - began
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--idle", type=int, default=10)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--url", default="", help="an empty PostgreSQL database (default: a throwaway cluster)")
    options = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "sync")]
    from pgcluster import PgCluster, missing_reason

    import tapestryd.sync.crypto  # noqa: F401  (imported before the clock starts, as a daemon has them)
    import tapestryd.sync.hub  # noqa: F401
    from tapestryd.operations.dispatch import run_here
    from tapestryd.operations.requests import SyncInitRequest

    cluster = None
    url = options.url
    if not url:
        reason = missing_reason()
        if reason:
            sys.exit(f"sync_bench: {reason}")
        cluster = PgCluster()
        cluster.start()
        url = cluster.create_database("bench")
    try:
        with tempfile.TemporaryDirectory(prefix="tapestry-sync-bench-") as tmp:
            a, b = make_home(Path(tmp), "a", url), make_home(Path(tmp), "b", url)
            key = run_here(a, SyncInitRequest()).to_json()["passphrase"]
            run_here(b, SyncInitRequest(key=key))
            filled = fill(a, options.events)
            push = timed_round(a, options.batch)
            join = timed_round(b, options.batch, catch_up=True)
            idle = [timed_round(a, options.batch) for _ in range(options.idle)]
    finally:
        if cluster is not None:
            cluster.destroy()
    n = options.events
    result = {
        "events": n, "batch": options.batch, "fill_seconds": round(filled, 2),
        "push_seconds": round(push["seconds"], 2), "push_events_per_s": round(n / push["seconds"]),
        "push_cpu_seconds": round(push["cpu_seconds"], 2), "pushed_new": push["report"]["push"]["new"],
        "pull_seconds": round(join["seconds"], 2), "pull_events_per_s": round(n / join["seconds"]),
        "pull_cpu_seconds": round(join["cpu_seconds"], 2), "pulled_new": join["report"]["pull"]["new"],
        "rebuild_seconds": round(join["catch_up_seconds"], 2),
        "join_and_rebuild_seconds": round(join["seconds"] + join["catch_up_seconds"], 2),
        "idle_round_median_s": round(statistics.median(r["seconds"] for r in idle), 4) if idle else None,
        "idle_round_cpu_median_s": round(statistics.median(r["cpu_seconds"] for r in idle), 4) if idle else None,
    }
    OUT.mkdir(exist_ok=True)
    (OUT / "sync_bench.json").write_text(json.dumps(result, indent=2))
    for key_, value in result.items():
        print(f"{key_:>28}: {value}")


if __name__ == "__main__":
    main()
