"""``tapestryctl --version`` prints the package version and exits 0, whatever the home."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tapestryd import __version__


def test_version_prints_the_package_version(tmp_path: Path) -> None:
    """The version line needs no config or data: it works before `init` too."""
    env = {"TAPESTRY_HOME": str(tmp_path / "nothing-here"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "--version"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"tapestryctl {__version__}\n"
    assert not (tmp_path / "nothing-here").exists()
