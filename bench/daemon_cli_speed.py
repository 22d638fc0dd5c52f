"""Benchmark: `tapestryctl status` and `tapestryctl context` through the socket vs `python3 -c pass`.

Run: python bench/daemon_cli_speed.py [--runs 40] [--sessions 50]
Starts tapestryd on a scratch home holding a few hundred messages, then times, interleaved
in one run, each of: the bare interpreter (`python -c pass`, the same interpreter the
console scripts use, and the system `python3` when there is one), `tapestryctl status`
and `tapestryctl context` (the installed console script, answered by the fast path). Prints
medians and the ratio to the bare interpreter (target at most 2x) and writes
bench/out/daemon_cli_speed.json.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time

from daemon_common import BIN, Daemon, scratch_home, session_line, wait_for, write_json


def timed(argv: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one run (output discarded); fails on a non-zero exit."""
    started = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=50, help="session files of 10 messages each")
    args = parser.parse_args()
    home, root = scratch_home("cli")
    for s in range(args.sessions):
        folder = root / f"-home-me-p{s % 5}"
        folder.mkdir(exist_ok=True)
        (folder / f"s{s}.jsonl").write_bytes(b"".join(session_line(f"s{s}", f"u{i}", f"message {i} of session {s}")
                                                      for i in range(10)))
    daemon = Daemon(home)
    commands = {"python -c pass": [sys.executable, "-c", "pass"],
                "tapestryctl status": [str(BIN / "tapestryctl"), "status"],
                "tapestryctl context": [str(BIN / "tapestryctl"), "context"]}
    system = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")
    if system:
        commands["python3 -c pass (system)"] = [system, "-c", "pass"]
    try:
        wait_for(lambda: daemon.call("status")["store"]["messages"] == args.sessions * 10, 60)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(timed(argv, daemon.env))
    finally:
        daemon.stop()
        shutil.rmtree(home, ignore_errors=True)
    bare = statistics.median(times["python -c pass"])
    result = {name: {"median_ms": round(statistics.median(v) * 1000, 1), "min_ms": round(min(v) * 1000, 1),
                     "ratio_to_bare": round(statistics.median(v) / bare, 2)} for name, v in times.items()}
    result["runs"] = args.runs  # type: ignore[assignment]
    for name, figures in result.items():
        if isinstance(figures, dict):
            print(f"{name:<26} median {figures['median_ms']:7.1f} ms   min {figures['min_ms']:7.1f} ms   "
                  f"{figures['ratio_to_bare']:.2f}x python -c pass")
    print(f"wrote {write_json('daemon_cli_speed', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
