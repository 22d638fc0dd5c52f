"""The daemon's scheduled jobs: plain functions of the service, registered by :func:`register_jobs`.

A job is ``fn(service)``, run on a scheduler thread. A job that writes does so through
the one writer: ``service.writer.run(lambda runtime: ..., name="day-close")`` waits for
the task and returns its result (see :mod:`tapestryd.daemon.writer`). Record what a run
did with ``service.state.record_job(name, summary)``; ``status`` shows it.

To add a job, write its function here and one ``scheduler.add_job`` line in
:func:`register_jobs` (with a fixed ``id`` and ``replace_existing=True``, because a
reload registers every job again with the new settings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.interval import IntervalTrigger

from tapestryd.daemon.storage import PROBE_INTERVAL

if TYPE_CHECKING:
    from tapestryd.daemon.service import Service

__all__ = ["probe_storage", "register_jobs", "sweep_sources"]


def register_jobs(scheduler: BaseScheduler, service: Service) -> None:
    """Add (or replace) every scheduled job of the daemon."""
    sources = service.settings.sources
    scheduler.add_job(sweep_sources, IntervalTrigger(seconds=max(1.0, sources.sweep_interval)), args=[service],
                      id="sweep", name="sweep watched sources", replace_existing=True)
    scheduler.add_job(probe_storage, IntervalTrigger(seconds=PROBE_INTERVAL), args=[service],
                      id="storage-probe", name="probe a full or read-only data folder", replace_existing=True)


def sweep_sources(service: Service) -> None:
    """Compare the session files on disk with the stored offsets and read what changed."""
    service.sweep()


def probe_storage(service: Service) -> None:
    """While storage is suspended, try a write; when it works, catch up from the stored offsets."""
    storage = service.state.storage
    if storage.tripped and storage.probe(service.paths.data_dir) and service.feeds is not None:
        service.feeds.catch_up()
