"""README's first command: the demo runs the whole pipeline offline on the embedded history."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


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
