"""tapestryctl restore with a mistyped --home (or a missing backup) refuses and creates nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cli_runner import tapestryctl
from test_cli_core import seed

from tapestryd.config import load_settings
from tapestryd.operations.backup import backup_log
from tapestryd.paths import paths_for


def ctl(*args: str) -> subprocess.CompletedProcess[str]:
    """tapestryctl in this process (tests/cli_runner.py); the home comes from --home in ``args``."""
    env = {k: v for k, v in os.environ.items() if k != "TAPESTRY_HOME"}
    return tapestryctl(*args, env={**env, "TAPESTRY_FAST": "0"})


def _backup(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    seed(home)
    paths = paths_for(load_settings(home))
    return backup_log(paths.events_db, paths.backups).path


def test_a_mistyped_home_is_refused_and_not_created(tmp_path: Path) -> None:
    """A good backup, a --home that does not exist: exit 1, the message says why, no folder appears."""
    backup = _backup(tmp_path)
    typo = tmp_path / "hmoe"
    out = ctl("--home", str(typo), "restore", str(backup))
    assert out.returncode == 1
    assert f"no tapestry home at {typo}" in out.stderr and f"tapestryctl init --home {typo}" in out.stderr
    assert not typo.exists()


def test_a_missing_backup_leaves_the_home_untouched(tmp_path: Path) -> None:
    """An existing but empty home and a backup that is not there: refused, nothing created in it."""
    home = tmp_path / "fresh"
    home.mkdir()
    out = ctl("--home", str(home), "restore", str(tmp_path / "nope.db"))
    assert out.returncode == 1 and "no such backup" in out.stderr
    assert list(home.iterdir()) == []


def test_restore_into_an_existing_home_still_works(tmp_path: Path) -> None:
    """The home exists (made by init): the backup is restored and its events replayed."""
    backup = _backup(tmp_path)
    target = tmp_path / "target"
    assert ctl("--home", str(target), "init").returncode == 0
    out = ctl("--home", str(target), "restore", str(backup))
    assert out.returncode == 0, out.stderr
    assert "4 events replayed" in out.stdout
