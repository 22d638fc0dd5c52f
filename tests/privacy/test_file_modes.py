"""Folders 0700 and databases/backups 0600 whatever the umask (issue 17)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapestryd.config import Settings
from tapestryd.operations import backup as backups
from tapestryd.operations.runtime import Runtime
from tapestryd.filemodes import private_dir, private_file, too_open
from tapestryd.paths import paths_for


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """Umask 002 (group-writable by default) for the test, the loosest common one."""
    old = os.umask(0o002)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_home_is_private_under_a_loose_umask(settings: Settings, loose_umask: None) -> None:
    paths = paths_for(settings)
    with Runtime.open(settings):
        info = backups.backup_log(paths.events_db, paths.backups)
    for folder in paths.private_dirs():
        assert _mode(folder) == 0o700, folder
    for db in (paths.events_db, paths.projections_db, info.path):
        assert _mode(db) == 0o600, db
    for wal in paths.data_dir.glob("*.db-*"):
        assert too_open(wal) is None, wal


def test_private_helpers_tighten_what_exists(tmp_path: Path, loose_umask: None) -> None:
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True, mode=0o777)
    os.chmod(folder, 0o755)
    assert too_open(folder) == 0o755
    assert private_dir(folder) == folder and _mode(folder) == 0o700
    made = private_dir(tmp_path / "new" / "leaf")
    assert _mode(made) == 0o700
    file = folder / "x.db"
    file.write_text("kept")
    os.chmod(file, 0o644)
    private_file(file)
    assert _mode(file) == 0o600 and file.read_text() == "kept"
    assert _mode(private_file(folder / "fresh")) == 0o600
    assert too_open(file) is None and too_open(tmp_path / "missing") is None


def test_verify_reports_wide_modes_and_fix_repairs_them(settings: Settings) -> None:
    """A home made before 0700/0600 (umask 022): verify names each path and exits 1; --fix repairs."""
    import tapestryd.cli.safety  # noqa: F401  (registers the commands)
    from tapestryd.cli.app import app

    paths = paths_for(settings)
    with Runtime.open(settings):
        backups.backup_log(paths.events_db, paths.backups)
    env = paths.data_dir / ".env"
    env.write_text("TAPESTRY_API_KEY=sk-test\n")
    loose = [paths.data_dir, paths.backups, paths.events_db, paths.projections_db, env,
             *paths.backups.glob("*.db")]
    for path in loose:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    runner = CliRunner()
    result = runner.invoke(app, ["verify"])
    assert result.exit_code == 1, result.output
    for path in loose:
        assert f"{path} is 0" in result.output
    assert "verify --fix" in result.output
    fixed = runner.invoke(app, ["verify", "--fix"])
    assert fixed.exit_code == 0, fixed.output
    assert all(too_open(p) is None for p in loose)
    assert _mode(paths.data_dir) == 0o700 and _mode(env) == 0o600
    again = runner.invoke(app, ["verify"])
    assert again.exit_code == 0 and "verified" in again.output
