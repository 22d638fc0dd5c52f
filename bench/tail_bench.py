"""Projector CPU of tailing one long Claude Code session, appended turn by turn as the daemon captures it.

One generated session of ``--turns`` turns (user prompt, assistant reply streamed over several
lines, tool results; the shape of :mod:`gen_claude_code_projects`) is parsed once into a scratch
log. Its events are then appended to a fresh log one line's events at a time, and after each
append the default projections catch up as the daemon's writer does
(``catch_up(batch=250, max_events=250, settle=False)``); the writer's idle step
(:meth:`~tapestryd.projections.runner.Projector.settle`) runs every ``--settle-every`` lines
(0: once, when the session is over), standing for the pauses after which the daemon settles. The run reports
process CPU seconds (user + system, steadier than wall time on a shared machine) of the
catch-ups and of the settle, the messages stored, and checks that the settled index is the one
a rebuild from the log writes (the blocks' documents). Figures go to ``bench/out/tail.json``.

Usage: ``python bench/tail_bench.py [--turns 2000] [--settle-every 0] [--runs 1]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"


def write_session(path: Path, turns: int, seed: int = 7) -> None:
    """Write one session of ``turns`` turns to ``path`` (deterministic per seed)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gen_claude_code_projects import START, SessionWriter

    writer = SessionWriter(seed)
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/sam/tail", "sessionId": writer.uid(),
            "version": "2.0.46", "gitBranch": "main"}
    out: list[dict[str, Any]] = []
    parent, t = None, START
    rng = random.Random(seed)
    from datetime import timedelta

    for _ in range(turns):
        t += timedelta(seconds=rng.uniform(30, 300))
        parent = writer.turn(out, base, parent, t)
    path.write_text("".join(json.dumps(line) + "\n" for line in out))


def child(turns: int, settle_every: int) -> dict[str, Any]:
    """One tailing run in this process; figures as a dict."""
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from tapestryd.config import load_settings
    from tapestryd.events import EventStore, NewEvent
    from tapestryd.paths import paths_for
    from tapestryd.projections import Projector, default_projections
    from tapestryd.sources.ingest import ingest_paths

    work = Path(tempfile.mkdtemp(prefix="tapestry-tail-"))
    try:
        session = work / "projects" / "-home-sam-tail" / "session.jsonl"
        session.parent.mkdir(parents=True)
        write_session(session, turns)
        (work / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
        settings = load_settings(work)
        parsed = EventStore(work / "parsed.db")
        ingest_paths(parsed, [session], settings=settings)
        store = EventStore(paths_for(settings).events_db)
        projector = Projector(store, paths_for(settings).projections_db,
                              default_projections(settings.timezone, settings.first_day_of_week))
        catch_up = settle = 0.0
        lines = 0
        for _, group in itertools.groupby(parsed.read(), key=lambda e: e.source):  # one source line at a time
            store.append([NewEvent(e.event_id, e.event, _utc(e.occurred_at), e.agent, e.source) for e in group])
            started = time.process_time()
            projector.catch_up(batch=250, max_events=250, settle=False)
            catch_up += time.process_time() - started
            lines += 1
            if settle_every and lines % settle_every == 0:
                started = time.process_time()
                projector.settle()
                settle += time.process_time() - started
        started = time.process_time()
        projector.settle()
        settle += time.process_time() - started
        live = _blocks(projector)
        messages = int(projector.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        projector.rebuild()
        same = _blocks(projector) == live
        projector.close()
        return {"turns": turns, "lines": lines, "settle_every": settle_every, "messages": messages,
                "events": store.count(), "catch_up_cpu_s": catch_up,
                "settle_cpu_s": settle, "cpu_s": catch_up + settle, "rebuild_same_blocks": same}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _utc(text: str) -> Any:
    from tapestryd.events import parse_utc

    return parse_utc(text)


def _blocks(projector: Any) -> list[tuple[Any, ...]]:
    from tapestryd.projections import blocks

    conn = projector.conn
    documents = [row for t in blocks.shard_tables(conn) for row in conn.execute(f"SELECT rowid, text FROM {t}")]
    return [*conn.execute("SELECT id, conversation, size, dirty FROM conversation_blocks ORDER BY id"),
            *sorted(documents)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--settle-every", type=int, default=0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.turns, args.settle_every)))
        return
    runs = []
    for _ in range(args.runs):  # each in a fresh process
        out = subprocess.run([sys.executable, __file__, "--child", "--turns", str(args.turns),
                              "--settle-every", str(args.settle_every)],
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(json.dumps(runs[-1]), flush=True)
    summary = {**runs[0], "runs": len(runs), **{key: statistics.median(r[key] for r in runs)
                                                for key in ("catch_up_cpu_s", "settle_cpu_s", "cpu_s")},
               "rebuild_same_blocks": all(r["rebuild_same_blocks"] for r in runs)}
    OUT.mkdir(exist_ok=True)
    (OUT / "tail.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
