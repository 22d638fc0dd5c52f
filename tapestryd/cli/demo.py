"""``tapestryctl demo``: the whole pipeline on the embedded sample history, offline.

It makes a home (a new temporary folder unless ``--home`` is given), then runs, as
separate ``tapestryctl`` processes and printing each command line first, exactly what a
user would type: ingest the sample ChatGPT, Claude.ai and Claude Code files, summarize the
closed days with the extractive provider, and ask for the tree, the telescoping context,
a search with a time phrase and a similarity query. No API key, no network.

A demo home holds the marker file :data:`MARKER`. ``--home`` naming a home whose log
already holds events and that has no marker (someone's real memory) is refused, so the
sample never mixes with real history; a previous demo home is reused.
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
from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.paths import paths_for
from tapestryd.queries.reader import log_has_events

__all__: list[str] = []

MARKER = ".tapestry-demo"
"""The file a demo writes in its home: its presence lets a later demo run there."""

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
def demo(home: Optional[Path] = typer.Option(
        None, "--home", help="Keep the demo home here (default: a new temporary folder).")) -> None:
    """Import the embedded sample history, summarize it and query it: no API key, no network."""
    target = (home or Path(tempfile.mkdtemp(prefix="tapestry-demo-"))).resolve()
    _refuse_real_home(target)
    target.mkdir(parents=True, exist_ok=True)
    (target / MARKER).write_text("made by `tapestryctl demo`: the sample history, not real memory\n")
    if not (target / "tapestry.toml").exists():
        (target / "tapestry.toml").write_text(DEMO_CONFIG)
    with as_file(files("tapestryd").joinpath("templates/demo")) as sample:
        for step in _steps(Path(sample)):
            _run(target, step)
    typer.echo(f"\nThe demo home is {target}. Browse it with: tapestryctl --home {target} calendar --browser")


def _refuse_real_home(target: Path) -> None:
    """Raise TapestryError when ``target``'s log holds events and it is not a demo home."""
    if (target / MARKER).exists() or not target.exists():
        return
    if log_has_events(paths_for(load_settings(target)).events_db):
        raise TapestryError(f"{target} already holds memory and is not a demo home: the demo would mix its sample "
                            "into it; give a new folder (or none, for a temporary one) to --home")


def _run(home: Path, args: list[str]) -> None:
    shown = shlex.join(["tapestryctl", "--home", str(home), *args])
    typer.echo(f"\n$ {shown}", err=False)
    sys.stdout.flush()
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "--home", str(home), *args], check=False)
    if done.returncode != 0:
        raise TapestryError(f"demo step failed (exit {done.returncode}): {shown}")
