"""Without a daemon the CLI imports only the operation module it runs: search, context,
conversations and status never load numpy or scikit-learn (the summarizers' dependencies), nor
SQLAlchemy and SQLModel (the event log's writers')."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_core import seed

HEAVY = ("numpy", "sklearn", "scipy", "tapestryd.summarize", "tapestryd.operations.hierarchy", "sqlalchemy", "sqlmodel")


@pytest.mark.parametrize("args", [("search", "rope"), ("context",), ("conversations",), ("status",)])
def test_local_answers_do_not_import_numpy(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`python -X importtime` of the command, no daemon running: none of HEAVY is imported."""
    home = tmp_path / "home"
    seed(home)
    env = {**os.environ, "TAPESTRY_HOME": str(home)}
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "tapestryd.cli", *args], capture_output=True,
                         text=True, env=env, timeout=60, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "tapestryd.operations.dispatch" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
