"""Benchmark: from a line appended to a Claude Code session file until `tapestryctl search` finds it.

Run: python bench/daemon_latency.py [--appends 200] [--polling]
Starts tapestryd on a scratch home, appends one line at a time to a session file, and after
each append runs the real `tapestryctl search <token> -f json` (the console script, through
the socket) until the hit appears. Prints median and p95 (target p95 < 1 s with native
events) and writes bench/out/daemon_latency.json. The time of one search run is reported
too: it bounds the resolution of the figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time

from daemon_common import BIN, Daemon, scratch_home, session_line, summary, write_json


def search_finds(token: str, env: dict[str, str]) -> bool:
    """Whether `tapestryctl search token` lists a hit now."""
    done = subprocess.run([str(BIN / "tapestryctl"), "search", token, "-f", "json"], capture_output=True, text=True,
                          env=env, check=True)
    return bool(json.loads(done.stdout))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=200)
    parser.add_argument("--polling", action="store_true", help="use the polling observer instead of native events")
    args = parser.parse_args()
    home, root = scratch_home("latency")
    if args.polling:
        config = home / "tapestry.toml"
        config.write_text(config.read_text() + "polling = true\n")
    session = root / "-home-me-bench" / "latency.jsonl"
    session.parent.mkdir()
    daemon = Daemon(home)
    latencies, searches = [], []
    try:
        for n in range(args.appends):
            token = f"quokka{n}zz"
            started = time.perf_counter()
            with session.open("ab") as fh:
                fh.write(session_line("latency", f"u{n}", f"line {n} mentions {token}"))
            while True:
                before = time.perf_counter()
                found = search_finds(token, daemon.env)
                searches.append(time.perf_counter() - before)
                if found:
                    break
            latencies.append(time.perf_counter() - started)
    finally:
        daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    result = {"mode": "polling" if args.polling else "native", "append_to_search": summary(latencies),
              "one_search_run": summary(searches)}
    print(f"append → `tapestryctl search` finds it ({result['mode']}, {len(latencies)} appends): "
          f"median {result['append_to_search']['median_ms']} ms, p95 {result['append_to_search']['p95_ms']} ms, "
          f"max {result['append_to_search']['max_ms']} ms")
    print(f"one `tapestryctl search` run: median {result['one_search_run']['median_ms']} ms")
    print(f"wrote {write_json('daemon_latency' + ('_polling' if args.polling else ''), result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
