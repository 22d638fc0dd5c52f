"""Benchmark: tapestryd's idle CPU and RSS while it watches 5,000 session files.

Run: python bench/daemon_idle.py [--files 5000] [--seconds 90] [--polling]
Creates 100 project folders of session files (two messages each, six sessions a day from
2025-01-01 on) in a scratch home, starts
tapestryd with the default sweep interval (60 s), times the catch-up until every message is
projected and until the hierarchy has summarized every closed node (the extractive
summarizer's backlog is work, not idleness), lets it settle, then reads its CPU time (utime + stime from /proc) over
``--seconds`` of idleness (a window that includes at least one sweep of every file) and
its RSS. Targets: under 1% of one core, under 150 MB. Writes bench/out/daemon_idle.json.
"""

from __future__ import annotations

import argparse
import shutil
import time
from datetime import datetime, timedelta, timezone

from daemon_common import Daemon, cpu_seconds, rss_mb, scratch_home, session_line, wait_for, write_json

FOLDERS = 100


def _summaries_done(status: dict[str, object], since: str) -> bool:
    """Whether a hierarchy run that started after ``since`` left nothing to summarize."""
    hierarchy = status.get("hierarchy")
    if not isinstance(hierarchy, dict):
        return True  # no hierarchy in this build: nothing to wait for
    run = status["daemon"]["jobs"].get("hierarchy", {})  # type: ignore[index]
    result = run.get("result") or {}
    return run.get("at", "") > since and result.get("remaining") == 0 and not hierarchy.get("waiting")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--polling", action="store_true")
    args = parser.parse_args()
    home, root = scratch_home("idle")
    if args.polling:
        (home / "tapestry.toml").write_text((home / "tapestry.toml").read_text() + "polling = true\n")
    first = datetime(2025, 1, 1, 9, tzinfo=timezone.utc)
    for n in range(args.files):
        folder = root / f"-home-me-project{n % FOLDERS}"
        folder.mkdir(exist_ok=True)
        ts = (first + timedelta(hours=4 * n)).strftime("%Y-%m-%dT%H:%M:%SZ")  # six sessions a day
        (folder / f"session{n}.jsonl").write_bytes(session_line(f"s{n}", "u1", f"question {n}", ts)
                                                   + session_line(f"s{n}", "u2", f"follow-up {n}", ts))
    started = time.perf_counter()
    daemon = Daemon(home)
    try:
        wait_for(lambda: daemon.call("status")["store"]["messages"] == 2 * args.files, 1800, interval=0.5)
        catch_up = time.perf_counter() - started
        projected_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        wait_for(lambda: _summaries_done(daemon.call("status"), projected_at), 7200, interval=5)
        summaries = time.perf_counter() - started
        status = daemon.call("status")["daemon"]
        time.sleep(5)
        asked = time.perf_counter()
        daemon.call("status")
        status_s = time.perf_counter() - asked
        cpu0, wall0 = cpu_seconds(daemon.proc.pid), time.perf_counter()
        time.sleep(args.seconds)
        cpu = (cpu_seconds(daemon.proc.pid) - cpu0) / (time.perf_counter() - wall0)
        rss = rss_mb(daemon.proc.pid)
        sweeps = daemon.call("status")["daemon"]["last_sweep"]
    finally:
        daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    result = {"files": args.files, "watch_mode": status["sources"]["mode"], "files_seen": status["files"],
              "catch_up_s": round(catch_up, 1), "summaries_done_s": round(summaries, 1),
              "status_op_ms": round(status_s * 1000, 1), "idle_window_s": args.seconds,
              "idle_cpu_percent": round(cpu * 100, 2),
              "rss_mb": round(rss, 1), "last_sweep": sweeps}
    print(f"{args.files} watched files ({result['watch_mode']}): messages projected after {result['catch_up_s']} s, "
          f"every closed node summarized after {result['summaries_done_s']} s; status op {result['status_op_ms']} ms")
    print(f"{args.files} watched files ({result['watch_mode']}): idle CPU "
          f"{result['idle_cpu_percent']}% of one core over {args.seconds:g} s; RSS {result['rss_mb']} MB")
    print(f"wrote {write_json('daemon_idle' + ('_polling' if args.polling else ''), result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
