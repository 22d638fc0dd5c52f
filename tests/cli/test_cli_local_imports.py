"""Without a daemon the CLI imports only the operation module it runs: search, similar, context,
conversations, status and stats never load numpy or scikit-learn (the summarizers' dependencies),
SQLAlchemy and SQLModel (the event log's writers'), nor structlog and rich (about 0.2 CPU-s: their
modules log through :mod:`tapestryd.lazylog`, which sets structlog up at the first line logged)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_core import seed

from tapestryd.config import load_settings
from tapestryd.paths import paths_for

HEAVY = ("numpy", "sklearn", "scipy", "tapestryd.summarize", "tapestryd.operations.hierarchy", "sqlalchemy", "sqlmodel",
         "structlog", "rich")


@pytest.mark.parametrize("args", [("search", "rope"), ("similar", "braid", "rope"), ("context",), ("conversations",),
                                  ("status",), ("stats",)])
def test_local_answers_do_not_import_numpy(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`python -X importtime` of the command, no daemon running: none of HEAVY is imported."""
    imported = _imported(tmp_path, args)
    assert "tapestryd.operations.dispatch" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_status_reads_an_upgrades_progress_without_importing_what_writes_it(tmp_path: Path) -> None:
    """status reads projections.backfill's progress; the parts' writers (and the speaker-name parser) stay
    unimported."""
    imported = _imported(tmp_path, ("status",))
    writers = {"tapestryd.projections.windows", "tapestryd.projections.blocks", "tapestryd.projections.speaker_names",
               "tapestryd.vocatives"}
    assert "tapestryd.projections.backfill" in imported
    assert not imported & writers, sorted(imported & writers)


def _imported(tmp_path: Path, args: tuple[str, ...]) -> set[str]:
    """The modules `tapestryctl ARGS` imports (from `python -X importtime`) on a seeded home, no daemon running."""
    home = tmp_path / "home"
    seed(home)
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "tapestryd.cli", *args], capture_output=True,
                         text=True, env=env, timeout=60, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}


def test_a_line_logged_by_a_local_answer_goes_to_stderr(tmp_path: Path) -> None:
    """structlog, set up only when a line is logged, still sends it to stderr: stdout holds the answer alone."""
    home = tmp_path / "home"
    seed(home)
    dotenv = paths_for(load_settings(home)).data_dir / ".env"
    dotenv.write_text("TAPESTRY_API_KEY=not-a-real-key\n")
    dotenv.chmod(0o644)  # readable by others: tapestryd.dotenv warns
    env = {k: v for k, v in os.environ.items() if k != "TAPESTRY_API_KEY"} | {"TAPESTRY_HOME": str(home)}
    out = subprocess.run([sys.executable, "-m", "tapestryd.cli", "search", "rope", "-f", "json"], capture_output=True,
                         text=True, env=env, timeout=60, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout)[0]["message_key"] and "dotenv.insecure_mode" in out.stderr
    assert "not-a-real-key" not in out.stderr + out.stdout
