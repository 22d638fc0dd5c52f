"""Benchmark: context, search and similar at one million messages and ~20,000 summary nodes.

Run: python bench/query_bench.py [--messages 1000000] [--repeats 200]

Builds (once, then reuses) ``bench/out/query-home`` through the real event store and
projector: ``--messages`` messages in conversations of 50 (Zipf-distributed words from
:mod:`bench.textgen`, 20–60 words each) over the two years up to today, for three agents
(Claude Code sessions in ten project folders), every past day closed and every closed node
summarized bottom-up with a NodeSummarized event, as after ``tapestryctl iterate``.

Then measures, printing medians and p95 and writing ``bench/out/query_bench.json``:

* the warm index in this process: fit time, documents, vocabulary, matrix bytes, resident
  memory before and after, and the cost of folding 1,000 new messages in (no refit);
* through a running ``tapestryd`` (socket round trips): ``context`` (plain, under the hook's
  budget, scoped to a project, the short block), ``search`` (words, words with a time
  phrase, summaries only) and ``similar`` (all documents, summaries only);
* whole ``tapestryctl`` processes on the fast path: ``context`` and ``context --hook``;
* one ``similar`` with no daemon (the index built for that one answer), the shape of
  python-tapestry's 6.7 s query over 3,342 summaries.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from textgen import TOPIC_WORDS, TextGen  # noqa: E402

from tapestryd.config import load_settings  # noqa: E402
from tapestryd.errors import DaemonError  # noqa: E402
from tapestryd.events.store import EventStore  # noqa: E402
from tapestryd.events.types import (  # noqa: E402
    DayClosed,
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
)
from tapestryd.paths import paths_for  # noqa: E402
from tapestryd.projections import Projector, default_projections  # noqa: E402
from tapestryd.projections.tfidf import SimilarityIndex  # noqa: E402
from tapestryd.wire.client import request  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
HOME = OUT / "query-home"
AGENTS = ("claude-code", "chatgpt", "claude-ai")
PROJECTS = [f"/home/me/code/project{n}" for n in range(10)]
PER_CONVERSATION = 50
DAYS = 730
BATCH = 20_000


def build(home: Path, messages: int) -> dict[str, float]:
    """Append the history, close past days, summarize closed nodes; returns timings (s)."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    paths = paths_for(load_settings(home))
    paths.ensure()
    today = datetime.now(timezone.utc).date()
    timings: dict[str, float] = {}
    with EventStore(paths.events_db) as store:
        projector = Projector(store, paths.projections_db, default_projections("UTC", 0))
        try:
            began = time.perf_counter()
            _append(store, projector, _conversations(messages, today))
            timings["messages_s"] = time.perf_counter() - began
            began = time.perf_counter()
            _close_days(store, projector, today)
            timings["summaries"] = _summarize_closed(store, projector)
            timings["summaries_s"] = time.perf_counter() - began
        finally:
            projector.close()
    (home / "built.json").write_text(json.dumps({"messages": messages, "today": today.isoformat(), **timings}))
    return timings


def _conversations(messages: int, today: date) -> Any:
    """Yield each generated conversation's events (50 messages, 2 minutes apart, one day)."""
    rng, text = random.Random(11), TextGen(seed=11)
    now = datetime.now(timezone.utc)
    for index in range(messages // PER_CONVERSATION):
        agent = AGENTS[index % len(AGENTS)]
        day = today - timedelta(days=rng.randrange(DAYS))
        start = datetime(day.year, day.month, day.day, rng.randrange(6, 20), rng.randrange(60), tzinfo=timezone.utc)
        if start > now - timedelta(hours=2):
            start = now - timedelta(hours=2)
        conv = f"{agent}:bench-{index}"
        meta = {"cwd": PROJECTS[index % len(PROJECTS)]} if agent == "claude-code" else {}
        yield [NewEvent(event_id("qbench", conv, str(i)),
                        MessageRecorded(conv, f"m{i}", "user" if i % 2 == 0 else "assistant", text.text(20, 60),
                                        (start + timedelta(minutes=2 * i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                                        session=f"bench-{index}", meta=meta),
                        start + timedelta(minutes=2 * i), agent=agent, source=f"bench:{conv}")
               for i in range(PER_CONVERSATION)]


def _append(store: EventStore, projector: Projector, conversations: Any) -> None:
    pending: list[NewEvent] = []
    done = 0
    for events in conversations:
        pending += events
        if len(pending) >= BATCH:
            store.append(pending)
            projector.catch_up()
            done += len(pending)
            pending = []
            print(f"  {done} messages projected", flush=True)
    if pending:
        store.append(pending)
        projector.catch_up()


def _close_days(store: EventStore, projector: Projector, today: date) -> None:
    closes = [NewEvent(event_id("qbench-close", str(today - timedelta(days=d))),
                       DayClosed(str(today - timedelta(days=d)), "UTC"), datetime.now(timezone.utc))
              for d in range(1, DAYS + 2)]
    store.append(closes)
    projector.catch_up()


def _summarize_closed(store: EventStore, projector: Projector) -> int:
    """One NodeSummarized per closed node, level by level (a parent's input is its children's summaries)."""
    text, count = TextGen(seed=13), 0
    for level in range(5):
        rows = projector.conn.execute("SELECT key, fingerprint FROM nodes WHERE level = ? AND closed = 1",
                                      (level,)).fetchall()
        events = [NewEvent(event_id("qbench-summary", key, fp), NodeSummarized(
            key, level, fp, "extractive", "", "bench", text.text(3, 7), text.text(60 + 30 * level, 90 + 40 * level),
            {"calls": 1, "tokens_in": 1000, "tokens_out": 100}), datetime.now(timezone.utc), agent=key.split(":")[1])
            for key, fp in rows]
        for i in range(0, len(events), BATCH):
            store.append(events[i:i + BATCH])
            projector.catch_up()
        count += len(events)
        print(f"  L{level}: {len(events)} nodes summarized", flush=True)
    return count


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process (MB), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stats(seconds: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {"median_ms": round(statistics.median(ms), 2), "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
            "max_ms": round(ms[-1], 2), "n": len(ms)}


def timed(call: Callable[[], Any], repeats: int) -> dict[str, float]:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        times.append(time.perf_counter() - began)
    return stats(times)


def measure_index(home: Path) -> dict[str, Any]:
    """Fit the warm index here; memory, fit time, and folding in 1,000 new messages."""
    db = paths_for(load_settings(home)).projections_db
    before = rss_mb()
    index = SimilarityIndex(db)
    index.build()
    fitted = {**index.status(), "rss_before_mb": round(before, 1), "rss_after_mb": round(rss_mb(), 1),
              "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    fitted["refresh_1000"] = _fold_in(home, index)
    index.stop()
    return fitted


def _fold_in(home: Path, index: SimilarityIndex) -> dict[str, Any]:
    settings = load_settings(home)
    paths, stamp, text = paths_for(settings), str(time.time_ns()), TextGen(seed=17)
    at = datetime.now(timezone.utc) - timedelta(minutes=30)
    events = [NewEvent(event_id("qbench-new", stamp, str(i)), MessageRecorded(
        f"chatgpt:new-{stamp}", f"m{i}", "user", text.text(20, 60), at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
        at, agent="chatgpt", source="bench") for i in range(1000)]
    with EventStore(paths.events_db) as store:
        projector = Projector(store, paths.projections_db, default_projections("UTC", 0))
        store.append(events)
        projector.catch_up()
        projector.close()
    began = time.perf_counter()
    changed = index.refresh()
    return {"documents": changed, "seconds": round(time.perf_counter() - began, 3), "refitted": False}


def start_daemon(home: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    log = (OUT / "query_bench_daemon.log").open("ab")
    proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    sock = paths_for(load_settings(home)).socket
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if request(sock, "ping", timeout=2):
                return proc
        except DaemonError:
            time.sleep(0.2)
    raise SystemExit("tapestryd did not start within 300 s")


def wait_warm(sock: Path) -> tuple[float, dict[str, Any]]:
    """Seconds until the daemon's similarity index is warm and not refitting, and its status.

    ``similar`` answers at once from the full-text index while the warm index is fitted
    (marked ``warm: false``), so the answer's ``index`` is polled rather than its errors.
    """
    began = time.perf_counter()
    while True:
        try:
            index = request(sock, "similar", {"query": "sqlite index query", "top": 1}, timeout=60)["index"]
            if index.get("warm") and not index.get("refitting"):
                return time.perf_counter() - began, index
        except DaemonError as exc:
            if "still being built" not in exc.message:
                raise
        time.sleep(1)


def queries(count: int) -> dict[str, list[str]]:
    rng, text = random.Random(5), TextGen(seed=5)
    words = [w for w in text.vocab[60:4000]]
    plain = [" ".join(rng.sample(TOPIC_WORDS, 1) + rng.sample(words, rng.randint(1, 2))) for _ in range(count)]
    phrases = ["yesterday", "last week", "in July", "since March", "3 days ago", "last month"]
    timed_q = [f"{rng.choice(TOPIC_WORDS)} {rng.choice(phrases)}" for _ in range(count)]
    similar_q = [" ".join(text.words(rng.randint(6, 12))) for _ in range(count)]
    return {"plain": plain, "timed": timed_q, "similar": similar_q}


def measure_socket(home: Path, repeats: int) -> dict[str, Any]:
    sock = paths_for(load_settings(home)).socket
    proc = start_daemon(home)
    try:
        warm_s, index = wait_warm(sock)
        qs = queries(repeats)
        it = {k: iter(v * 2) for k, v in qs.items()}
        result: dict[str, Any] = {"daemon_rss_mb": round(rss_mb(proc.pid), 1), "index_ready_after_s": round(warm_s, 1),
                                  "index": index}
        ask = lambda op, args: lambda: request(sock, op, args, timeout=30)  # noqa: E731
        result["context"] = timed(ask("context", {}), repeats)
        result["context_hook_budget"] = timed(ask("context", {"format": "markdown", "max_tokens": 2400}), repeats)
        result["context_project"] = timed(ask("context", {"project": PROJECTS[3], "format": "markdown",
                                                          "max_tokens": 2400}), repeats)
        result["context_now_block"] = timed(ask("context", {"project": PROJECTS[3], "now_only": True}), repeats)
        result["search"] = timed(lambda: request(sock, "search", {"query": next(it["plain"])}, timeout=30), repeats)
        result["search_time_phrase"] = timed(lambda: request(sock, "search", {"query": next(it["timed"])},
                                                             timeout=30), repeats)
        result["search_summaries"] = timed(lambda: request(sock, "search", {"query": next(it["plain"]),
                                                                            "level": "summaries"}, timeout=30), repeats)
        result["similar"] = timed(lambda: request(sock, "similar", {"query": next(it["similar"])}, timeout=30),
                                  repeats)
        result["similar_summaries"] = timed(lambda: request(sock, "similar", {"query": next(it["similar"]),
                                                                              "level": "summaries"}, timeout=30),
                                            repeats)
        result["cli_context_process"] = timed(lambda: _ctl(home, ["context", "-f", "markdown", "--max-tokens", "2400"]),
                                              20)
        hook = json.dumps({"session_id": "bench", "cwd": PROJECTS[3], "hook_event_name": "UserPromptSubmit",
                           "prompt": "go on", "transcript_path": ""})
        result["cli_hook_process"] = timed(lambda: _ctl(home, ["context", "--hook"], hook), 20)
        result["daemon_rss_after_mb"] = round(rss_mb(proc.pid), 1)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return result


def _ctl(home: Path, args: list[str], stdin: str = "") -> None:
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "tapestryd.cli", *args], input=stdin.encode(), env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def measure_cold(home: Path) -> dict[str, Any]:
    """One similar with no daemon: the CLI builds the index for its one answer."""
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "similar", "sqlite index latency budget",
                           "--level", "summaries", "-f", "json"], env=env, capture_output=True, text=True)
    return {"seconds": round(time.perf_counter() - began, 1), "ok": done.returncode == 0,
            "note": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--home", type=Path, default=HOME)
    args = parser.parse_args(argv)
    OUT.mkdir(exist_ok=True)
    built = json.loads((args.home / "built.json").read_text()) if (args.home / "built.json").exists() else None
    if built is None or built["messages"] != args.messages:
        print(f"building {args.home} with {args.messages} messages (once)", flush=True)
        build(args.home, args.messages)
        built = json.loads((args.home / "built.json").read_text())
    db = paths_for(load_settings(args.home)).projections_db
    import sqlite3

    with sqlite3.connect(db) as conn:
        counts = {"messages": conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0],
                  "nodes": conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0],
                  "summarized_nodes": conn.execute("SELECT COUNT(*) FROM nodes WHERE summary != ''").fetchone()[0]}
    print(f"home: {counts}", flush=True)
    report: dict[str, Any] = {"built": built, "counts": counts}
    report["index_in_process"] = measure_index(args.home)
    print(json.dumps(report["index_in_process"]), flush=True)
    report["socket"] = measure_socket(args.home, args.repeats)
    report["cold_similar_without_daemon"] = measure_cold(args.home)
    (OUT / "query_bench.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
