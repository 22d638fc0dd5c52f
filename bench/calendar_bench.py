"""Benchmark: server time of the calendar's month page with a million messages stored.

Run: python bench/calendar_bench.py [--messages 1000000] [--repeats 20]

Builds (once, then reuses) a home under ``bench/out/calendar-home`` through the real event
store and projector: ``--messages`` messages over two years (2024–2025, UTC) in conversations
of about 200 messages each, three agents, every day closed and every node L0–L4 summarized
with a NodeSummarized event, as after a full ``tapestryctl iterate``. Then renders every
month page (and a day panel, the status endpoint) in process through Flask's test client
and prints the median and p95 server time per request; writes bench/out/calendar_bench.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from tapestryd.clock import FixedClock
from tapestryd.config import load_settings
from tapestryd.events.store import EventStore
from tapestryd.events.types import DayClosed, MessageRecorded, NewEvent, NodeSummarized, event_id
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections
from tapestryd.web import create_app

OUT = Path(__file__).resolve().parent / "out"
AGENTS = ("claude-code", "chatgpt", "claude-ai")
START, DAYS = date(2024, 1, 1), 731
WORDS = ("sqlite lock test garden garlic deploy kernel budget invoice python rust tokio schema index query "
         "migration refactor review bug fix cache latency summary calendar week month").split()
BATCH = 20_000


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _conversation(rng: random.Random, index: int, size: int) -> list[NewEvent]:
    """``size`` messages of one conversation over one to three consecutive days."""
    agent = AGENTS[index % len(AGENTS)]
    conv, day = f"{agent}:bench-{index}", START + timedelta(days=rng.randrange(DAYS - 3))
    start = datetime(day.year, day.month, day.day, 8, tzinfo=timezone.utc)
    span = rng.choice((1, 1, 2, 3)) * 86400 - 10 * 3600
    events = []
    for i in range(size):
        at = start + timedelta(seconds=span * i // size)
        msg = MessageRecorded(conv, f"m{i}", "user" if i % 2 == 0 else "assistant", _text(rng, 24),
                              at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
        events.append(NewEvent(event_id("bench", conv, str(i)), msg, at, agent=agent, source=f"bench:{conv}"))
    return events


def build(home: Path, messages: int) -> None:
    """Append the generated history, close every day, summarize every node; print the timings."""
    settings = load_settings(home)
    paths = paths_for(settings)
    paths.ensure()
    rng = random.Random(7)
    with EventStore(paths.events_db) as store:
        projector = Projector(store, paths.projections_db, default_projections("UTC", 0))
        try:
            began = time.perf_counter()
            _append_messages(store, projector, rng, messages)
            print(f"  {messages} messages appended and projected in {time.perf_counter() - began:.0f} s", flush=True)
            closes = [NewEvent(event_id("bench-close", str(START + timedelta(days=d))),
                               DayClosed(str(START + timedelta(days=d)), "UTC"), datetime.now(timezone.utc))
                      for d in range(DAYS)]
            store.append(closes)
            projector.catch_up()
            _summarize_all(store, projector, rng)
        finally:
            projector.close()


def _append_messages(store: EventStore, projector: Projector, rng: random.Random, messages: int) -> None:
    pending: list[NewEvent] = []
    for index in range(max(1, messages // 200)):
        pending += _conversation(rng, index, 200)
        if len(pending) >= BATCH:
            store.append(pending)
            projector.catch_up()
            pending = []
    if pending:
        store.append(pending)
        projector.catch_up()


def _summarize_all(store: EventStore, projector: Projector, rng: random.Random) -> None:
    """One NodeSummarized per node, bottom-up, as iterate would append them."""
    began = time.perf_counter()
    count = 0
    for level in range(5):
        rows = projector.conn.execute("SELECT key, fingerprint FROM nodes WHERE level = ?", (level,)).fetchall()
        events = [NewEvent(event_id("bench-summary", key), NodeSummarized(
            key, level, fp, "extractive", "", "bench", _text(rng, 5), _text(rng, 40 + 20 * level),
            {"calls": 1, "tokens_in": 100, "tokens_out": 50}), datetime.now(timezone.utc), agent=key.split(":")[1])
            for key, fp in rows]
        for i in range(0, len(events), BATCH):
            store.append(events[i:i + BATCH])
            projector.catch_up()
        count += len(events)
    print(f"  {count} nodes summarized in {time.perf_counter() - began:.0f} s", flush=True)


def stored_messages(home: Path) -> int:
    """How many messages the home's projections hold (0 when none)."""
    import sqlite3

    db = home / "projections.db"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0])
        except sqlite3.Error:
            return 0


def timed(client: object, url: str, repeats: int) -> list[float]:
    """Milliseconds per request of ``url`` over ``repeats`` runs (status 200 asserted)."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return times


def summary(times: list[float]) -> dict[str, float]:
    """Median, p95 and max of ``times`` (ms)."""
    ordered = sorted(times)
    return {"median_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
            "max_ms": round(ordered[-1], 2), "n": len(ordered)}


def measure(home: Path, repeats: int) -> dict[str, object]:
    """Time every month page, one busy day panel, the node view and the status endpoint."""
    app = create_app(load_settings(home), clock=FixedClock(datetime(2026, 1, 15, tzinfo=timezone.utc)))
    client = app.test_client()
    months = [f"{y}-{m:02d}" for y in (2024, 2025) for m in range(1, 13)]
    first = timed(client, "/month/2024-01", 1)  # the first request compiles the templates
    pages = [t for ym in months for t in timed(client, f"/month/{ym}", repeats)]
    day, month_node = _busiest(home)
    return {
        "first_request_ms": round(first[0], 2),
        "database_mb": {db.name: round(db.stat().st_size / 2**20) for db in sorted(home.glob("*.db"))},
        "month_page": summary(pages),
        "month_page_with_busiest_day_panel": summary(timed(client, f"/month/{day[:7]}?day={day}", repeats)),
        "node_view_busiest_month": summary(timed(client, f"/node?key={month_node}", repeats)),
        "status_api": summary(timed(client, "/api/status", repeats)),
    }


def _busiest(home: Path) -> tuple[str, str]:
    """The local day with the most segments and the month node with the most messages."""
    import sqlite3

    with sqlite3.connect(home / "projections.db") as conn:
        day = conn.execute("SELECT period_start FROM nodes WHERE level = 0 GROUP BY period_start"
                           " ORDER BY COUNT(*) DESC LIMIT 1").fetchone()[0]
        month = conn.execute("SELECT key FROM nodes WHERE level = 3 ORDER BY message_count DESC LIMIT 1").fetchone()[0]
    return str(day), str(month)


def main() -> int:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--home", type=Path, default=OUT / "calendar-home")
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    (args.home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    have = stored_messages(args.home)
    if have < args.messages:
        print(f"building {args.messages} messages in {args.home} (have {have})", flush=True)
        build(args.home, args.messages)
    stored = stored_messages(args.home)
    result = {"messages": stored, "repeats": args.repeats, **measure(args.home, args.repeats)}
    for name, figures in result.items():
        print(f"{name:28} {figures}")
    (OUT / "calendar_bench.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
