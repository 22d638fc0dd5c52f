"""What a socket peer may do: read permission for ``ingest`` paths, and a request rate limit.

* The server records the uid of the peer a client thread serves (:func:`set_peer_uid`,
  :func:`peer_uid_now`); the dispatcher hands it to operations as ``args["_peer_uid"]``.
  :func:`check_readable` refuses an ``ingest`` path that uid could not read itself
  (POSIX permission bits of the file and search permission on every folder above it;
  the daemon never reads on a peer's behalf what the peer may not read).
* :class:`TokenBucket` bounds requests per connection: ``burst`` at once, ``rate`` per
  second sustained (a token bucket, as in RFC 2697's single-rate meter).
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
import threading
import time
from pathlib import Path
from typing import Iterable

from tapestryd.errors import TapestryError

__all__ = ["PEER_ARG", "TokenBucket", "check_readable", "peer_uid_now", "readable_by", "set_peer_uid"]

PEER_ARG = "_peer_uid"
_local = threading.local()


def set_peer_uid(uid: int | None) -> None:
    """Remember the peer uid of the connection this thread serves."""
    _local.uid = uid


def peer_uid_now() -> int | None:
    """The peer uid of the connection this thread serves (None: unknown, or not a socket thread)."""
    return getattr(_local, "uid", None)


def _groups(uid: int) -> set[int]:
    try:
        entry = pwd.getpwuid(uid)
    except KeyError:
        return set()
    return set(os.getgrouplist(entry.pw_name, entry.pw_gid)) | {g.gr_gid for g in grp.getgrall() if entry.pw_name in g.gr_mem}


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


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; :meth:`take` spends one if there is one."""

    def __init__(self, rate: float = 200.0, burst: float = 400.0) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        """Whether a request may proceed now."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
