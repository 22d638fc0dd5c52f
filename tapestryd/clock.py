"""The Clock seam and local calendar periods.

Timestamps are stored as UTC; periods (days, weeks, months, years) are computed in the
configured IANA timezone with :mod:`zoneinfo`. Weeks start on ``first_day_of_week``
(0 = Monday) and a week that spans two months is split at the month boundary, so every
week node has exactly one month parent (as python-tapestry does).

Period keys, used as node keys by the hierarchy:

=====  ==========================  ==========================
level  period                      key
=====  ==========================  ==========================
L1     one local day               ``2026-03-04``
L2     a (split) week              ``2026-03-30w`` (its first day, in its month)
L3     a month                     ``2026-03``
L4     a year                      ``2026``
=====  ==========================  ==========================
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from typing import Protocol
from zoneinfo import ZoneInfo

from tapestryd.errors import TapestryError

SUPPORTED_FROM = date(1970, 1, 1)
"""The first day tapestryd accepts (no chat predates it); local or UTC, both inclusive."""
SUPPORTED_UNTIL = date(2999, 12, 31)
"""The last day tapestryd accepts: far enough from ``date.max`` that week, month and
timezone arithmetic around any accepted day never overflows."""


class UnsupportedDateError(TapestryError, ValueError):
    """A date or instant outside :data:`SUPPORTED_FROM` … :data:`SUPPORTED_UNTIL`.

    Both a TapestryError (the CLI prints it as one line) and a ValueError (so parsers that
    already treat ValueError as "not a timestamp" reject it too).
    """


def check_supported(value: date | datetime, what: str) -> None:
    """Raise UnsupportedDateError unless ``value`` lies in the supported range.

    A ``date`` is compared as is; an aware ``datetime`` by its UTC day (a naive one is read
    as UTC). ``what`` names the value in the message (e.g. ``"--until '0001-01-01'"``).
    """
    day = value.astimezone(timezone.utc).date() if isinstance(value, datetime) and value.tzinfo else value
    day = day.date() if isinstance(day, datetime) else day
    if not SUPPORTED_FROM <= day <= SUPPORTED_UNTIL:
        raise UnsupportedDateError(f"{what} is outside the supported dates {SUPPORTED_FROM.isoformat()} "
                                   f"to {SUPPORTED_UNTIL.isoformat()}")


STORABLE_FROM = SUPPORTED_FROM + timedelta(days=1)
"""The first UTC day of a message tapestryd stores: a day inside :data:`SUPPORTED_FROM`, so the
message's local day is supported in every timezone (offsets reach ±14 hours)."""
STORABLE_UNTIL = SUPPORTED_UNTIL - timedelta(days=1)
"""The last UTC day of a message tapestryd stores (see :data:`STORABLE_FROM`)."""


def check_storable(ts: datetime, what: str) -> None:
    """Raise UnsupportedDateError unless the instant ``ts`` (aware) falls on a UTC day from
    :data:`STORABLE_FROM` to :data:`STORABLE_UNTIL`, so its day exists in every timezone.

    Importers call it on every message time; ``what`` names the value (``"timestamp '…'"``).
    """
    if not STORABLE_FROM <= ts.astimezone(timezone.utc).date() <= STORABLE_UNTIL:
        raise UnsupportedDateError(f"{what} is outside the dates tapestryd stores, {STORABLE_FROM.isoformat()} "
                                   f"to {STORABLE_UNTIL.isoformat()} UTC")


__all__ = [
    "STORABLE_FROM",
    "STORABLE_UNTIL",
    "check_storable",
    "SUPPORTED_FROM",
    "SUPPORTED_UNTIL",
    "Clock",
    "FixedClock",
    "Period",
    "SystemClock",
    "UnsupportedDateError",
    "check_supported",
    "day_close_at",
    "day_period",
    "local_date",
    "month_period",
    "parse_period_key",
    "period_of",
    "utc_range",
    "week_period",
    "year_period",
]


class Clock(Protocol):
    """Tells the current time as an aware UTC datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        """The current time, aware, in UTC."""
        return datetime.now(timezone.utc)


class FixedClock:
    """A clock for tests: stands still at ``at`` until ``advance`` moves it."""

    def __init__(self, at: datetime) -> None:
        self.at = at if at.tzinfo else at.replace(tzinfo=timezone.utc)

    def now(self) -> datetime:
        """The fixed instant."""
        return self.at

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.at += timedelta(seconds=seconds)


@dataclass(frozen=True, order=True)
class Period:
    """A local calendar period of one level: first and last day, both inclusive."""

    level: int
    start: date
    end: date

    @property
    def key(self) -> str:
        """The period's stable key (see the module docstring)."""
        if self.level == 1:
            return self.start.isoformat()
        if self.level == 2:
            return f"{self.start.isoformat()}w"
        if self.level == 3:
            return f"{self.start.year:04d}-{self.start.month:02d}"
        return f"{self.start.year:04d}"

    def days(self) -> list[date]:
        """Every local day of the period, in order."""
        return [self.start + timedelta(days=i) for i in range((self.end - self.start).days + 1)]

    def parent(self, first_day_of_week: int) -> Period | None:
        """The enclosing period one level up (None for a year)."""
        return None if self.level >= 4 else period_of(self.level + 1, self.start, first_day_of_week)


def local_date(ts: datetime, tz: ZoneInfo) -> date:
    """The local calendar day of an aware instant in ``tz``."""
    return ts.astimezone(tz).date()


def day_period(day: date) -> Period:
    """The L1 period of one day."""
    return Period(1, day, day)


def week_period(day: date, first_day_of_week: int) -> Period:
    """The L2 period holding ``day``: its week, clipped to ``day``'s month."""
    start = day - timedelta(days=(day.weekday() - first_day_of_week) % 7)
    end = start + timedelta(days=6)
    month = month_period(day)
    return Period(2, max(start, month.start), min(end, month.end))


def month_period(day: date) -> Period:
    """The L3 period of ``day``'s month."""
    last = calendar.monthrange(day.year, day.month)[1]
    return Period(3, day.replace(day=1), day.replace(day=last))


def year_period(day: date) -> Period:
    """The L4 period of ``day``'s year."""
    return Period(4, date(day.year, 1, 1), date(day.year, 12, 31))


def period_of(level: int, day: date, first_day_of_week: int = 0) -> Period:
    """The period of ``level`` (1–4) that holds ``day``."""
    if level == 1:
        return day_period(day)
    if level == 2:
        return week_period(day, first_day_of_week)
    if level == 3:
        return month_period(day)
    if level == 4:
        return year_period(day)
    raise ValueError(f"no calendar period for level {level}")


def parse_period_key(key: str, first_day_of_week: int = 0) -> Period:
    """The period a key names (``2026``, ``2026-03``, ``2026-03-30w``, ``2026-03-04``).

    Raises ValueError for a string that is not a period key, UnsupportedDateError (a
    ValueError) for a period outside :data:`SUPPORTED_FROM` … :data:`SUPPORTED_UNTIL`.
    """
    parts = key.removesuffix("w").split("-")
    if len(parts) == 1:
        first = date(int(parts[0]), 1, 1)
    elif len(parts) == 2:
        first = date(int(parts[0]), int(parts[1]), 1)
    else:
        first = date.fromisoformat(key.removesuffix("w"))
    check_supported(first, repr(key))
    if key.endswith("w"):
        return week_period(first, first_day_of_week)
    return period_of({1: 4, 2: 3}.get(len(parts), 1), first, first_day_of_week)


def utc_range(start: date, end: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC instants [start 00:00, day after end 00:00) of local days ``start``..``end``."""
    lo = datetime.combine(start, time(), tzinfo=tz)
    hi = datetime.combine(end + timedelta(days=1), time(), tzinfo=tz)
    return lo.astimezone(timezone.utc), hi.astimezone(timezone.utc)


def day_close_at(day: date, tz: ZoneInfo, grace_seconds: float) -> datetime:
    """When local ``day`` closes: the next local midnight plus the grace, in UTC."""
    return utc_range(day, day, tz)[1] + timedelta(seconds=grace_seconds)
