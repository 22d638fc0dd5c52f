"""Read permission of a socket peer: ``ingest`` imports only what the requesting uid could read.

:func:`check_readable` refuses an ``ingest`` path that uid could not read itself (POSIX
permission bits of the file and search permission on every folder above it; the daemon
never reads on a peer's behalf what the peer may not read).
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from pathlib import Path
from typing import Iterable

from tapestryd.errors import TapestryError

__all__ = ["check_readable", "readable_by"]


def _groups(uid: int) -> set[int]:
    try:
        entry = pwd.getpwuid(uid)
    except KeyError:
        return set()
    listed = {g.gr_gid for g in grp.getgrall() if entry.pw_name in g.gr_mem}
    return set(os.getgrouplist(entry.pw_name, entry.pw_gid)) | listed


def _allowed(info: os.stat_result, uid: int, groups: set[int], bits: tuple[int, int, int]) -> bool:
    user, group, other = bits
    if info.st_uid == uid:
        return bool(info.st_mode & user)
    if info.st_gid in groups:
        return bool(info.st_mode & group)
    return bool(info.st_mode & other)


_READ = (stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH)
_SEARCH = (stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH)


def readable_by(path: Path, uid: int) -> bool:
    """Whether ``uid`` may read ``path`` (and list it, for a folder) by permission bits; root may."""
    if uid == 0:
        return True
    groups = _groups(uid)
    try:
        target = path.resolve(strict=True)
        info = target.stat()
        parents_ok = all(_allowed(p.stat(), uid, groups, _SEARCH) for p in target.parents)
    except OSError:
        return False
    needed = [_READ, _SEARCH] if stat.S_ISDIR(info.st_mode) else [_READ]
    return parents_ok and all(_allowed(info, uid, groups, bits) for bits in needed)


def check_readable(paths: Iterable[Path], uid: int | None) -> None:
    """Raise TapestryError naming the first path ``uid`` may not read (None: not a socket peer).

    A path that does not exist is left to the importer, which reports it in the receipt.
    """
    if uid is None:
        return
    for path in paths:
        if os.path.lexists(path) and not readable_by(path, uid):
            raise TapestryError(f"{path}: not readable by uid {uid}; tapestryd only imports what you can read")
