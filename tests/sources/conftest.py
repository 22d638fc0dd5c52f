"""Fixtures of the importer tests: a real event store, projector, runtime and raw archive in the test's home."""

from __future__ import annotations

from typing import Iterator

import pytest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections
from tapestryd.sources.archive import ArchiveHook, archive_for


@pytest.fixture
def store(settings: Settings) -> Iterator[EventStore]:
    """The home's event log (``events.db``), closed after the test."""
    log = EventStore(paths_for(settings).events_db)
    yield log
    log.close()


@pytest.fixture
def projector(settings: Settings, store: EventStore) -> Iterator[Projector]:
    """The home's projector over ``store`` with the default projections."""
    proj = Projector(store, paths_for(settings).projections_db,
                     default_projections(settings.timezone, settings.first_day_of_week))
    yield proj
    proj.close()


@pytest.fixture
def runtime(settings: Settings) -> Iterator[Runtime]:
    """The home's runtime (log, projector, writer lock), closed after the test."""
    with Runtime.open(settings) as rt:
        yield rt


@pytest.fixture
def archive(settings: Settings) -> Iterator[ArchiveHook]:
    """The home's raw archive (on by default), closed after the test."""
    hook = archive_for(settings)
    assert hook is not None
    yield hook
    hook.close()
