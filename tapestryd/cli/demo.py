"""``tapestryctl demo``: the whole pipeline on the embedded sample history, offline.

It makes a home (a new temporary folder unless ``--home`` is given), then runs, as
separate ``tapestryctl`` processes and printing each command line first, exactly what a
user would type: ingest the sample ChatGPT, Claude.ai and Claude Code files, summarize the
closed days with the extractive provider, and ask for the tree, the telescoping context,
a search with a time phrase and a similarity query. No API key, no network.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from importlib.resources import as_file, files
from pathlib import Path
from typing import Optional

import typer

from tapestryd.cli.app import app
from tapestryd.errors import TapestryError

__all__: list[str] = []

DEMO_CONFIG = """# The demo home's configuration (see `tapestryctl init` for every setting).
[general]
timezone = "UTC"

[sources]
# The demo watches nothing of yours.
watched_roots = []

[web]
enabled = false
"""


def _steps(sample: Path) -> list[list[str]]:
    return [
        ["ingest", str(sample)],
        ["iterate", "2026-11-28"],
        ["tree"],
        ["context", "--date", "2026-11-04"],
        ["search", "garlic in October"],
        ["similar", "heat pump energy per degree", "--top", "3"],
        ["stats"],
    ]


@app.command()
def demo(home: Optional[Path] = typer.Option(None, "--home",
                                             help="Keep the demo home here (default: a new temporary folder).")) -> None:
    """Import the embedded sample history, summarize it and query it: no API key, no network."""
    target = (home or Path(tempfile.mkdtemp(prefix="tapestry-demo-"))).resolve()
    target.mkdir(parents=True, exist_ok=True)
    if not (target / "tapestry.toml").exists():
        (target / "tapestry.toml").write_text(DEMO_CONFIG)
    with as_file(files("tapestryd").joinpath("templates/demo")) as sample:
        for step in _steps(Path(sample)):
            _run(target, step)
    typer.echo(f"\nThe demo home is {target}. Browse it with: tapestryctl --home {target} calendar --browser")


def _run(home: Path, args: list[str]) -> None:
    shown = shlex.join(["tapestryctl", "--home", str(home), *args])
    typer.echo(f"\n$ {shown}", err=False)
    sys.stdout.flush()
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "--home", str(home), *args], check=False)
    if done.returncode != 0:
        raise TapestryError(f"demo step failed (exit {done.returncode}): {shown}")
