"""Fixtures of the importer tests: a real event store and projector in the test's home."""

from __future__ import annotations

from typing import Iterator

import pytest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections


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

