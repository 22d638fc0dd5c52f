"""Private folders and files: created 0700 / 0600 whatever the umask, and checked later.

The event log holds every message verbatim (secrets included), so the data, cache, backup
and archive folders are ``0700`` and the databases, backups and ``.env`` ``0600``. A mode
passed to ``mkdir``/``open`` is masked by the umask, so each function here also sets the
mode explicitly after creating. :func:`too_open` tells ``tapestryctl verify`` which paths
group or others may reach.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "mode_check", "private_dir", "private_file", "too_open"]

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create the folder ``path`` (and missing parents) and make ``path`` itself mode 0700.

    Parents created here keep the umask's mode (they may be shared, like ``~/.local/share``);
    an existing ``path`` is tightened too. Returns ``path``. Raises OSError when it cannot
    be created or is not a folder.
    """
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(path.stat().st_mode) != PRIVATE_DIR_MODE:
        os.chmod(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make sure the file ``path`` exists with mode 0600 (created empty when missing; content kept).

    Use it before handing a path to something that creates the file with the umask's mode
    (SQLite, which also gives the ``-wal``/``-shm`` files the database's mode). The parent
    must exist. Returns ``path``. Raises OSError when it cannot be created or is not ours.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CREAT, PRIVATE_FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != PRIVATE_FILE_MODE:
            os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
    return path


def too_open(path: Path) -> int | None:
    """The permission bits of ``path`` when group or others have any access to it, else None.

    None also when ``path`` does not exist. Symlinks are followed (the target is what leaks).
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None
    return mode if mode & (stat.S_IRWXG | stat.S_IRWXO) else None


def mode_check(folders: Iterable[Path], files: Iterable[Path], *, fix: bool = False) -> dict[str, Any]:
    """The ``modes`` check of ``tapestryctl verify``: which private ``folders``/``files`` others may reach.

    Missing paths are skipped. With ``fix`` each one found is set to 0700 (folders) or 0600
    (files) and the check passes unless a change fails. Returns ``{"name": "modes", "ok",
    "detail", "problems": ["<path> is 0755, should be 0700" ...]}`` (the shape of the other
    verify checks).
    """
    wanted = [(p, PRIVATE_DIR_MODE) for p in folders] + [(p, PRIVATE_FILE_MODE) for p in files]
    loose = [(p, mode, want) for p, want in wanted if (mode := too_open(p)) is not None]
    problems, failed = [], 0
    for path, mode, want in loose:
        line = f"{path} is {mode:04o}, should be {want:04o}"
        if fix:
            try:
                os.chmod(path, want)
                line += " (fixed)"
            except OSError as exc:
                failed += 1
                line += f" (cannot fix: {exc.strerror})"
        problems.append(line)
    if not loose:
        detail = f"{len(wanted)} private paths readable by you alone"
    elif fix:
        detail = f"{len(loose) - failed} of {len(loose)} paths others could read made private"
    else:
        detail = f"{len(loose)} paths others can read (`tapestryctl verify --fix` makes them private)"
    return {"name": "modes", "ok": not loose or (fix and not failed), "detail": detail, "problems": problems}
