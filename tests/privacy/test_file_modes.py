"""Folders 0700 and databases/backups 0600 whatever the umask (issue 17)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tapestryd.config import Settings
from tapestryd.daemon import backup as backups
from tapestryd.daemon.runtime import Runtime
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
