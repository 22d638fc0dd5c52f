"""Benchmark: the summary hierarchy over a generated two-year history, with the extractive provider.

Run: python bench/hierarchy_bench.py [--conversations 5000] [--days 730]

In a fresh home under ``bench/out/hierarchy-home``:

1. append ``--conversations`` conversations (two agents, 6–30 messages each, some running
   over two or three days, text from :mod:`textgen`) through the event store and
   projector, and time the projection (messages + hierarchy);
2. close every day and build the whole tree (``iterate``: bottom-up, with telescoping
   context) with the extractive provider; time it and count provider calls;
3. append one late message for a day three weeks before the end, run again and count the
   provider calls it costs (the floor is 5: L0, L1, L2, L3, L4);
4. replay the whole log into the projections (``rebuild``), time it, count provider calls
   (must be 0) and compare the tree with the one before;
5. time the hierarchy section of ``status`` (counts, recorded checks, grade) and a live run
   of the structural checks.

Prints the figures and writes them to ``bench/out/hierarchy_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from textgen import TextGen

from tapestryd.clock import FixedClock
from tapestryd.config import load_settings
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import Target, summarize_dirty
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import hierarchy_status, status_view
from tapestryd.summarize import Budget, ExtractiveSummarizer, Summary, SummaryRequest

OUT = Path(__file__).resolve().parent / "out"
AGENTS = ("claude-code", "chatgpt")
START = date(2024, 1, 1)


class CountingExtractive(ExtractiveSummarizer):
    """The extractive provider, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        self.calls += 1
        return super().summarize(request, budget)


def generate(conversations: int, days: int, seed: int = 11) -> list[NewEvent]:
    """The history: conversations spread evenly over ``days`` days, in time order."""
    rng, text, events = random.Random(seed), TextGen(seed), []
    for index in range(conversations):
        agent, conv = AGENTS[index % 2], f"{AGENTS[index % 2]}:bench-{index}"
        day = START + timedelta(days=index * days // conversations)
        at = datetime(day.year, day.month, day.day, rng.randint(7, 20), rng.randint(0, 59), tzinfo=timezone.utc)
        step = timedelta(hours=rng.choice((0.05, 0.05, 0.05, 3, 9)))
        for i in range(rng.randint(6, 30)):
            body = MessageRecorded(conv, f"m{i}", "user" if i % 2 == 0 else "assistant",
                                   text.text(8, 40) if i % 2 == 0 else text.text(30, 160), format_utc(at))
            events.append(NewEvent(event_id("bench", conv, str(i)), body, at, agent=agent, source=f"bench:{conv}"))
            at += step
    return sorted(events, key=lambda e: e.occurred_at)


def timed(fn: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def snapshot(runtime: Runtime) -> dict[str, tuple[Any, ...]]:
    return {r[0]: tuple(r[1:]) for r in runtime.projector.conn.execute(
        "SELECT key, state, fingerprint, summarized_fingerprint, title, summary FROM nodes")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=5000)
    parser.add_argument("--days", type=int, default=730)
    args = parser.parse_args()
    home = OUT / "hierarchy-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    settings = load_settings(home)
    end = START + timedelta(days=args.days)
    clock = FixedClock(datetime(end.year, end.month, end.day, 12, tzinfo=timezone.utc) + timedelta(days=400))
    figures: dict[str, Any] = {"conversations": args.conversations, "days": args.days}
    with Runtime.open(settings) as runtime:
        events = generate(args.conversations, args.days)
        figures["messages"] = len(events)
        figures["message_chars"] = sum(len(e.event.text) for e in events)  # type: ignore[attr-defined]
        _, figures["append_s"] = timed(lambda: [runtime.store.append(events[i:i + 5000])
                                                for i in range(0, len(events), 5000)])
        _, figures["project_s"] = timed(runtime.projector.catch_up)
        figures["nodes"] = runtime.projector.conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0]
        figures.update(build(runtime, clock))
        figures.update(late_message(runtime, clock, end - timedelta(days=21)))
        figures.update(rebuild(runtime))
    with Reader.open(settings) as reader:
        _, figures["status_s"] = timed(lambda: status_view(reader))
        status, figures["checks_s"] = timed(lambda: hierarchy_status(reader, checks=True))
        figures["grade"] = status["grade"]
        figures["compression_l1"] = l1_compression(reader)
    report(figures)


def build(runtime: Runtime, clock: FixedClock) -> dict[str, Any]:
    provider = CountingExtractive()
    _, close_s = timed(lambda: close_days(runtime, clock))
    report_, build_s = timed(lambda: summarize_dirty(Target.of(runtime), provider))
    return {"close_days_s": close_s, "build_s": build_s, "build_calls": provider.calls,
            "build_summarized": report_.summarized, "build_remaining": report_.remaining,
            "build_nodes_per_s": report_.summarized / build_s}


def late_message(runtime: Runtime, clock: FixedClock, day: date) -> dict[str, Any]:
    conv = runtime.projector.conn.execute(
        "SELECT conversation FROM nodes WHERE level = 0 AND period_start = ? ORDER BY key LIMIT 1",
        (day.isoformat(),)).fetchone()[0]
    at = datetime(day.year, day.month, day.day, 23, 0, tzinfo=timezone.utc)
    body = MessageRecorded(conv, "late", "user", "One more thing: the Gotland ferry leaves at 07:10 on 12 June.",
                           format_utc(at))
    runtime.store.append([NewEvent(event_id("bench", "late"), body, at, agent=conv.split(":")[0])])
    runtime.projector.catch_up()
    dirty = runtime.projector.conn.execute("SELECT COUNT(*) FROM nodes WHERE state = 'dirty'").fetchone()[0]
    provider = CountingExtractive()
    _, seconds = timed(lambda: summarize_dirty(Target.of(runtime), provider))
    return {"late_day": day.isoformat(), "late_dirty_nodes": dirty, "late_calls": provider.calls, "late_s": seconds}


def rebuild(runtime: Runtime) -> dict[str, Any]:
    before = snapshot(runtime)
    provider = CountingExtractive()
    replayed, seconds = timed(runtime.projector.rebuild)
    return {"rebuild_events": replayed, "rebuild_s": seconds, "rebuild_calls": provider.calls,
            "rebuild_identical": snapshot(runtime) == before}


def l1_compression(reader: Reader) -> float:
    src, out = reader.conn.execute(
        "SELECT SUM(source_chars), SUM(LENGTH(summary)) FROM nodes WHERE level = 1").fetchone()
    return round(src / out, 1) if out else 0.0


def report(figures: dict[str, Any]) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / "hierarchy_bench.json").write_text(json.dumps(figures, indent=2, default=str))
    print(f"history: {figures['conversations']} conversations, {figures['messages']} messages "
          f"({figures['message_chars'] / 1e6:.1f} M chars) over {figures['days']} days → {figures['nodes']} nodes")
    print(f"append {figures['append_s']:.1f} s; project (messages + hierarchy) {figures['project_s']:.1f} s")
    print(f"build with extractive: {figures['build_s']:.1f} s for {figures['build_summarized']} nodes "
          f"({figures['build_nodes_per_s']:.0f} nodes/s), {figures['build_calls']} provider calls, "
          f"{figures['build_remaining']} left; closing days {figures['close_days_s']:.2f} s")
    print(f"one late message on {figures['late_day']}: {figures['late_dirty_nodes']} nodes dirty, "
          f"{figures['late_calls']} provider calls, {figures['late_s']:.2f} s")
    print(f"rebuild from the log: {figures['rebuild_events']} events in {figures['rebuild_s']:.1f} s, "
          f"{figures['rebuild_calls']} provider calls, identical tree: {figures['rebuild_identical']}")
    print(f"status (hierarchy section): {figures['status_s'] * 1000:.0f} ms; structural checks run live: "
          f"{figures['checks_s'] * 1000:.0f} ms, grade {figures['grade']}; "
          f"L1 compression {figures['compression_l1']}:1")


if __name__ == "__main__":
    main()
