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

import threading
from datetime import datetime
from typing import Any, Protocol

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.interval import IntervalTrigger

from tapestryd.clock import SystemClock
from tapestryd.config import Settings
from tapestryd.daemon.feeds import Feeds
from tapestryd.daemon.schedule import daily_at
from tapestryd.daemon.state import DaemonState
from tapestryd.daemon.storage import PROBE_INTERVAL
from tapestryd.daemon.summary_worker import isolated
from tapestryd.daemon.writer import Writer
from tapestryd.errors import StoreError, TapestryError
from tapestryd.operations.backup import rotate
from tapestryd.operations.hierarchy_jobs import Host, repair_job, summarize_job
from tapestryd.paths import Paths

__all__ = ["Service", "backup_nightly", "probe_storage", "register_jobs", "repair_hierarchy", "summarize_hierarchy",
           "sweep_sources", "sync_hub"]


class Service(Protocol):
    """What the jobs use of the daemon's service (:class:`tapestryd.daemon.service.Service`)."""

    settings: Settings
    paths: Paths
    state: DaemonState
    writer: Writer | None
    feeds: Feeds | None
    halt: threading.Event

    def halted(self) -> bool:
        """Whether summarizer runs must end now (paused or stopping)."""

    def sweep(self) -> None:
        """Catch up with session files changed on disk."""

    def sync_now(self, from_start: bool = False, batch: int = 2000) -> dict[str, Any]:
        """Run one sync round (see :meth:`tapestryd.daemon.service.Service.sync_now`)."""


def register_jobs(scheduler: BaseScheduler, service: Service) -> None:
    """Add (or replace) every scheduled job of the daemon."""
    sources = service.settings.sources
    scheduler.add_job(sweep_sources, IntervalTrigger(seconds=max(1.0, sources.sweep_interval)), args=[service],
                      id="sweep", name="sweep watched sources", replace_existing=True)
    scheduler.add_job(backup_nightly, daily_at(service.settings.schedule.backup_time, service.settings),
                      args=[service], id="backup", name="back up the event log", replace_existing=True)
    scheduler.add_job(probe_storage, IntervalTrigger(seconds=PROBE_INTERVAL), args=[service],
                      id="storage-probe", name="probe a full or read-only data folder", replace_existing=True)
    scheduler.add_job(summarize_hierarchy, IntervalTrigger(seconds=60), args=[service], id="hierarchy",
                      name="close due days, summarize dirty nodes", next_run_time=datetime.now(service.settings.tz),
                      replace_existing=True)
    scheduler.add_job(repair_hierarchy, daily_at(service.settings.schedule.repair_time, service.settings),
                      args=[service], id="repair", name="nightly repair cascade", replace_existing=True)
    if service.settings.sync.enabled:
        scheduler.add_job(sync_hub, IntervalTrigger(seconds=service.settings.sync.interval), args=[service], id="sync",
                          name="push to and pull from the sync hub", next_run_time=datetime.now(service.settings.tz),
                          replace_existing=True)
    elif scheduler.get_job("sync") is not None:
        scheduler.remove_job("sync")


def sweep_sources(service: Service) -> None:
    """Compare the session files on disk with the stored offsets and read what changed."""
    service.sweep()


def probe_storage(service: Service) -> None:
    """While storage is suspended, try a write; when it works, catch up from the stored offsets."""
    storage = service.state.storage
    if storage.tripped and storage.probe(service.paths.data_dir) and service.feeds is not None:
        service.feeds.catch_up()


def backup_nightly(service: Service) -> None:
    """Back up the log (online backup API, beside the writer) and prune to 7 daily and 4 weekly copies."""
    settings = service.settings
    try:
        result = rotate(service.paths.events_db, service.paths.backups, tz=settings.tz,
                        first_day_of_week=settings.first_day_of_week)
    except StoreError as exc:
        service.state.record_error("backup", exc.message)
        return
    service.state.record_job("backup", {"path": result["backup"]["path"], "pruned": len(result["pruned"])})


def sync_hub(service: Service) -> None:
    """One sync round with the hub (on start, then every ``[sync] interval`` seconds); a failure is
    recorded for ``status`` and the next round retries."""
    if service.state.paused or service.writer is None:
        return
    try:
        report = service.sync_now()
    except TapestryError as exc:
        service.state.record_error("sync", exc.message)
        return
    service.state.record_job("sync", {part: report[part]["new"] for part in ("push", "pull", "forgotten")})


def summarize_hierarchy(service: Service) -> None:
    """Close the days that are due and summarize dirty closed nodes (on start, then every minute).

    Provider calls run on this scheduler thread (a local provider in a child process, see
    :mod:`tapestryd.daemon.summary_worker`); only the appends go through the writer.
    The run ends after the node in hand once the daemon is paused or stopping
    (:meth:`~tapestryd.daemon.service.Service.halted`).
    """
    if service.state.paused or service.writer is None:
        return
    try:
        with Host.of_daemon(service.settings, service.writer, halted=service.halted) as host, \
                isolated(service.settings.summarize, halted=service.halted, halt=service.halt) as s:
            service.state.record_job("hierarchy", summarize_job(host, SystemClock(), s, max_seconds=50.0))
    except TapestryError as exc:
        service.state.record_error("hierarchy", exc.message)


def repair_hierarchy(service: Service) -> None:
    """The nightly repair cascade at ``schedule.repair_time`` (local)."""
    if service.state.paused or service.writer is None:
        return
    try:
        with Host.of_daemon(service.settings, service.writer, halted=service.halted) as host, \
                isolated(service.settings.summarize, halted=service.halted, halt=service.halt) as s:
            service.state.record_job("repair", repair_job(host, SystemClock(), s))
    except TapestryError as exc:
        service.state.record_error("repair", exc.message)
