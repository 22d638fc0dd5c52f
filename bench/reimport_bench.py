"""Re-importing an unchanged export: seconds until the receipt, per 100k messages.

Imports a generated ChatGPT export (``bench/out/chatgpt-<mb>mb.json``, made by
``gen_chatgpt_export.py`` when missing) once into a fresh home (appending only, no
projections), then imports the same file again through ``ingest_paths`` and times that
second import: hashing the file, finding its receipt in the log, answering from it.

Target (issue 15): under 1 s per 100,000 messages (before receipts answered: 8.7 s for 15,000).

Usage: ``python bench/reimport_bench.py [--mb 200] [--runs 3]``; prints JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

OUT = Path(__file__).resolve().parent / "out"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gen_chatgpt_export

    from tapestryd.config import load_settings
    from tapestryd.events.store import EventStore
    from tapestryd.paths import paths_for
    from tapestryd.sources.ingest import ingest_paths

    export = OUT / f"chatgpt-{options.mb:g}mb.json"
    if not export.exists():
        OUT.mkdir(exist_ok=True)
        gen_chatgpt_export.generate(export, options.mb)
    with tempfile.TemporaryDirectory(prefix="tapestry-reimport-") as home:
        (Path(home) / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
        settings = load_settings(Path(home))
        store = EventStore(paths_for(settings).events_db)
        started = time.perf_counter()
        first = ingest_paths(store, [export], settings=settings).to_dict()["totals"]
        first_seconds = time.perf_counter() - started
        seconds = []
        for _ in range(options.runs):
            started = time.perf_counter()
            again = ingest_paths(store, [export], settings=settings).to_dict()["totals"]
            seconds.append(time.perf_counter() - started)
        store.close()
    messages = first["messages_new"]
    best = min(seconds)
    print(json.dumps({"export": str(export), "mb": round(export.stat().st_size / 1e6, 1), "messages": messages,
                      "first_import_s": round(first_seconds, 2), "reimport_s": [round(s, 3) for s in seconds],
                      "reimport_median_s": round(statistics.median(seconds), 3),
                      "reimport_s_per_100k_messages": round(best * 100_000 / max(messages, 1), 3),
                      "reimport_messages_known": again["messages_known"],
                      "reimport_messages_new": again["messages_new"]}))


if __name__ == "__main__":
    main()
