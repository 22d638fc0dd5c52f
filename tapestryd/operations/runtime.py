"""A Runtime: the open event log and projector of one home, with the writer lock held.

The daemon opens one for its lifetime; the CLI opens one for a single command when no
daemon runs. Both then run the same operations (:mod:`tapestryd.operations`).
"""

from __future__ import annotations

from dataclasses import dataclass

from tapestryd.config import Settings
from tapestryd.embeddings.model import model_dir
from tapestryd.events.store import EventStore
from tapestryd.operations.lock import WriterLock
from tapestryd.paths import Paths, paths_for
from tapestryd.projections import Projector, default_projections

__all__ = ["Runtime"]


@dataclass
class Runtime:
    """Settings, paths, the event store and the projector of one home (the writer's view)."""

    settings: Settings
    paths: Paths
    store: EventStore
    projector: Projector
    lock: WriterLock | None

    @classmethod
    def open(cls, settings: Settings, *, role: str = "cli") -> Runtime:
        """Take the writer lock, open (creating if needed) both databases.

        Raises StoreLockedError when another process writes this home, StoreError when a
        database cannot be opened.
        """
        paths = paths_for(settings)
        paths.ensure()
        lock = WriterLock(paths.lock_file, role)
        try:
            store = EventStore(paths.events_db, machine=settings.sync.machine)
            projector = Projector(store, paths.projections_db,
                                  default_projections(settings.timezone, settings.first_day_of_week,
                                                      model_dir(settings.search.embeddings)))
        except BaseException:
            lock.release()
            raise
        return cls(settings, paths, store, projector, lock)

    def close(self) -> None:
        """Close the databases and release the lock."""
        self.projector.close()
        self.store.close()
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
