"""Benchmark: tapestryctl search, context, conversations and status with no daemon running.

Run: python bench/cli_local_speed.py [--runs 5] [--home DIR] [--tree DIR]

Makes (once) a demo home with ``tapestryctl demo --home bench/out/cli-local-home`` unless
``--home`` names one, then times each command ``--runs`` times (interleaved) as
``python -m tapestryd.cli`` and runs it once more under ``python -X importtime`` to count
the modules it imports and tell whether numpy or scikit-learn are among them. ``--tree``
runs the ``tapestryd`` package of another checkout instead (e.g. ``git archive`` of an
older commit), to compare before and after. Prints medians and writes
bench/out/cli_local_speed.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"
COMMANDS = (("search", "foo"), ("context",), ("conversations",), ("status",))
HEAVY = ("numpy", "sklearn")


def run(args: tuple[str, ...], env: dict[str, str], cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """One ``python [extra] -m tapestryd.cli args`` in ``cwd`` (its tapestryd is the one imported)."""
    return subprocess.run([sys.executable, *extra, "-m", "tapestryd.cli", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=True)


def imports(args: tuple[str, ...], env: dict[str, str], cwd: Path) -> dict[str, object]:
    """Modules imported by one run (``-X importtime``), and which of HEAVY are among them."""
    err = run(args, env, cwd, "-X", "importtime").stderr
    names = {line.rsplit("|", 1)[1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return {"modules": len(names), "heavy": sorted(names & set(HEAVY))}


def main() -> None:
    """Time every command; print one line each and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--home", type=Path, default=OUT / "cli-local-home")
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    opts = parser.parse_args()
    if not (opts.home / "events.db").exists():
        subprocess.run([sys.executable, "-m", "tapestryd.cli", "demo", "--home", str(opts.home)],
                       check=True, capture_output=True)
    env = {**os.environ, "TAPESTRY_HOME": str(opts.home.resolve()), "TAPESTRY_FAST": "1"}
    times: dict[str, list[float]] = {" ".join(c): [] for c in COMMANDS}
    for _ in range(opts.runs):
        for command in COMMANDS:
            started = time.perf_counter()
            run(command, env, opts.tree)
            times[" ".join(command)].append(time.perf_counter() - started)
    result = {}
    for command in COMMANDS:
        name = " ".join(command)
        result[name] = {"median_s": statistics.median(times[name]), **imports(command, env, opts.tree)}
        print(f"{name:14} median {result[name]['median_s']:.3f} s over {opts.runs} runs; "
              f"{result[name]['modules']} modules imported; heavy: {', '.join(result[name]['heavy']) or 'none'}")
    OUT.mkdir(exist_ok=True)
    (OUT / "cli_local_speed.json").write_text(json.dumps({"tree": str(opts.tree), "runs": opts.runs,
                                                          "commands": result}, indent=2))


if __name__ == "__main__":
    main()
