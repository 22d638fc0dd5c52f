"""Where every stateful thing lives, derived from :class:`~tapestryd.config.Settings`.

``tapestryctl paths`` prints these. The socket lives in the runtime dir:
``$XDG_RUNTIME_DIR/tapestry/`` on Linux, else a per-user ``0700`` folder in the temp dir.
A home moved with ``TAPESTRY_HOME`` gets its own socket name (a hash of the home), so
several homes (tests, for instance) never share one daemon.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tapestryd.config import Settings
from tapestryd.filemodes import private_dir

__all__ = ["Paths", "paths_for", "runtime_dir"]


@dataclass(frozen=True)
class Paths:
    """Absolute paths of the databases, folders, lock, pid and socket of one home."""

    config_file: Path
    data_dir: Path
    events_db: Path
    projections_db: Path
    archive_db: Path
    lock_file: Path
    inbox: Path
    backups: Path
    logs: Path
    socket: Path
    cache: Path
    sync_key: Path
    sync_state: Path

    def ensure(self) -> None:
        """Create the data, inbox, backup, log, cache and socket folders.

        The data, backup, log and cache folders are made 0700 whatever the umask (they hold
        the history verbatim); the inbox keeps the umask's mode (files are dropped into it).
        """
        for folder in self.private_dirs():
            private_dir(folder)
        self.inbox.mkdir(parents=True, exist_ok=True)
        self.socket.parent.mkdir(mode=0o700, parents=True, exist_ok=True)

    def private_dirs(self) -> tuple[Path, ...]:
        """The folders that must stay 0700: data, backups, logs, cache, the raw archive."""
        return (self.data_dir, self.backups, self.logs, self.cache, self.archive_db.parent)

    def private_files(self) -> tuple[Path, ...]:
        """The files that must stay 0600 (those that exist now): databases and their WAL, lock, backups, ``.env``,
        the sync key."""
        dbs = (self.events_db, self.projections_db, self.archive_db)
        sidecars = tuple(Path(f"{db}{suffix}") for db in dbs for suffix in ("-wal", "-shm", "-journal"))
        backups = tuple(sorted(self.backups.glob("*.db"))) if self.backups.is_dir() else ()
        return dbs + sidecars + (self.lock_file, self.data_dir / ".env", self.sync_key) + backups

    def as_dict(self) -> dict[str, str]:
        """Each path by name, as strings (for ``tapestryctl paths`` and ``status``)."""
        return {name: str(getattr(self, name)) for name in self.__dataclass_fields__}


def runtime_dir() -> Path:
    """The per-user runtime folder: ``$XDG_RUNTIME_DIR/tapestry`` or ``<tmp>/tapestry-<uid>``."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and sys.platform.startswith("linux") and Path(xdg).is_dir():
        return Path(xdg) / "tapestry"
    return Path(tempfile.gettempdir()) / f"tapestry-{os.getuid()}"


def paths_for(settings: Settings) -> Paths:
    """All paths of the home that ``settings`` describes."""
    data = settings.data_dir
    return Paths(
        config_file=settings.config_file,
        data_dir=data,
        events_db=data / "events.db",
        projections_db=data / "projections.db",
        archive_db=data / "archive" / "archive.db",
        lock_file=data / "tapestryd.lock",
        inbox=settings.sources.inbox,
        backups=data / "backups",
        logs=data / "logs",
        socket=settings.socket_override or _socket_path(settings),
        cache=data / "cache",
        sync_key=data / "sync.key",
        sync_state=data / "sync-state.json",
    )


def _socket_path(settings: Settings) -> Path:
    if settings.home is None:
        return runtime_dir() / "tapestryd.sock"
    digest = hashlib.sha256(str(settings.home).encode()).hexdigest()[:12]
    return runtime_dir() / f"tapestryd-{digest}.sock"
