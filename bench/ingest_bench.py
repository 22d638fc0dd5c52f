"""Ingest throughput and peak memory: a ~200 MB ChatGPT export and a 2,000-session projects folder.

Each import runs in a fresh process on a fresh home through the real pipeline, as the
``ingest`` operation runs it: ``Projector.alongside(ingest_paths)`` (parse, screen, append
to the event log while a child process applies the default projections: messages + FTS5,
hierarchy, similarity), then the last catch-up. ``--phase sequential`` appends everything
first and catches up after; ``--phase ingest`` only appends. The run reports wall seconds
until the log is written (``ingest``) and from then until the projections caught up
(``project``), CPU seconds (user + system, steadier than wall time on a shared machine) of the
process (``importer_cpu_s``: parsing, appending, the last catch-up), of its projector child
(``projector_cpu_s``) and both (``cpu_s``), and the peak RSS of each (``ru_maxrss``); the parent
prints messages/s and writes ``bench/out/ingest.json``. Inputs are generated into
``bench/out/`` when missing.

Targets (issue 2): at least 20,000 messages/s; peak RSS under 300 MB on the 200 MB export.

Usage: ``python bench/ingest_bench.py [--mb 200] [--sessions 2000] [--runs 1] [--phase all|sequential|ingest]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out"


def child(path: Path, home: Path, phase: str) -> dict[str, Any]:
    """Import ``path`` into ``home`` in this process; figures as a dict."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    from tapestryd.config import load_settings
    from tapestryd.events.store import EventStore
    from tapestryd.paths import paths_for
    from tapestryd.projections import Projector, default_projections
    from tapestryd.sources.ingest import ingest_paths

    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    settings = load_settings(home)
    store = EventStore(paths_for(settings).events_db)
    projector = Projector(store, paths_for(settings).projections_db,
                          default_projections(settings.timezone, settings.first_day_of_week))
    marks: dict[str, float] = {}

    def ingest() -> dict[str, Any]:
        receipt = ingest_paths(store, [path], settings=settings).to_dict()
        marks["ingested"] = time.perf_counter()
        return receipt

    started = time.perf_counter()
    if phase == "all":  # as the ingest operation runs: projections follow the log in a child process
        receipt = projector.alongside(ingest)
    else:
        receipt = ingest()
        if phase == "sequential":
            projector.catch_up()
    projected = time.perf_counter()
    projector.close()
    totals = receipt["totals"]
    usage, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"messages": totals["messages_new"], "errors": totals["errors"], "events": store.count(),
            "ingest_s": marks["ingested"] - started, "project_s": projected - marks["ingested"],
            "total_s": projected - started,
            "cpu_s": usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime,
            "importer_cpu_s": usage.ru_utime + usage.ru_stime, "projector_cpu_s": children.ru_utime + children.ru_stime,
            "peak_rss_mb": usage.ru_maxrss / 1024, "child_peak_rss_mb": children.ru_maxrss / 1024}


def run_child(path: Path, phase: str) -> dict[str, Any]:
    """One import in a fresh process and a fresh home."""
    home = Path(tempfile.mkdtemp(prefix="tapestry-bench-"))
    try:
        out = subprocess.run([sys.executable, __file__, "--child", str(path), "--home", str(home), "--phase", phase],
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(home, ignore_errors=True)


def ensure_inputs(mb: float, sessions: int) -> dict[str, Path]:
    """Generate the inputs in bench/out when they are not there yet."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gen_chatgpt_export
    import gen_claude_code_projects

    export = OUT / f"chatgpt-{mb:g}mb.json"
    if not export.exists():
        print(json.dumps(gen_chatgpt_export.generate(export, mb)), flush=True)
    projects = OUT / f"claude-projects-{sessions}"
    if not projects.exists():
        print(json.dumps(gen_claude_code_projects.generate(projects, sessions)), flush=True)
    return {"chatgpt": export, "claude-code": projects}


def summarize(name: str, path: Path, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median figures of several runs of one input."""
    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    messages = runs[0]["messages"]
    size = path.stat().st_size if path.is_file() else sum(p.stat().st_size for p in path.rglob("*.jsonl"))
    return {"input": name, "path": str(path), "bytes": size, "messages": messages, "events": runs[0]["events"],
            "errors": runs[0]["errors"], "runs": len(runs), "ingest_s": med("ingest_s"), "project_s": med("project_s"),
            "total_s": med("total_s"), "cpu_s": med("cpu_s"),
            "importer_cpu_s": med("importer_cpu_s"), "projector_cpu_s": med("projector_cpu_s"),
            "ingest_msgs_per_s": messages / med("ingest_s"),
            "total_msgs_per_s": messages / med("total_s"), "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            "child_peak_rss_mb": max(r["child_peak_rss_mb"] for r in runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--phase", choices=["all", "sequential", "ingest"], default="all")
    parser.add_argument("--child", type=Path)
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.home, args.phase)))
        return
    results = []
    for name, path in ensure_inputs(args.mb, args.sessions).items():
        result = summarize(name, path, [run_child(path, args.phase) for _ in range(args.runs)])
        results.append(result)
        messages_per_cpu = result["messages"] / result["cpu_s"]
        print(f"{name:12} {result['messages']:>8} msgs  {result['bytes'] / 1e6:7.1f} MB"
              f"  ingest {result['ingest_s']:6.2f} s"
              f"  project {result['project_s']:6.2f} s  total {result['total_msgs_per_s']:8.0f} msg/s"
              f"  (ingest alone {result['ingest_msgs_per_s']:8.0f} msg/s)  {messages_per_cpu:8.0f} msg per CPU-second"
              f"  CPU {result['cpu_s']:5.2f} s (importer {result['importer_cpu_s']:5.2f}, projector child"
              f" {result['projector_cpu_s']:5.2f})"
              f"  peak RSS {result['peak_rss_mb']:6.1f} MB (projector child {result['child_peak_rss_mb']:6.1f} MB)",
              flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "ingest.json").write_text(json.dumps({"phase": args.phase, "cpu_count": os.cpu_count(),
                                                 "results": results}, indent=2))


if __name__ == "__main__":
    main()
