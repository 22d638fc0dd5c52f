"""Texts and a command runner shared by the quality tests (a module name unique in the project)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cli_runner import tapestryctl

ALICE = "Alice moved to Paris in 2019."
BOB = "Then Bob bought a red bicycle."
CAROL = "Carol adopted a grey kitten named Miso."


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl against ``home`` with a user's bare environment, in this process (tests/cli_runner.py)."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return tapestryctl(*args, env=env)
