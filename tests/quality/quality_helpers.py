"""Texts and a command runner shared by the quality tests (a module name unique in the project)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ALICE = "Alice moved to Paris in 2019."
BOB = "Then Bob bought a red bicycle."
CAROL = "Carol adopted a grey kitten named Miso."


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in its own process against ``home``."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "tapestryd.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)
