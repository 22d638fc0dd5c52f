"""Benchmark: tapestryd starting on a big home: its first queries, its catch-up, its warm index.

Run: python bench/daemon_first_start.py (--home DIR | --size N) [--timeout 1800] [--interval 5] [--search N]

The home is ``--home``, or with ``--size N`` the home of N generated messages that
``search_bench.py`` builds and caches (``bench/out/search-<N>/``, messages projection only).
tapestryd is started from this checkout on it (log: ``bench/out/daemon_first_start.log``) and
paused as soon as it answers (closing the home's past days and summarizing them would otherwise
run beside what is measured). Then, in order:

* the first ``search`` and the first ``similar`` (wall ms, and the daemon's CPU ms over each),
  then a second ``search`` (issue 13: the first query after start answers within 1 s);
* every ``--interval`` seconds: each projection's lag behind the log (read from the databases,
  read-only), the daemon's CPU seconds and resident memory, and its similarity index
  (``similar``'s ``index`` status: fitted, refitting), until every projection has caught up and
  the index is warm and not refitting, or ``--timeout`` seconds;
* the index fits the daemon logged (``similarity.fitted``: seconds, documents each), and the
  loads of the index a previous run saved (``similarity.loaded``: seconds, documents each);
* with ``--search N``, once settled: ``search_bench.py``'s seeded mix of N queries through the
  socket (:func:`socket_search`; issue 14: p95 under 50 ms at 1M messages).

A home whose hierarchy and similarity projections were never run (a ``search_bench`` home) is
caught up at this first start (issue 14: at 1M messages this had not finished after 9
minutes); a later run on the same home measures a plain restart. Prints a line per poll and a
summary, and writes ``bench/out/daemon_first_start.json``. Quote the load average beside the
figures: the machine's other processes slow the wall times, not the CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from daemon_common import cpu_seconds, rss_mb, wait_for  # noqa: E402

from tapestryd.config import load_settings  # noqa: E402
from tapestryd.errors import DaemonError  # noqa: E402
from tapestryd.paths import paths_for  # noqa: E402
from tapestryd.wire.client import request  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
TREE = Path(__file__).resolve().parents[1]
LOG = OUT / "daemon_first_start.log"


def home_for(opts: argparse.Namespace) -> Path:
    """``--home``, or the cached ``search_bench`` home of ``--size`` messages (built first when missing)."""
    if opts.home is not None:
        return Path(opts.home).resolve()
    from search_bench import build, quiet

    home = OUT / f"search-{opts.size}"
    if not (home / "projections.db").exists():
        quiet()
        print(f"building {home} ({opts.size} messages) ...", flush=True)
        build(home, opts.size)
    return home


def lag(home: Path) -> dict[str, int]:
    """Each projection's lag behind the log, read from the two databases read-only."""
    paths = paths_for(load_settings(home))
    with sqlite3.connect(f"file:{paths.events_db}?mode=ro", uri=True) as events:
        last = int(events.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
    with sqlite3.connect(f"file:{paths.projections_db}?mode=ro", uri=True) as projections:
        marks = dict(projections.execute("SELECT projection, seq FROM checkpoints").fetchall())
    return {name: last - int(seq) for name, seq in marks.items()} | {
        name: last for name in ("messages", "hierarchy", "similarity") if name not in marks}


def timed(sock: Path, pid: int, op: str, args: dict[str, Any]) -> tuple[float, float, Any]:
    """Wall ms, daemon CPU ms and the result of one request."""
    cpu, began = cpu_seconds(pid), time.perf_counter()
    result = request(sock, op, args, timeout=120)
    return (time.perf_counter() - began) * 1000, (cpu_seconds(pid) - cpu) * 1000, result


def fits(log: Path, since: int, event: str = "similarity.fitted") -> list[dict[str, Any]]:
    """The ``event`` records (``similarity.fitted`` or ``similarity.loaded``) the daemon logged after byte
    ``since`` of ``log``: seconds and documents (``fit_seconds``/``documents``, or the load's), terms, time."""
    found = []
    with log.open("rb") as fh:
        fh.seek(since)
        for line in fh:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == event:
                found.append({"fit_seconds": record.get("fit_seconds", record.get("load_seconds")),
                              "documents": record.get("documents", record.get("loaded_documents")),
                              **{k: record.get(k) for k in ("terms", "timestamp")}})
    return found


def watch(home: Path, sock: Path, pid: int, began: float, interval: float, timeout: float) -> list[dict[str, Any]]:
    """Poll every ``interval`` s (see the module docstring) until caught up and warm, or ``timeout`` s
    after ``began`` (a ``perf_counter``); the rows, the last one settled unless it timed out."""
    timeline = []
    while True:
        now = time.perf_counter() - began
        behind = lag(home)
        index = request(sock, "similar", {"query": "sqlite", "top": 1}, timeout=120)["index"]
        row = {"s": round(now, 1), "lag": behind, "cpu_s": round(cpu_seconds(pid), 1), "rss_mb": round(rss_mb(pid)),
               "index_warm": bool(index.get("warm")), "refitting": bool(index.get("refitting")),
               "fitted": index.get("fitted"), "load_average": os.getloadavg()[0]}
        timeline.append(row)
        print(f"{row['s']:7.1f} s  lag {behind}  daemon CPU {row['cpu_s']} s  RSS {row['rss_mb']} MB  index"
              f" warm={row['index_warm']} refitting={row['refitting']} fitted={row['fitted']}"
              f"  load {row['load_average']:.1f}", flush=True)
        if (not any(behind.values()) and row["index_warm"] and not row["refitting"]) or now > timeout:
            return timeline
        time.sleep(interval)


def socket_search(sock: Path, pid: int, count: int, repeat: int = 3) -> dict[str, Any]:
    """``search_bench.py``'s seeded mix of ``count`` queries asked of the daemon as ``tapestryctl search``
    asks (limit 20, filters as fields), each ``repeat`` times on a fresh connection after 20 warm-up
    requests: wall ms (the best of the runs, and the first run), and the daemon's CPU ms per request
    (``/proc``, over all the measured requests), with the load average before and after."""
    from search_bench import _stats, queries

    plan = queries(count)
    for q, f in plan[:20]:
        request(sock, "search", {"query": q, "limit": 20, **f}, timeout=120)
    load, best, first = os.getloadavg(), [], []
    cpu = cpu_seconds(pid)
    for q, f in plan:
        runs = []
        for _ in range(repeat):
            began = time.perf_counter()
            request(sock, "search", {"query": q, "limit": 20, **f}, timeout=120)
            runs.append((time.perf_counter() - began) * 1000)
        best.append(min(runs))
        first.append(runs[0])
    per_query = (cpu_seconds(pid) - cpu) * 1000 / (count * repeat)
    return {"queries": count, "repeat": repeat, **_stats("", best), **_stats("first_", first),
            "daemon_cpu_ms_per_query": round(per_query, 1), "load_average_before": load,
            "load_average_after": os.getloadavg()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for the catch-up and the index")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between polls")
    parser.add_argument("--search", type=int, default=0, help="queries to ask through the socket once settled")
    opts = parser.parse_args()
    home = home_for(opts)
    OUT.mkdir(exist_ok=True)
    sock = paths_for(load_settings(home)).socket
    at_start = lag(home)
    log_from = LOG.stat().st_size if LOG.exists() else 0
    env = {**os.environ, "TAPESTRY_HOME": str(home), "PYTHONPATH": str(TREE)}
    began = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"], env=env,
                            cwd=TREE, stdout=subprocess.DEVNULL, stderr=LOG.open("ab"))
    result: dict[str, Any] = {"home": str(home), "lag_at_start": at_start, "load_average_at_start": os.getloadavg()}
    try:
        wait_for(lambda: _answers(sock, proc), opts.timeout, interval=0.05)  # a migration may run first
        result["answers_after_s"] = round(time.perf_counter() - began, 2)
        request(sock, "pause", timeout=60)
        first = {}
        for name, op, args in (("search", "search", {"query": "sqlite index", "limit": 20}),
                               ("similar", "similar", {"query": "sqlite index latency budget", "top": 10}),
                               ("search_again", "search", {"query": "python release", "limit": 20})):
            wall, cpu, answer = timed(sock, proc.pid, op, args)
            first[name] = {"wall_ms": round(wall, 1), "daemon_cpu_ms": round(cpu, 1),
                           **({"warm": answer["index"].get("warm")} if op == "similar" else {})}
        result["first_queries"] = first
        print(f"answers {result['answers_after_s']} s after start; first search {first['search']['wall_ms']} ms"
              f" (daemon CPU {first['search']['daemon_cpu_ms']} ms), first similar {first['similar']['wall_ms']} ms"
              f" (warm: {first['similar']['warm']}), second search {first['search_again']['wall_ms']} ms",
              flush=True)
        result["timeline"] = timeline = watch(home, sock, proc.pid, began, opts.interval, opts.timeout)
        last = timeline[-1]
        result["settled_after_s"] = last["s"] if not any(last["lag"].values()) and last["index_warm"] else None
        caught = next((r["s"] for r in timeline if not any(r["lag"].values())), None)
        result.update({"caught_up_after_s": caught, "daemon_cpu_s": timeline[-1]["cpu_s"],
                       "peak_rss_mb": max(r["rss_mb"] for r in timeline), "fits": fits(LOG, log_from),
                       "loads": fits(LOG, log_from, "similarity.loaded"),
                       "load_average_at_end": os.getloadavg()})
        if opts.search and result["settled_after_s"] is not None:
            result["search"] = found = socket_search(sock, proc.pid, opts.search)
            print(f"search through the socket ({opts.search} queries, best of {found['repeat']}): median"
                  f" {found['median_ms']:.1f} ms, p95 {found['p95_ms']:.1f} ms, max {found['max_ms']:.1f} ms (first"
                  f" runs: median {found['first_median_ms']:.1f}, p95 {found['first_p95_ms']:.1f}); daemon CPU"
                  f" {found['daemon_cpu_ms_per_query']} ms a request; load average"
                  f" {found['load_average_before'][0]:.1f} -> {found['load_average_after'][0]:.1f}", flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
    print(f"caught up after {result['caught_up_after_s']} s, settled (index warm) after {result['settled_after_s']} s;"
          f" daemon CPU {result['daemon_cpu_s']} s, peak RSS {result['peak_rss_mb']} MB;"
          f" {len(result['fits'])} index fits: {[(f['fit_seconds'], f['documents']) for f in result['fits']]},"
          f" {len(result['loads'])} loads: {[(f['fit_seconds'], f['documents']) for f in result['loads']]};"
          f" load average {result['load_average_at_start'][0]:.1f} at start, {result['load_average_at_end'][0]:.1f}"
          " at end", flush=True)
    (OUT / "daemon_first_start.json").write_text(json.dumps(result, indent=2))
    return 0


def _answers(sock: Path, proc: subprocess.Popen[bytes]) -> bool:
    if proc.poll() is not None:
        raise SystemExit(f"tapestryd exited with {proc.returncode}; see {LOG}")
    try:
        return bool(request(sock, "ping", timeout=2))
    except DaemonError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
