"""Backups of the event log with SQLite's online backup API, their rotation, and restore.

* :func:`backup_log` copies ``events.db`` into ``<data>/backups/events-<UTC stamp>.db``
  with ``sqlite3.Connection.backup`` (https://www.sqlite.org/backup.html) in one step, so
  the copy is a consistent snapshot even while the daemon appends (WAL readers do not
  block the writer). It is written under a temporary name, checked with
  ``PRAGMA quick_check``, fsynced, made mode 0600 and renamed into place.
* :func:`prune_backups` keeps the newest backup of each of the last ``daily`` (7) local
  days that have one and of each of the last ``weekly`` (4) local weeks, and deletes
  the other rotation backups. Safety copies (``pre-restore-*``, ``pre-compact-*``) are
  never pruned: they go when the user confirms (``tapestryctl compact --confirm``).
* :func:`restore_log` replaces ``events.db`` by a backup after checking it, keeping the
  replaced log as ``pre-restore-<stamp>.db``. Only a process holding the writer lock
  with the log closed may call it (``tapestryctl restore`` refuses while a daemon runs).
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, TypedDict
from zoneinfo import ZoneInfo

import structlog

from tapestryd.errors import StoreError, TapestryError
from tapestryd.filemodes import private_dir

__all__ = ["BackupInfo", "Rotation", "backup_log", "check_backup", "list_backups", "prune_backups", "restore_log",
           "rotate"]

log = structlog.get_logger(__name__)

ROTATION = "events"
_NAME = re.compile(r"^(?P<label>events|pre-restore|pre-compact)-(?P<stamp>\d{8}T\d{6}Z)(?:-(?P<n>\d+))?\.db$")


@dataclass(frozen=True)
class BackupInfo:
    """One backup file: path, label (``events``, ``pre-restore``, ``pre-compact``), UTC time, bytes."""

    path: Path
    label: str
    taken_at: datetime
    size: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: path, label, taken_at (ISO UTC) and size (bytes)."""
        return {"path": str(self.path), "label": self.label, "taken_at": self.taken_at.isoformat(), "size": self.size}


def list_backups(folder: Path) -> list[BackupInfo]:
    """Every backup in ``folder``, oldest first (files not named by :func:`backup_log` are ignored)."""
    found = []
    for path in folder.glob("*.db") if folder.is_dir() else ():
        match = _NAME.match(path.name)
        if match:
            taken = datetime.strptime(match["stamp"], "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
            found.append(BackupInfo(path, match["label"], taken, path.stat().st_size))
    return sorted(found, key=lambda b: (b.taken_at, _copy_number(b.path.name), b.path.name))


def _copy_number(name: str) -> int:
    """0 for ``<stem>.db``, n for ``<stem>-n.db`` (a later copy in the same second; '-' sorts before '.')."""
    match = _NAME.match(name)
    return int(match["n"]) if match and match["n"] else 0


def backup_log(events_db: Path, folder: Path, *, now: datetime | None = None, label: str = ROTATION) -> BackupInfo:
    """Copy the event log into ``folder`` as ``<label>-<UTC stamp>.db``; returns what was written.

    Raises StoreError when the log cannot be read or the copy cannot be written (disk
    full, read-only folder); a half-written copy is removed.
    """
    if not events_db.is_file():
        raise StoreError(f"no event log at {events_db}: nothing to back up")
    taken = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    private_dir(folder)
    target = _free_name(folder, f"{label}-{taken:%Y%m%dT%H%M%SZ}")
    partial = target.with_name(target.name + ".partial")
    try:
        _copy(events_db, partial)
        os.replace(partial, target)
        _fsync_dir(folder)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"cannot back up {events_db} to {folder}: {exc}") from exc
    log.info("backup.written", path=str(target), bytes=target.stat().st_size)
    return BackupInfo(target, label, taken, target.stat().st_size)


def _free_name(folder: Path, stem: str) -> Path:
    candidate, n = folder / f"{stem}.db", 1
    while candidate.exists():
        candidate, n = folder / f"{stem}-{n}.db", n + 1
    return candidate


def _copy(source: Path, target: Path) -> None:
    """Online-backup ``source`` into a new file ``target`` (0600), quick_check it and fsync it."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode = DELETE")
        if dst.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError(f"the copy of {source} fails quick_check")
    finally:
        dst.close()
        src.close()
    with open(target, "rb") as fh:
        os.fsync(fh.fileno())


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prune_backups(folder: Path, *, tz: ZoneInfo, first_day_of_week: int = 0, daily: int = 7,
                  weekly: int = 4) -> list[Path]:
    """Delete rotation backups that are neither among the last ``daily`` days nor ``weekly`` weeks.

    Days and weeks are local (``tz``; weeks start on ``first_day_of_week``, 0 = Monday).
    The newest backup of each kept day or week is kept. Returns the deleted paths.
    """
    rotation = [b for b in list_backups(folder) if b.label == ROTATION]
    keep = _newest_per(rotation, lambda d: d, tz, daily) | _newest_per(
        rotation, lambda d: d - timedelta(days=(d.weekday() - first_day_of_week) % 7), tz, weekly)
    removed = [b.path for b in rotation if b.path not in keep]
    for path in removed:
        path.unlink(missing_ok=True)
        log.info("backup.pruned", path=str(path))
    return removed


def _newest_per(backups: list[BackupInfo], bucket_of: Callable[[date], date], tz: ZoneInfo, count: int) -> set[Path]:
    newest: dict[date, BackupInfo] = {}
    for b in backups:  # oldest first, so the last one seen per bucket is the newest
        newest[bucket_of(b.taken_at.astimezone(tz).date())] = b
    return {newest[k].path for k in sorted(newest, reverse=True)[:count]}


class Rotation(TypedDict):
    """What :func:`rotate` did: the backup written (:meth:`BackupInfo.to_dict`), the paths pruned, the count kept."""

    backup: dict[str, object]
    pruned: list[str]
    kept: int


def rotate(events_db: Path, folder: Path, *, tz: ZoneInfo, first_day_of_week: int = 0,
           now: datetime | None = None) -> Rotation:
    """One backup then pruning (the nightly job and ``tapestryctl backup``).

    Returns ``{"backup": BackupInfo dict, "pruned": [paths], "kept": n}``; raises StoreError
    as :func:`backup_log` does.
    """
    info = backup_log(events_db, folder, now=now)
    pruned = prune_backups(folder, tz=tz, first_day_of_week=first_day_of_week)
    kept = sum(1 for b in list_backups(folder) if b.label == ROTATION)
    return {"backup": info.to_dict(), "pruned": [str(p) for p in pruned], "kept": kept}


def check_backup(path: Path) -> int:
    """The last seq of a backup, after checking it is an intact event log.

    Raises TapestryError naming the file when it is missing, not SQLite, corrupt, or has
    no ``events`` table.
    """
    if not path.is_file():
        raise TapestryError(f"no such backup: {path}")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            status = conn.execute("PRAGMA integrity_check").fetchone()[0]
            last = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise TapestryError(f"{path} is not a tapestry event log: {exc}") from exc
    if status != "ok":
        raise TapestryError(f"{path} is damaged: integrity_check says {status}")
    return int(last)


def restore_log(backup: Path, events_db: Path, folder: Path, *, now: datetime | None = None) -> dict[str, object]:
    """Replace the (closed) event log by ``backup``; the old log is kept as ``pre-restore-*``.

    The caller holds the writer lock and has closed every connection to ``events_db``.
    Returns ``{"restored": path, "last_seq": n, "previous": path or None}``. Raises
    TapestryError when the backup is unusable (the current log is then untouched).
    """
    last = check_backup(backup)
    previous = None
    if events_db.is_file():
        previous = backup_log(events_db, folder, now=now, label="pre-restore").path
    staged = events_db.with_name(events_db.name + ".restoring")
    staged.unlink(missing_ok=True)
    try:
        _copy(backup, staged)
        for suffix in ("-wal", "-shm"):  # a stale WAL would be replayed into the restored file
            Path(f"{events_db}{suffix}").unlink(missing_ok=True)
        os.replace(staged, events_db)
        _fsync_dir(events_db.parent)
    except (sqlite3.Error, OSError) as exc:
        staged.unlink(missing_ok=True)
        raise StoreError(f"cannot restore {backup} into {events_db}: {exc}") from exc
    log.info("backup.restored", source=str(backup), last_seq=last, previous=str(previous) if previous else "")
    return {"restored": str(backup), "last_seq": last, "previous": str(previous) if previous else None}
