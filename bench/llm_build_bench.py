"""Benchmark: a full LLM build of a generated ChatGPT export, one call in flight against several.

Run: python bench/llm_build_bench.py [--conversations 2000] [--delay 0.05] [--concurrency 1 4]

1. writes ``--conversations`` conversations in the ChatGPT export shape
   (:mod:`gen_chatgpt_export`, seed 11) to ``bench/out/llm-build-export.json``;
2. for each ``--concurrency``: a fresh home whose ``[summarize]`` is the ``openai`` provider
   pointed at ``tests/fake_llm.py``'s OpenAI-compatible server, which answers every call
   after ``--delay`` seconds (a stand-in for a provider's latency); the export imported,
   every day closed, the whole tree built with telescoping context (``iterate``), timed;
3. compares the runs: the same prompts (sha256 of each) and the same summaries, node by
   node; and reports the prompt characters sent (system + user message, every call) against
   the corpus's characters (the imported messages' text).

Prints one line per run and writes ``bench/out/llm_build_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

from fake_llm import FakeLLM  # noqa: E402
from gen_chatgpt_export import ExportWriter  # noqa: E402

from tapestryd.clock import FixedClock  # noqa: E402
from tapestryd.config import load_settings  # noqa: E402
from tapestryd.operations.dayclose import close_days  # noqa: E402
from tapestryd.operations.runtime import Runtime  # noqa: E402
from tapestryd.operations.summarizer import Target, summarize_dirty  # noqa: E402
from tapestryd.sources.ingest import ingest_paths  # noqa: E402
from tapestryd.summarize import make_summarizer  # noqa: E402
from tapestryd.summarize.prompts import SYSTEM  # noqa: E402

OUT = BENCH / "out"


def write_export(path: Path, conversations: int) -> None:
    """``conversations`` generated conversations as one ChatGPT ``conversations.json``."""
    writer = ExportWriter(11)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([writer.conversation(i) for i in range(conversations)]))


def build(home: Path, export: Path, llm: FakeLLM, concurrency: int) -> dict[str, Any]:
    """Import, close every day, build the tree; seconds, calls, prompt and corpus characters, the tree."""
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = ["{home / "claude"}"]\n[summarize]\n'
        f'provider = "openai"\nbase_url = "{llm.url}"\nmodel = "bench"\nconcurrency = {concurrency}\n')
    settings = load_settings(home)
    with Runtime.open(settings) as rt:
        ingest_paths(rt.store, [export], settings=settings)
        rt.projector.catch_up()
        close_days(rt, FixedClock(datetime.now(timezone.utc) + timedelta(days=3650)))
        summarizer = make_summarizer(settings.summarize)
        started = time.perf_counter()
        try:
            report = summarize_dirty(Target.of(rt), summarizer)
        finally:
            summarizer.close()
        seconds = time.perf_counter() - started
    with sqlite3.connect(rt.paths.projections_db) as conn:
        corpus = conn.execute("SELECT COALESCE(SUM(LENGTH(text)), 0) FROM messages").fetchone()[0]
        tree = {k: (t, s) for k, t, s in conn.execute("SELECT key, title, summary FROM nodes")}
    prompts = sum(len(c["prompt"]) + len(SYSTEM) for c in llm.calls)
    return {"concurrency": concurrency, "seconds": round(seconds, 1), "calls": len(llm.calls),
            "summarized": report.summarized, "remaining": report.remaining, "failed": len(report.failed),
            "most_in_flight": llm.most_in_flight, "prompt_chars": prompts, "corpus_chars": corpus,
            "prompt_ratio": round(prompts / max(1, corpus), 3),
            "hashes": sorted(c["hash"] for c in llm.calls), "tree": tree}


def main() -> int:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=2000)
    ap.add_argument("--delay", type=float, default=0.05, help="seconds the fake server takes per call")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    args = ap.parse_args()
    export = OUT / "llm-build-export.json"
    write_export(export, args.conversations)
    runs = []
    for concurrency in args.concurrency:
        llm = FakeLLM(slow_from=1, slow_delay=args.delay).start()
        try:
            with tempfile.TemporaryDirectory(prefix="tapestry-llm-bench-") as tmp:
                runs.append(build(Path(tmp), export, llm, concurrency))
        finally:
            llm.stop()
        r = runs[-1]
        print(f"concurrency {concurrency}: {r['calls']} calls in {r['seconds']} s (most in flight "
              f"{r['most_in_flight']}), {r['summarized']} summarized, {r['remaining']} left, {r['failed']} failed; "
              f"prompts {r['prompt_chars']:,} chars = {r['prompt_ratio']}x the corpus ({r['corpus_chars']:,})")
    same = all(r["hashes"] == runs[0]["hashes"] and r["tree"] == runs[0]["tree"] for r in runs)
    print(f"same calls and summaries in every run: {same}")
    if len(runs) > 1:
        print(f"speed-up {runs[0]['concurrency']} -> {runs[-1]['concurrency']}: "
              f"{runs[0]['seconds'] / max(runs[-1]['seconds'], 1e-9):.2f}x")
    OUT.mkdir(parents=True, exist_ok=True)
    summary = [{k: v for k, v in r.items() if k not in ("hashes", "tree")} for r in runs]
    (OUT / "llm_build_bench.json").write_text(json.dumps({"runs": summary, "same": same, **vars(args)}, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
