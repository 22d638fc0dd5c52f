"""Search latency (median, p95) over 100k and 1M messages through ``search_messages``, against bare FTS5.

For each size a home is built once (cached in ``bench/out/search-<N>/``): conversations of
chat-like text (Zipf-distributed words, see ``textgen.py``) are appended to the event log
as ``MessageRecorded`` events and projected by the real messages projection (FTS5, BM25).
Then a fixed, seeded mix of queries runs through
:func:`tapestryd.queries.search.search_messages` on a read-only Reader: one, two and three
topic words, rare words, and queries narrowed by agent or role. Latency is wall time per
call after a warm-up, in milliseconds, the best of three runs per query (and the first).
The same words are also asked of FTS5 bare, ``SELECT rowid, bm25(messages_fts) FROM
messages_fts WHERE messages_fts MATCH ? ORDER BY bm25(messages_fts) LIMIT 20``, with every
word required (``bare``) and with any word (``bare_any``, the candidates search reranks),
filters left out; the ratio of search's median to bare's is printed (issue 13: within 3×). CPU time
(``time.process_time``, the best of the same runs) is printed beside wall time: on a loaded
machine it moves less.

With ``--compare`` each query is also ranked exactly (every match scored by BM25, no
window; see :mod:`tapestryd.projections.messages_search`) and the top 10 compared with the bounded
ranking ``search`` uses: same order, same set, mean overlap, how close the bounded BM25
scores come to the exact ones, and the exact latency.

With ``--ids FILE`` the top 20 message ids of each query (search's ranking) are written to FILE;
with ``--agree-with FILE`` (such a file, from another checkout or setting) the top 10 of each
query are compared with it: same order, same set, mean overlap (a change meant to keep the answers
shows 100%).

With ``--socket`` the same queries are also asked of ``tapestryd`` running on the home,
over its Unix socket (:func:`measure_socket`). Target (issue 14): p95 under 50 ms at 1M
messages through the socket.

Usage: ``python bench/search_bench.py [--sizes 100000 1000000] [--queries 300] [--socket] [--compare]
[--ids FILE] [--agree-with FILE] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from textgen import TOPIC_WORDS, TextGen  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
AGENTS = ("claude-code", "chatgpt", "claude-ai")
START = datetime(2023, 1, 1, tzinfo=timezone.utc)


def quiet() -> None:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def build(home: Path, size: int) -> float:
    """Append ``size`` messages to a fresh home and project them; returns seconds taken."""
    from tapestryd.config import load_settings
    from tapestryd.events.store import EventStore
    from tapestryd.events.types import MessageRecorded, NewEvent, event_id, format_utc
    from tapestryd.paths import paths_for
    from tapestryd.projections import MessagesProjection, Projector

    home.mkdir(parents=True)
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    paths = paths_for(load_settings(home))
    store = EventStore(paths.events_db)
    projector = Projector(store, paths.projections_db, [MessagesProjection()])
    gen = TextGen(3)
    started, batch = time.perf_counter(), []
    for n in range(size):
        conv, agent = n // 12, AGENTS[(n // 12) % 3]
        ts = START + timedelta(minutes=n * 1.5)
        role = "user" if n % 2 == 0 else "assistant"
        text = gen.text(8, 60) if role == "user" else gen.text(40, 250)
        payload = MessageRecorded(f"{agent}:c{conv}", f"m{n}", role, text, format_utc(ts), session=f"c{conv}")
        batch.append(NewEvent(event_id("bench", str(n)), payload, ts, agent, f"bench#{n}"))
        if len(batch) == 5000:
            store.append(batch)
            batch = []
            projector.catch_up(batch=5000)
    store.append(batch)
    projector.catch_up(batch=5000)
    projector.close()
    store.close()
    return time.perf_counter() - started


def queries(count: int, seed: int = 17) -> list[tuple[str, dict[str, str]]]:
    """A seeded mix: 1–3 topic words, a rare made-up word, and agent/role filters."""
    rng, gen = random.Random(seed), TextGen(99)
    rare = gen.vocab[-5000:]
    out = []
    for i in range(count):
        kind = i % 6
        if kind in (0, 1):
            q = rng.choice(TOPIC_WORDS)
        elif kind == 2:
            q = " ".join(rng.sample(TOPIC_WORDS, 2))
        elif kind == 3:
            q = " ".join(rng.sample(TOPIC_WORDS, 3))
        else:
            q = rng.choice(rare) if kind == 4 else rng.choice(TOPIC_WORDS)
        filters = {"agent": rng.choice(AGENTS)} if kind == 5 else {"role": "user"} if i % 12 == 1 else {}
        out.append((q, filters))
    return out


def measure(home: Path, count: int, repeat: int = 3) -> dict[str, Any]:
    """Latency of ``count`` queries on a read-only Reader, each the best of ``repeat`` runs.

    Best-of-``repeat`` takes out the stalls of other processes on a shared machine; the
    first run of each query is reported too (``first_*``).
    """
    from tapestryd.config import load_settings
    from tapestryd.queries.reader import Reader
    from tapestryd.queries.search import SearchFilters, search_messages

    from tapestryd.queries.search import fts_expression

    reader = Reader.open(load_settings(home))
    plan = queries(count)
    for q, f in plan[:20]:
        search_messages(reader, q, SearchFilters(**f))
    bare = {name: _bare(reader.conn, [fts_expression(q, any_term=any_term) for q, _ in plan], repeat)
            for name, any_term in (("bare_", False), ("bare_any_", True))}
    best, first, cpu, hits = [], [], [], 0
    by_words: dict[int, list[float]] = {}
    for q, f in plan:
        runs, cpus = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            found = search_messages(reader, q, SearchFilters(**f))
            runs.append((time.perf_counter() - t) * 1000)
            cpus.append((time.process_time() - c) * 1000)
        hits += bool(found)
        best.append(min(runs))
        first.append(runs[0])
        cpu.append(min(cpus))
        by_words.setdefault(len(q.split()), []).append(min(runs))
    reader.close()
    return {"queries": count, "with_hits": hits, **_stats("", best), **_stats("first_", first), **_stats("cpu_", cpu),
            **{k: v for name, (ms, _) in bare.items() for k, v in _stats(name, ms).items()},
            **{k: v for name, (_, ms) in bare.items() for k, v in _stats(f"cpu_{name}", ms).items()},
            "median_ms_by_words": {n: _stats("", v)["median_ms"] for n, v in sorted(by_words.items())},
            "p95_ms_by_words": {n: _stats("", v)["p95_ms"] for n, v in sorted(by_words.items())}}


def measure_socket(home: Path, count: int, repeat: int = 3) -> dict[str, Any]:
    """Latency of the same queries asked of a running ``tapestryd`` over its socket, each the best of ``repeat``.

    The daemon is started on the home and paused as soon as it answers (closing the home's
    past days and summarizing them would otherwise compete with the queries); its warm
    similarity index and the catching up of its projections are waited for, so neither runs
    beside the queries. Each request is
    ``search`` with the query, its filters and limit 20, on a fresh connection, as
    ``tapestryctl search`` sends it: the time phrase reading, messages and summaries, one
    result per passage, JSON both ways. ``daemon_cpu_ms_per_query`` is the daemon's CPU time
    over the measured requests (``/proc``), divided by their number.
    """
    from daemon_common import cpu_seconds
    from query_bench import start_daemon, wait_warm

    from tapestryd.config import load_settings
    from tapestryd.paths import paths_for
    from tapestryd.wire.client import request

    OUT.mkdir(exist_ok=True)  # start_daemon logs there
    sock = paths_for(load_settings(home)).socket
    proc = start_daemon(home)
    try:
        request(sock, "pause", timeout=30)
        caught_up_s = _caught_up(sock, request)
        warm_s, _ = wait_warm(sock)
        plan = queries(count)
        for q, f in plan[:20]:
            request(sock, "search", {"query": q, "limit": 20, **f}, timeout=60)
        best, cpu_before = [], cpu_seconds(proc.pid)
        for q, f in plan:
            runs = []
            for _ in range(repeat):
                t = time.perf_counter()
                request(sock, "search", {"query": q, "limit": 20, **f}, timeout=60)
                runs.append((time.perf_counter() - t) * 1000)
            best.append(min(runs))
        cpu = (cpu_seconds(proc.pid) - cpu_before) * 1000 / (count * repeat)
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    return {**_stats("socket_", best), "daemon_cpu_ms_per_query": cpu, "index_ready_after_s": warm_s,
            "projections_caught_up_after_s": caught_up_s}


def _caught_up(sock: Path, request: Any) -> float:
    """Seconds until every projection of the daemon has caught up with the log (the hierarchy and
    similarity projections of a home built with messages alone catch up once, at the first start)."""
    began = time.perf_counter()
    while any(request(sock, "status", timeout=60)["projections"]["lag"].values()):
        time.sleep(2)
    return time.perf_counter() - began


def _bare(conn: Any, expressions: list[str], repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of a bare ``MATCH … ORDER BY bm25() LIMIT 20`` per expression, wall and CPU,
    the best of ``repeat``."""
    sql = ("SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ?"
           " ORDER BY bm25(messages_fts) LIMIT 20")
    wall, cpu = [], []
    for expr in expressions:
        runs, cpus = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            conn.execute(sql, (expr,)).fetchall()
            runs.append((time.perf_counter() - t) * 1000)
            cpus.append((time.process_time() - c) * 1000)
        wall.append(min(runs))
        cpu.append(min(cpus))
    return wall, cpu


def agreement(home: Path, count: int, top: int = 10) -> dict[str, Any]:
    """How the bounded FTS5 ranking's top ``top`` compares with exact BM25 (every match ranked).

    Per query: the same ids in the same order, the same ids in any order, the overlap
    (shared ids / ``top``), and the bounded best and ``top``-th BM25 scores as fractions of
    the exact ones; overall, by number of words, and split by whether the words match more
    than ``RANK_WINDOW`` messages (the window applies). Also the exact ranking's latency
    (one run each), for the ratio.
    """
    from tapestryd.config import load_settings
    from tapestryd.projections.messages_search import RANK_WINDOW
    from tapestryd.queries.reader import Reader
    from tapestryd.queries.search import SearchFilters, fts_expression, fts_ranking

    reader = Reader.open(load_settings(home))
    rows: list[tuple[int, bool, tuple[bool, bool, float, float, float]]] = []
    exact_ms = []
    for q, f in queries(count):
        bounded = fts_ranking(reader, q, SearchFilters(**f), limit=top)
        t = time.perf_counter()
        exact = fts_ranking(reader, q, SearchFilters(**f), limit=top, window=None)
        exact_ms.append((time.perf_counter() - t) * 1000)
        matches = reader.conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?",
                                      (fts_expression(q),)).fetchone()[0]
        rows.append((len(q.split()), matches > RANK_WINDOW, _compared(bounded, exact)))
    reader.close()
    return {"top": top, **_agreed([r for _, _, r in rows]),
            "by_words": {n: _agreed([r for w, _, r in rows if w == n]) for n in sorted({w for w, _, _ in rows})},
            "window_applied": {"queries": sum(a for _, a, _ in rows), **_agreed([r for _, a, r in rows if a])},
            **_stats("exact_", exact_ms)}


def ranked_ids(home: Path, count: int) -> list[dict[str, Any]]:
    """The top 20 message ids search gives each of the ``count`` queries: ``[{query, filters, ids}]``."""
    from tapestryd.config import load_settings
    from tapestryd.queries.reader import Reader
    from tapestryd.queries.search import SearchFilters, search_messages

    with Reader.open(load_settings(home)) as reader:
        return [{"query": q, "filters": f, "ids": [h.id for h in search_messages(reader, q, SearchFilters(**f))]}
                for q, f in queries(count)]


def agreed_with(mine: list[dict[str, Any]], theirs: list[dict[str, Any]], top: int = 10) -> dict[str, float]:
    """How the top ``top`` of ``mine`` compare with ``theirs`` (the same queries, in order): the share of
    queries with the same ids in the same order, with the same ids, and the mean overlap."""
    pairs = [(a["ids"][:top], b["ids"][:top]) for a, b in zip(mine, theirs, strict=True)
             if a["query"] == b["query"] and a["filters"] == b["filters"]]
    if len(pairs) != len(mine):
        raise SystemExit("--agree-with: the file holds other queries")
    return {"queries": len(pairs), "same_order": statistics.mean(float(a == b) for a, b in pairs),
            "same_set": statistics.mean(float(set(a) == set(b)) for a, b in pairs),
            "mean_overlap": statistics.mean(len(set(a) & set(b)) / max(1, len(b)) for a, b in pairs)}


def _compared(bounded: list[tuple[int, float]], exact: list[tuple[int, float]]) -> tuple[bool, bool, float, float,
                                                                                           float]:
    ids, exact_ids = [i for i, _ in bounded], [i for i, _ in exact]
    if not exact:
        return ids == exact_ids, True, 1.0, 1.0, 1.0
    return (ids == exact_ids, set(ids) == set(exact_ids), len(set(ids) & set(exact_ids)) / len(exact_ids),
            bounded[0][1] / exact[0][1], bounded[-1][1] / exact[-1][1])


def _agreed(rows: list[tuple[bool, bool, float, float, float]]) -> dict[str, float]:
    if not rows:
        return {}
    names = ("same_order", "same_set", "mean_overlap", "best_score_ratio", "last_score_ratio")
    return {name: statistics.mean(float(r[k]) for r in rows) for k, name in enumerate(names)}


def _stats(prefix: str, values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return {f"{prefix}median_ms": statistics.median(ordered), f"{prefix}p95_ms": p95, f"{prefix}max_ms": ordered[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--out", type=Path, default=OUT,
                        help="where the homes (search-<N>/) are cached and search.json written (default bench/out)")
    parser.add_argument("--socket", action="store_true",
                        help="also ask the same queries of a running tapestryd over its socket (issue 14: p95 < 50 ms)")
    parser.add_argument("--compare", action="store_true",
                        help="also rank every match (exact BM25) and report top-10 agreement and its latency")
    parser.add_argument("--ids", type=Path, default=None, help="write each query's top 20 message ids here (JSON)")
    parser.add_argument("--agree-with", type=Path, default=None,
                        help="compare each query's top 10 with such a file (from another checkout or setting)")
    args = parser.parse_args()
    quiet()
    results = []
    for size in args.sizes:
        home = args.out / f"search-{size}"
        built = None if (home / "projections.db").exists() else build(home, size)
        result = {"messages": size, "build_s": built, **measure(home, args.queries)}
        print(f"{size:>9} messages: median {result['median_ms']:6.1f} ms  p95 {result['p95_ms']:6.1f} ms"
              f"  max {result['max_ms']:6.1f} ms  (first runs: median {result['first_median_ms']:.1f}, p95"
              f" {result['first_p95_ms']:.1f}; by words: median {_rounded(result['median_ms_by_words'])},"
              f" p95 {_rounded(result['p95_ms_by_words'])}; {result['with_hits']}/{args.queries} found something"
              + (f"; built in {built:.0f} s" if built else "") + ")", flush=True)
        print(f"{'':>9} bare FTS5 MATCH … ORDER BY bm25() LIMIT 20: every word median {result['bare_median_ms']:.1f}"
              f" ms p95 {result['bare_p95_ms']:.1f}; any word median {result['bare_any_median_ms']:.1f} ms p95"
              f" {result['bare_any_p95_ms']:.1f}; search median / bare median"
              f" {result['median_ms'] / result['bare_median_ms']:.2f}x (any word:"
              f" {result['median_ms'] / result['bare_any_median_ms']:.2f}x)", flush=True)
        print(f"{'':>9} CPU time: search median {result['cpu_median_ms']:.1f} ms p95 {result['cpu_p95_ms']:.1f}; bare"
              f" every word median {result['cpu_bare_median_ms']:.1f} ms p95 {result['cpu_bare_p95_ms']:.1f}; search /"
              f" bare {result['cpu_median_ms'] / result['cpu_bare_median_ms']:.2f}x", flush=True)
        if args.ids or args.agree_with:
            mine = ranked_ids(home, args.queries)
            if args.ids:
                args.ids.write_text(json.dumps(mine))
            if args.agree_with:
                result["agreement_with_file"] = same = agreed_with(mine, json.loads(args.agree_with.read_text()))
                print(f"{'':>9} top 10 against {args.agree_with}: same order {same['same_order']:.0%}, same set"
                      f" {same['same_set']:.0%}, mean overlap {same['mean_overlap']:.1%}", flush=True)
        if args.socket:
            result.update(measure_socket(home, args.queries))
            print(f"{'':>9} through the socket (tapestryd, search op): median {result['socket_median_ms']:.1f} ms p95"
                  f" {result['socket_p95_ms']:.1f} ms max {result['socket_max_ms']:.1f} ms; daemon CPU"
                  f" {result['daemon_cpu_ms_per_query']:.1f} ms a query", flush=True)
        if args.compare:
            result["agreement"] = agreed = agreement(home, args.queries)
            words = ", ".join(f"{n} words {a['same_order']:.0%}/{a['mean_overlap']:.0%}"
                              for n, a in agreed["by_words"].items())
            applied = agreed["window_applied"]
            print(f"{'':>9} vs exact BM25: top 10 same order {agreed['same_order']:.0%}, same set"
                  f" {agreed['same_set']:.0%}, mean overlap {agreed['mean_overlap']:.0%} (same order/overlap by"
                  f" words: {words}); where the window applied ({applied['queries']} queries): same order"
                  f" {applied.get('same_order', 1):.0%}, overlap {applied.get('mean_overlap', 1):.0%}, best/10th"
                  f" BM25 {applied.get('best_score_ratio', 1):.3f}/{applied.get('last_score_ratio', 1):.3f} of"
                  f" exact; exact ranking median {agreed['exact_median_ms']:.1f} ms, p95"
                  f" {agreed['exact_p95_ms']:.1f} ms", flush=True)
        results.append(result)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "search.json").write_text(json.dumps({"results": results}, indent=2))


def _rounded(values: dict[int, float]) -> dict[int, float]:
    return {n: round(v, 1) for n, v in values.items()}


if __name__ == "__main__":
    main()
