"""The DayClosed appender: closes local days at midnight plus the grace, and catches up on start.

Day ``d`` closes at local midnight after ``d`` plus ``close_grace`` seconds
(:func:`tapestryd.clock.day_close_at`). At instant ``t`` every day from the first day with
a message up to ``local_date(t - grace) - 1`` is closed; :func:`close_days` appends a
``DayClosed`` (agent ``''``: every agent) for each of those days the hierarchy has not
seen closed yet, so a daemon that was down for a week closes the whole week at start.
Weeks, months and years close with their last day (the projection does that). Event ids
hash (agent, date, timezone), so appending a day twice is a no-op and a timezone change
closes days anew in the new zone.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import structlog

from tapestryd.clock import Clock, day_close_at, local_date
from tapestryd.events.types import DayClosed, NewEvent, event_id, parse_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.projections.hierarchy_read import closed_day_count, closed_days
from tapestryd.projections.messages_read import first_message_ts

__all__ = ["close_days", "days_to_close", "last_closed_day", "next_close_at"]

log = structlog.get_logger(__name__)


def last_closed_day(now: datetime, tz: ZoneInfo, grace_seconds: float) -> date:
    """The latest local day that is closed at instant ``now`` (aware)."""
    return local_date(now - timedelta(seconds=grace_seconds), tz) - timedelta(days=1)


def next_close_at(now: datetime, tz: ZoneInfo, grace_seconds: float) -> datetime:
    """The next instant (UTC) after ``now`` at which a day closes."""
    return day_close_at(last_closed_day(now, tz, grace_seconds) + timedelta(days=1), tz, grace_seconds)


def days_to_close(runtime: Runtime, now: datetime) -> list[date]:
    """Closed days (at ``now``) since the first message that the hierarchy has not seen closed."""
    conn, settings = runtime.projector.conn, runtime.settings
    first = first_message_ts(conn)
    if first is None:
        return []
    start = local_date(parse_utc(first), settings.tz)
    last = last_closed_day(now, settings.tz, settings.schedule.close_grace)
    span = (start.isoformat(), last.isoformat())
    if closed_day_count(conn, *span) >= (last - start).days + 1:  # the usual answer (every tail pass asks)
        return []
    done = closed_days(conn, *span)
    days = (start + timedelta(days=n) for n in range((last - start).days + 1))
    return [d for d in days if d.isoformat() not in done]


def close_days(runtime: Runtime, clock: Clock) -> int:
    """Append a DayClosed for every day closed by now and not yet closed; returns how many were new."""
    runtime.projector.catch_up()
    days = days_to_close(runtime, clock.now())
    if not days:
        return 0
    zone, tz, grace = runtime.settings.timezone, runtime.settings.tz, runtime.settings.schedule.close_grace
    events = [NewEvent(event_id(DayClosed.type, "", d.isoformat(), zone), DayClosed(d.isoformat(), zone, ""),
                       day_close_at(d, tz, grace), agent="", source="scheduler") for d in days]
    new = runtime.store.append(events).new
    runtime.projector.catch_up()
    log.info("days.closed", first=days[0].isoformat(), last=days[-1].isoformat(), new=new)
    return new
