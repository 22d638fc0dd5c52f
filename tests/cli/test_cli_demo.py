"""README's first command: the demo runs the whole pipeline offline on the embedded history."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_cli_core import seed


def test_demo_ingests_summarizes_and_answers(tmp_path: Path) -> None:
    """Every step succeeds, the search reads its time phrase, and the home keeps the tree."""
    home = tmp_path / "demo"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "demo", "--home", str(home)], capture_output=True,
                          text=True, env=env, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "40 new messages, 0 already known, 0 errors in 6 files" in done.stdout
    assert "reading 'in October' as 2026-10-01" in done.stdout and "Germidour" in done.stdout
    tree = subprocess.run([sys.executable, "-m", "tapestryd.cli", "--home", str(home), "tree", "-f", "json"],
                          capture_output=True, text=True, env=env, timeout=60)
    roots = json.loads(tree.stdout)
    assert {r["agent"] for r in roots} == {"chatgpt", "claude-ai", "claude-code"}
    again = subprocess.run([sys.executable, "-m", "tapestryd.cli", "demo", "--home", str(home)], capture_output=True,
                           text=True, env=env, timeout=240)
    assert again.returncode == 0, again.stderr  # its own marker lets the demo reuse its home
    assert "0 new messages, 40 already known" in again.stdout


def test_demo_refuses_a_home_with_real_memory(tmp_path: Path) -> None:
    """--home naming a home whose log holds events (no demo marker) is refused and left as it was."""
    seed(tmp_path / "real")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "demo", "--home", str(tmp_path / "real")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode != 0 and "already holds memory and is not a demo home" in done.stderr
    assert not (tmp_path / "real" / ".tapestry-demo").exists() and not (tmp_path / "real" / "tapestry.toml").exists()

