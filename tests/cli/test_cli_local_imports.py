"""Without a daemon the CLI imports only the operation module it runs: search, context,
conversations and status never load numpy or scikit-learn (the summarizers' dependencies)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tapestryd.daemon import ops

from test_cli_core import seed

HEAVY = ("numpy", "sklearn", "scipy", "tapestryd.summarize", "tapestryd.daemon.ops.hierarchy_ops")


def test_modules_lists_every_registered_op_where_it_is_defined() -> None:
    """MODULES is the registry: each op once, under the module whose import registers it."""
    listed = {op: module for module, names in ops.MODULES.items() for op in names}
    assert sum(len(names) for names in ops.MODULES.values()) == len(listed)
    registry = ops.all_ops()
    assert set(registry) == set(listed)
    for name, spec in registry.items():
        assert spec.fn.__module__ == f"tapestryd.daemon.ops.{listed[name]}", name


def test_find_op_knows_no_other_names() -> None:
    """An unknown name is None (the caller says so), not an ImportError."""
    assert ops.find_op("no-such-op") is None and ops.find_op("search") is not None


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
    assert "tapestryd.daemon.local" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
