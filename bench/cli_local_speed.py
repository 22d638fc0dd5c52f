"""Benchmark: tapestryctl search, context, conversations, status and stats with no daemon running.

Run: python bench/cli_local_speed.py [--runs 5] [--home DIR | --size N] [--tree DIR ...]

The home is ``--home`` when given; else, with ``--size N``, one of N generated messages
(built once by ``search_bench.build`` in ``bench/out/cli-local-<N>/``); else the demo home
(``tapestryctl demo --home bench/out/cli-local-home``). Each command runs ``--runs`` times as
``python -m tapestryd.cli`` from each ``--tree`` (a checkout whose ``tapestryd`` package is
imported, e.g. ``git worktree add`` of an older commit; default this one), trees and commands
interleaved so a busy machine slows each alike. Wall time and CPU time (user + system of the
child, from ``getrusage``) are recorded per run; medians are printed, and one more run under
``python -X importtime`` counts the modules imported and tells whether numpy or
scikit-learn are among them. Writes bench/out/cli_local_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
COMMANDS = (("search", "foo"), ("search", "route", "66"), ("search", "python", "3.12"), ("context",),
            ("conversations",), ("status",), ("stats",))
HEAVY = ("numpy", "sklearn", "dateparser")


def run(args: tuple[str, ...], env: dict[str, str], cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """One ``python [extra] -m tapestryd.cli args`` in ``cwd`` (its tapestryd is the one imported)."""
    return subprocess.run([sys.executable, *extra, "-m", "tapestryd.cli", *args], env={**env, "PYTHONPATH": str(cwd)},
                          cwd=cwd, capture_output=True, text=True, check=True)


def measured(args: tuple[str, ...], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run(args, env, cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imports(args: tuple[str, ...], env: dict[str, str], cwd: Path) -> tuple[int, list[str]]:
    """How many modules one run imports (``-X importtime``), and which of HEAVY are among them."""
    err = run(args, env, cwd, "-X", "importtime").stderr
    names = {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return len(names), sorted(n for n in HEAVY if n in names)


def home_for(opts: argparse.Namespace) -> Path:
    """The home to query, built first when needed."""
    if opts.home is not None:
        return Path(opts.home)
    if opts.size:
        home = OUT / f"cli-local-{opts.size}"
        if not (home / "events.db").exists():
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from search_bench import build, quiet

            quiet()
            print(f"building {home} ({opts.size} messages) ...", flush=True)
            build(home, opts.size)
        return home
    home = OUT / "cli-local-home"
    if not (home / "events.db").exists():
        subprocess.run([sys.executable, "-m", "tapestryd.cli", "demo", "--home", str(home)], check=True,
                       capture_output=True)
    return home


def main() -> None:
    """Time every command from every tree; print one line each and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--size", type=int, default=0, help="messages of a generated home (e.g. 100000)")
    parser.add_argument("--tree", type=Path, action="append", default=None)
    opts = parser.parse_args()
    trees = opts.tree or [Path(__file__).resolve().parents[1]]
    home = home_for(opts)
    env = {**os.environ, "TAPESTRY_HOME": str(home.resolve()), "TAPESTRY_FAST": "1"}
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(opts.runs):
        for command in COMMANDS:
            for tree in trees:
                samples.setdefault((str(tree), " ".join(command)), []).append(measured(command, env, tree))
    result: dict[str, dict[str, object]] = {}
    for (tree, name), runs in samples.items():
        modules, heavy = imports(tuple(name.split()), env, Path(tree))
        figures = {"wall_median_s": round(statistics.median(w for w, _ in runs), 3),
                   "cpu_median_s": round(statistics.median(c for _, c in runs), 3),
                   "modules": modules, "heavy": heavy}
        result.setdefault(tree, {})[name] = figures
        print(f"{Path(tree).name:>12}  {name:22} cpu {figures['cpu_median_s']:.3f} s  "
              f"wall {figures['wall_median_s']:.3f} s  {modules} modules; heavy: {', '.join(heavy) or 'none'}")
    OUT.mkdir(exist_ok=True)
    (OUT / "cli_local_speed.json").write_text(json.dumps({"home": str(home), "runs": opts.runs, "trees": result},
                                                         indent=2))


if __name__ == "__main__":
    main()
