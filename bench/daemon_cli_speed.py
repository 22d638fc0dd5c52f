"""Benchmark: tapestryctl status, context, search and similar through the socket vs `python -c pass`.

Run: python bench/daemon_cli_speed.py [--runs 20] [--sessions 50] [--tree DIR ...]

Without ``--tree``, starts the installed ``tapestryd`` on a scratch home holding a few hundred
messages and times the installed ``tapestryctl`` (answered by the fast path). With one or
more ``--tree`` (checkouts, e.g. an older commit's), each tree gets its own scratch home and
its own daemon run from that tree's package, and its commands run as ``python -m
tapestryd.cli`` from it. Every command of every tree runs ``--runs`` times, interleaved
with the bare interpreter, so a busy machine slows each alike. Wall time and CPU time (user
+ system of the child, from ``getrusage``) are recorded; medians are printed with the
ratio of wall time to the bare interpreter (target at most 2x). Writes
bench/out/daemon_cli_speed.json.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from daemon_common import BIN, Daemon, scratch_home, session_line, wait_for, write_json

QUERIES = (("status",), ("context",), ("search", "message"), ("similar", "message", "of", "session"))


def timed(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run (output discarded); fails on a non-zero exit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def filled_home(sessions: int) -> Path:
    """A scratch home whose watched root holds ``sessions`` session files of 10 messages each."""
    home, root = scratch_home("cli")
    for s in range(sessions):
        folder = root / f"-home-me-p{s % 5}"
        folder.mkdir(exist_ok=True)
        (folder / f"s{s}.jsonl").write_bytes(b"".join(session_line(f"s{s}", f"u{i}", f"message {i} of session {s}")
                                                      for i in range(10)))
    return home


def commands(daemon: Daemon, tree: Path | None) -> dict[str, tuple[list[str], dict[str, str], Path | None]]:
    """Name → (argv, env, cwd) of each query against ``daemon``."""
    label = f"{tree.name}: " if tree is not None else ""
    argv = [sys.executable, "-m", "tapestryd.cli"] if tree is not None else [str(BIN / "tapestryctl")]
    return {f"{label}tapestryctl {' '.join(q[:2])}": ([*argv, *q], daemon.env, tree) for q in QUERIES}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=50, help="session files of 10 messages each")
    parser.add_argument("--tree", type=Path, action="append", default=None)
    args = parser.parse_args()
    trees: list[Path | None] = list(args.tree) if args.tree else [None]
    daemons: list[Daemon] = []
    runs: dict[str, tuple[list[str], dict[str, str], Path | None]] = {"python -c pass": ([sys.executable, "-c", "pass"],
                                                                                         {}, None)}
    try:
        for tree in trees:
            daemon = Daemon(filled_home(args.sessions), tree)
            daemons.append(daemon)
            wait_for(lambda d=daemon: d.call("status")["store"]["messages"] == args.sessions * 10, 120)
            runs.update(commands(daemon, tree))
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for _ in range(args.runs):
            for name, (argv, env, cwd) in runs.items():
                samples[name].append(timed(argv, env or None, cwd))  # type: ignore[arg-type]
    finally:
        for daemon in daemons:
            daemon.stop()
            shutil.rmtree(daemon.home, ignore_errors=True)
    bare = statistics.median(w for w, _ in samples["python -c pass"])
    result: dict[str, object] = {name: {"wall_median_ms": round(statistics.median(w for w, _ in v) * 1000, 1),
                                        "cpu_median_s": round(statistics.median(c for _, c in v), 3),
                                        "ratio_to_bare": round(statistics.median(w for w, _ in v) / bare, 2)}
                                 for name, v in samples.items()}
    for name, figures in result.items():
        print(f"{name:<40} cpu {figures['cpu_median_s']:.3f} s   wall {figures['wall_median_ms']:7.1f} ms   "  # type: ignore[index]
              f"{figures['ratio_to_bare']:.2f}x python -c pass")  # type: ignore[index]
    result["runs"] = args.runs
    print(f"wrote {write_json('daemon_cli_speed', result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
