"""APScheduler wiring only: the scheduler the daemon's jobs (:mod:`tapestryd.daemon.jobs`) run on.

A 3.x ``BackgroundScheduler`` in the configured timezone, so a job at ``03:30`` runs at
03:30 local time. Jobs coalesce (a backlog of missed runs runs once), never overlap
themselves, and a run missed by less than an hour (the machine slept) still happens.
"""

from __future__ import annotations

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from tapestryd.config import Settings

__all__ = ["build_scheduler", "daily_at"]

JOB_DEFAULTS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600}


def build_scheduler(settings: Settings) -> BackgroundScheduler:
    """A stopped scheduler in ``settings.timezone`` with three job threads (a long summarizer run and
    a sync round waiting on a slow hub leave one for the rest)."""
    return BackgroundScheduler(timezone=settings.tz, job_defaults=dict(JOB_DEFAULTS),
                               executors={"default": ThreadPoolExecutor(3)})


def daily_at(hhmm: str, settings: Settings) -> CronTrigger:
    """A trigger firing every day at local ``HH:MM`` (as validated by the config)."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return CronTrigger(hour=hour, minute=minute, timezone=settings.tz)
