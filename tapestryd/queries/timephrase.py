"""Time phrases in queries ("yesterday", "last Tuesday evening", "since March") as ranges.

The phrase is found and read by dateparser (``search_dates`` and ``DateDataParser``, which
also reports the phrase's granularity: day, week, month or year), relative to a Clock's
instant in the configured timezone. This module only turns dateparser's answer into a
range of local calendar time and filters out words dateparser reads too eagerly ("we" as
Wednesday, "may" the verb):

* granularity day / week / month / year → that whole local period (weeks start on
  ``first_day_of_week`` and are not split at month boundaries here);
* "morning" 06–12, "afternoon" 12–18, "evening" 18–24, "night" 18–06 narrow a day;
* "last N units", "past N units" (units: hours, days, weeks, months, years; N in digits or
  one … twelve), also after "in/over/within/during/for the": a rolling window from local
  midnight of the same calendar day N units back (a month back from 31 March is 28
  February) up to now, open-ended; hours count back from the instant itself. "past week"
  (no number) is one unit back. A count with a fraction ("last 1.5 months", "last 2,5
  weeks") is an error naming the phrase and the whole count of a smaller unit to use. A
  window reaching before 1970-01-01 starts there. "last week", "last month" and "last
  year" without a number stay the previous calendar period;
* "since X" / "after X" → from X's start until now; "before X" → up to X's start; "until X"
  / "till X" → up to X's end (X included, as ``--until`` does);
* "between A and B", "from A to B", "A to B" and "A..B" → from A's start to B's end (A borrows B's
  year when it has none: "between November and December 2024"); a range that ends
  before it starts is refused; "A.." runs from A's start up to now, "..B" from the
  beginning to B's end;
* a query holding two separate time phrases ("last 2 months 2026-10-02", "in July in August")
  is read as their overlap, or, when they do not overlap, as the later of the two, but a month named
  without a year beside a year ("in October last year") is that month of that year; the range's note says
  which (a whole string read by :func:`parse_when` holding two is an error naming both); a day word
  beside a period counted from today ("last week yesterday", "today 3 days ago"), or two such periods or
  day words ("last week next week"), are two phrases, though dateparser reads them as one;
* a date written YYYY-MM-DD that does not exist ("2025-02-30") is an error naming it, not
  words;
* a lone month name followed by "of" and a word ("march of progress") and an article with
  a unit ("a week") are words, not times;
* every day read must lie in the supported range of :mod:`tapestryd.clock`.

A range is half-open ``[since, until)`` in UTC; either end may be open (None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from tapestryd.clock import (SUPPORTED_FROM, UnsupportedDateError, check_supported, month_period, parse_period_key,
                             utc_range, year_period)
from tapestryd.errors import TapestryError

__all__ = ["TimeRange", "find_time_phrase", "parse_when", "warm_up"]

_MONTHS = ("january february march april june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec")
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday"
_RELATIVE = "today tonight yesterday ago week weekend month year morning afternoon evening night"
_STRONG = re.compile(rf"\b({'|'.join((_MONTHS + ' ' + _WEEKDAYS + ' ' + _RELATIVE).split())})s?\b", re.I)
_CUE = re.compile(rf"\d|\bmay\b|{_STRONG.pattern}", re.I)
_CAPITAL_MAY = re.compile(r"\bMay\b")
_LEAD = re.compile(r"^(?:(?:on|in|at|during|from|of|the|around)\s+)+", re.I)
_TRAILING_FILLER = re.compile(r"(?:[\s,;]+(?:in|on|at|of|the|and|or|during))*[\s,;]*$", re.I)
_OPEN_AFTER = ("since", "after")
_JOINS = ("and", "or")  # "… in October and in September": the second phrase starts after the word
_OPEN_BEFORE = ("before", "until", "till")
_FUTURE_DAY = "tomorrow"
_PARTS = {"morning": (6, 12), "afternoon": (12, 18), "evening": (18, 24), "night": (18, 30), "tonight": (18, 30)}
_POSSESSIVE = re.compile(r"(\w)['’]s\b")
_ISO_KEY = re.compile(r"^\d{4}(-\d{2}(-\d{2}w?)?)?$")
_MONTH_OF = re.compile(rf"^({'|'.join(_MONTHS.split())})\s+of\s+(?!\d{{4}}\b)\w", re.I)
_ARTICLE_UNIT = re.compile(r"^(a|an|one)\s+(day|week|month|year)s?$", re.I)
_RANGE_OPEN = re.compile(r"\b(between|from)\s+", re.I)
_RANGE_JOIN = {"between": ("and",), "from": ("to", "until", "till", "through")}
_DOTTED = re.compile(r"(?<!\S)((?:\S*[^\s.])?\.\.(?:[^\s.]\S*)?)(?!\S)")  # A..B, A.., ..B
_NUMBERS = {w: n for n, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_ROLLING = re.compile(r"(?<!\w)(?:(?:in|over|within|during|for)\s+)?(?:the\s+)?(last|past|previous)\s+"
                      rf"(?:(\d+|{'|'.join(_NUMBERS)})\s+)?(hour|day|week|month|year)s?\b", re.I)
_ISO_DAY = re.compile(r"(?<![\w-])(?:(on|since|after|before|until|till)\s+)?(\d{4})-(\d{2})-(\d{2})(?![\w-])", re.I)
_YEAR = re.compile(r"\b\d{4}\b")
_IN_YEAR = re.compile(r"(?<=\bin\s)\d{4}\b", re.I)  # a year named as a period: "in 2025"
_FRACTION = re.compile(r"(?<!\w)(?:last|past|previous)\s+(\d+)[.,](\d+)\s+(hour|day|week|month|year)s?\b", re.I)
_SMALLER = {"year": ("month", 12), "month": ("day", 30), "week": ("day", 7), "day": ("hour", 24)}
_DAY_NUMBER = re.compile(
    rf"^(\d{{1,4}})\s+(?=(?:{'|'.join(_MONTHS.split())}|may|(?:minute|hour|day|week|month|year)s?)\b)", re.I)
_LEADING_NUMBER = re.compile(r"^[\d.,]+\s+")
_BARE_TO = re.compile(r"(?<=\s)(?:to|through)(?=\s)", re.I)
_RANGE_WORDS = 5  # the most words read as either end of a range
_DAY_WORD = r"(?:today|yesterday)"
_ANCHORED = r"(?:(?:last|this|next|past|previous)\s+(?:week(?:end)?|month|year)|\d+\s+(?:day|week|month|year)s?\s+ago)"
_COUNTED = rf"(?:{_DAY_WORD}|{_ANCHORED})"
_TWO_COUNTED = re.compile(rf"^({_COUNTED}|(?:in\s+)?\d{{4}})\s+{_COUNTED}$|^({_COUNTED})\s+(?:in\s+)?\d{{4}}$", re.I)
"""Two phrases each counted from today side by side ("last week yesterday", "last week next week", "this month
last month"), or a year before or after one ("in 2025 last week", "last year in 2025"): dateparser reads them as
one."""
_NOT_A_DATE = re.compile(r"\d+\.\d+|\d{1,2}:\d{2}(?::\d{2})?")  # a decimal number, a clock time
_DATE_RUN = re.compile(r"[\d/.:-](?:[\d\s/.:-]*[\d/.:-])?")  # what a digits-only time phrase can be


@dataclass(frozen=True)
class TimeRange:
    """A range read from a phrase: ``[since, until)`` in UTC, either end open (None).

    ``first`` and ``last`` are the local calendar days it covers (inclusive; an open end
    takes the anchor day), ``granularity`` is ``day``, ``week``, ``month``, ``year``,
    ``part`` (part of a day) or ``range``; ``phrase`` is the text as found; ``note``, when
    set, says how the range was narrowed after reading (see :meth:`within`).
    """

    phrase: str
    since: datetime | None
    until: datetime | None
    first: date
    last: date
    granularity: str
    timezone: str
    note: str = ""

    def label(self) -> str:
        """The range in local time, e.g. ``2026-03-03 18:00 → 2026-03-04 00:00 (Europe/Paris)``, then the note."""
        return _label(self.since, self.until, self.timezone) + (f", {self.note}" if self.note else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: phrase, since/until (ISO UTC or None), first/last days, granularity, label."""
        return {"phrase": self.phrase, "since": _iso(self.since), "until": _iso(self.until),
                "first": self.first.isoformat(), "last": self.last.isoformat(),
                "granularity": self.granularity, "label": self.label()}

    def within(self, since: datetime | None, until: datetime | None) -> TimeRange:
        """This range cut to its overlap with ``[since, until)`` (either None: open), noted in its label.

        Raises TapestryError when the two do not overlap.
        """
        lo = max((t for t in (self.since, since) if t is not None), default=None)
        hi = min((t for t in (self.until, until) if t is not None), default=None)
        tz = ZoneInfo(self.timezone)
        flags = " and ".join(f"--{name} {when}" for name, when in (
            ("since", _local(since, tz) if since else ""), ("until", f"(before {_local(until, tz)})" if until else ""))
            if when)
        if lo is not None and hi is not None and hi <= lo:
            raise TapestryError(f"{self.phrase!r} ({self.label()}) and {flags} do not overlap: drop one of them")
        first = lo.astimezone(tz).date() if lo else self.first
        last = (hi - timedelta(microseconds=1)).astimezone(tz).date() if hi else self.last
        alone = _label(self.since, self.until, self.timezone, named=False)
        return TimeRange(self.phrase, lo, hi, first, last, "range", self.timezone,
                         f"the part within {flags} ({self.phrase!r} alone: {alone})")


def _label(since: datetime | None, until: datetime | None, zone: str, *, named: bool = True) -> str:
    """``since → until`` in local time of ``zone`` (open ends: "the beginning", "now"), ``(zone)`` if ``named``."""
    tz = ZoneInfo(zone)
    lo = _local(since, tz) if since else "the beginning"
    hi = _local(until, tz) if until else "now"
    return f"{lo} → {hi}" + (f" ({zone})" if named else "")


def _local(moment: datetime, tz: ZoneInfo) -> str:
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def _iso(ts: datetime | None) -> str | None:
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if ts else None


def find_time_phrase(query: str, *, now: datetime, tz: ZoneInfo, first_day_of_week: int = 0,
                     two: bool = True) -> tuple[TimeRange | None, str]:
    """The first time phrase in ``query`` as a range, and the query without it.

    ``now`` is the aware instant relative phrases count from. Returns ``(None, query)``
    when the query holds no time phrase. dateparser is imported only when the query has a
    digit or a calendar word, so plain queries stay cheap.

    Two separate time phrases are read as one range (:func:`_both`: their overlap, else the
    later), both taken out of the rest; with ``two=False`` they are an error naming both.
    Raises TapestryError for a fractional count ("last 1.5 months") or a day that does not
    exist.
    """
    if not _CUE.search(query):
        return None, query
    text = _POSSESSIVE.sub(r"\1", query)
    _check_real_days(text)
    _check_whole_counts(text)
    found, rest = _find_one(text, now, tz, first_day_of_week)
    if found is None:
        return None, query
    again, after = _find_one(rest, now, tz, first_day_of_week) if _CUE.search(rest) else (None, rest)
    if again is not None and two:
        return _both(found, again), after
    if again is not None:
        raise _TwoPhrases(f"the query holds two time phrases, {found.phrase!r} and {again.phrase!r}: keep one, "
                          f"or join them into one range ('A to B', 'since A', A..B)")
    return found, rest


def warm_up(tz: ZoneInfo) -> None:
    """Read one time phrase in ``tz`` so that dateparser and its English data are loaded.

    The first phrase a process reads costs about 0.4 CPU-seconds (several seconds of wall time on
    a busy machine); the daemon calls this in the background as it starts, so the first query
    with a time phrase answers at once. Raises nothing of its own.
    """
    find_time_phrase("last week", now=datetime.now(timezone.utc), tz=tz)


def _both(first: TimeRange, second: TimeRange) -> TimeRange:
    """Two phrases of one query as one range: their overlap, a month named without a year in the year beside it
    ("in October last year"), or the later one when they do not overlap.

    "Later" is the range that starts later (an open start is the earliest); the note names
    both phrases and says which reading was taken.
    """
    lo = max((t for t in (first.since, second.since) if t is not None), default=None)
    hi = min((t for t in (first.until, second.until) if t is not None), default=None)
    phrase = f"{first.phrase} {second.phrase}"
    if lo is None or hi is None or lo < hi:
        tz = ZoneInfo(first.timezone)
        day_lo = lo.astimezone(tz).date() if lo else max(first.first, second.first)
        day_hi = (hi - timedelta(microseconds=1)).astimezone(tz).date() if hi else min(first.last, second.last)
        return TimeRange(phrase, lo, hi, day_lo, day_hi, "range", first.timezone,
                         f"the overlap of {first.phrase!r} and {second.phrase!r}")
    for month, year in ((first, second), (second, first)):
        inside = _month_in_year(month, year)
        if inside is not None:
            return replace(inside, phrase=phrase, note=f"{month.phrase!r} read in {year.phrase!r}")
    later = max((first, second), key=lambda r: r.since or datetime.min.replace(tzinfo=timezone.utc))
    return replace(later, note=f"{first.phrase!r} and {second.phrase!r} do not overlap: read as {later.phrase!r}")


def _month_in_year(month: TimeRange, year: TimeRange) -> TimeRange | None:
    """A month named without a year ("in October") read in the year of the phrase beside it ("last year"), as
    people mean "October last year"; None unless ``month`` is such a month and ``year`` a whole year."""
    if month.granularity != "month" or _YEAR.search(month.phrase) or year.granularity != "year":
        return None
    tz = ZoneInfo(month.timezone)
    return _whole_period(month.phrase, month.first.replace(year=year.first.year), "month", tz, 0)


def _find_one(text: str, now: datetime, tz: ZoneInfo, first_day_of_week: int) -> tuple[TimeRange | None, str]:
    """The first time phrase in ``text`` (a range, a rolling window, then what dateparser finds), and the rest."""
    ranged = _find_range(text, now, tz, first_day_of_week) or _find_rolling(text, now, tz)
    if ranged is not None:
        return ranged
    for found, _ in _search_dates(text, now, tz):
        start = text.find(found)
        head, _, tail = found.partition(" ")
        if tail and head.lower() in _OPEN_AFTER + _OPEN_BEFORE + _JOINS:  # dateparser kept the word: "after 2024"
            found, start = tail, start + len(head) + 1
        found, start = _without_stray_number(text, found, start)
        found, start = _without_future_day(found, start)
        found = _first_of_two(found)
        if not _plausible(found) or _MONTH_OF.match(_LEAD.sub("", text[start:])):
            continue
        prefix, cut_from = _prefix_before(text, start)
        parsed = _read_checked(found, now=now, tz=tz, first_day_of_week=first_day_of_week, cued=bool(prefix))
        if parsed is None:
            continue
        found_range = _open_ended(parsed, prefix, now, tz) if prefix else parsed
        rest = " ".join((text[:cut_from] + " " + text[start + len(found):]).split())
        return found_range, rest
    return None, text


def _without_future_day(found: str, start: int) -> tuple[str, int]:
    """``found`` without a "tomorrow" before, after or between other phrases ("tomorrow yesterday", "yesterday
    tomorrow", "tomorrow 3 days ago", "in 2025 tomorrow last week": what follows it is read next, on its own),
    which dateparser reads as one phrase counted from tomorrow. A memory
    holds no tomorrow: alone, the word is a search word, never a time phrase, and so it is beside another."""
    words = found.split(" ")
    if len(words) > 1 and words[0].lower() == _FUTURE_DAY:
        cut = 1 + next((i for i, w in enumerate(words[1:]) if w.lower() not in (*_JOINS, _FUTURE_DAY)),
                       len(words) - 1)
        head = len(" ".join(words[:cut])) + 1
        return found[head:], start + head
    keep = next((i for i, w in enumerate(words[1:], 1) if w.lower() == _FUTURE_DAY), 0)
    if keep:  # the phrase before it: one after it ("in 2025 tomorrow last week") is read next, on its own
        while keep > 1 and words[keep - 1].lower() in _JOINS:
            keep -= 1
        return " ".join(words[:keep]), start
    return found, start


def _without_stray_number(text: str, found: str, start: int) -> tuple[str, int]:
    """``found`` without a leading number that is a search word, not a date ("python 3.12 last week",
    "route 66 last week"): only a number standing alone before a month name ("12 november") or a
    unit ("3 days ago") stays."""
    number = _LEADING_NUMBER.match(found)
    if number is None or (_DAY_NUMBER.match(found) and (start == 0 or text[start - 1].isspace())):
        return found, start
    return found[number.end():], start + number.end()


def _first_of_two(found: str) -> str:
    """The first phrase of a dateparser find that is two phrases each counted from today, day words or periods
    ("last week yesterday", "yesterday 3 days ago", "last week next week"), which dateparser reads as one
    ("yesterday, a week back"); the second is then read on its own and the two as one range (:func:`_both`).
    Other finds whole."""
    two = _TWO_COUNTED.match(found)
    return found if two is None else two.group(1) or two.group(2)


def parse_when(text: str, *, now: datetime, tz: ZoneInfo, first_day_of_week: int = 0, two: bool = False) -> TimeRange:
    """Read a whole string as a date, period or range.

    Accepts period keys (``2026``, ``2026-03``, ``2026-03-04``, ``2026-03-30w``), ranges
    ``A..B`` of any two whens (``A..`` up to now, ``..B`` from the beginning), and any
    phrase :func:`find_time_phrase` understands ("last week", "last 3 months", "since
    March"). Two separate phrases ("last week yesterday") are an error naming both, or with
    ``two`` their overlap or the later one, the reading in the range's note (for a user's
    words, which an agent passes on as said; a range's end, as ``--until``, keeps the error).
    Raises TapestryError when the text is not a time, names a day that does not exist or lies
    outside the supported range (UnsupportedDateError), or is a range that ends before it starts.
    """
    raw = text.strip()
    if ".." in raw:
        lo_text, _, hi_text = (part.strip() for part in raw.partition(".."))
        if not lo_text and not hi_text:
            raise _Unreadable(f"cannot read {text!r} as a date, period or range (try 2026-03-01..2026-03-15,"
                              " 2026-03-01.. or ..2026-03-15)")
        lo = parse_when(lo_text, now=now, tz=tz, first_day_of_week=first_day_of_week) if lo_text else None
        hi = parse_when(hi_text, now=now, tz=tz, first_day_of_week=first_day_of_week) if hi_text else None
        return _span(raw, lo, hi, now, tz)
    _check_real_days(raw)
    if _ISO_KEY.match(raw):
        return _from_period_key(raw, tz, first_day_of_week)
    found, rest = find_time_phrase(raw, now=now, tz=tz, first_day_of_week=first_day_of_week, two=two)
    if found is None or rest.strip(" ,.;:") and not _only_filler(rest):
        raise _Unreadable(f"cannot read {text!r} as a date, period or range (try 2026-03-04, "
                          f"'last week', 'July 2025', 'since March' or 2026-03-01..2026-03-15)")
    return found


class _Unreadable(TapestryError):
    """Text that is not a time at all (as opposed to a time out of range or reversed)."""


class _TwoPhrases(_Unreadable):
    """Text holding two separate time phrases: not one time (so a range's end that holds two is no end)."""


def _span(phrase: str, lo: TimeRange | None, hi: TimeRange | None, now: datetime, tz: ZoneInfo) -> TimeRange:
    """From ``lo``'s start (None: the beginning) to ``hi``'s end (None: now).

    Raises TapestryError when ``hi`` ends before ``lo`` starts.
    """
    if lo is not None and hi is not None and hi.last < lo.first:
        raise TapestryError(f"{phrase!r} ends ({hi.last.isoformat()}) before it starts ({lo.first.isoformat()});"
                            " put the earlier date first")
    first = lo.first if lo else SUPPORTED_FROM
    last = hi.last if hi else max(now.astimezone(tz).date(), first)
    return TimeRange(phrase, lo.since if lo else None, hi.until if hi else None, first, last, "range", tz.key)


def _find_rolling(text: str, now: datetime, tz: ZoneInfo) -> tuple[TimeRange, str] | None:
    """The first "last N units" / "past N units" window in ``text`` (see the module docstring), and the rest."""
    for match in _ROLLING.finditer(text):
        word, count, unit = match.group(1).lower(), (match.group(2) or "").lower(), match.group(3).lower()
        if not count and word != "past":
            continue  # "last week": the previous calendar week, read by dateparser
        n = _NUMBERS[count] if count in _NUMBERS else int(count or 1)
        rest = " ".join((text[:match.start()] + " " + text[match.end():]).split())
        return _rolling(match.group(0), n, unit, now, tz), rest
    return None


def _rolling(phrase: str, n: int, unit: str, now: datetime, tz: ZoneInfo) -> TimeRange:
    """From local midnight of the day ``n`` ``unit``s before ``now`` (``n`` hours before, for hours), open-ended."""
    today = now.astimezone(tz).date()
    if unit == "hour":
        floor = utc_range(SUPPORTED_FROM, SUPPORTED_FROM, tz)[0]
        back = now.astimezone(timezone.utc) - floor
        since = floor if n * 3600 >= back.total_seconds() else now.astimezone(timezone.utc) - timedelta(hours=n)
        return TimeRange(phrase, since, None, since.astimezone(tz).date(), today, "range", tz.key)
    first = _days_back(today, n, unit)
    return TimeRange(phrase, utc_range(first, first, tz)[0], None, first, today, "range", tz.key)


def _days_back(today: date, n: int, unit: str) -> date:
    """``today`` moved back ``n`` units (day clamped to the month's length), at least SUPPORTED_FROM."""
    if unit in ("day", "week"):
        ordinal = today.toordinal() - n * (7 if unit == "week" else 1)
        return date.fromordinal(ordinal) if ordinal >= SUPPORTED_FROM.toordinal() else SUPPORTED_FROM
    months = today.year * 12 + today.month - 1 - n * (12 if unit == "year" else 1)
    if months < SUPPORTED_FROM.year * 12:
        return SUPPORTED_FROM
    year, month = divmod(months, 12)
    return date(year, month + 1, min(today.day, month_period(date(year, month + 1, 1)).end.day))


def _check_real_days(text: str) -> None:
    """Raise TapestryError naming the first YYYY-MM-DD in ``text`` that is no calendar day ("2025-02-30")."""
    for match in _ISO_DAY.finditer(text):
        year, month, day = (int(g) for g in match.group(2, 3, 4))
        try:
            date(year, month, day)
        except ValueError:
            raise TapestryError(f"{match.group(0)!r} is not a valid date: {_why_no_day(year, month)}") from None


def _check_whole_counts(text: str) -> None:
    """Raise TapestryError naming the first "last N units" whose N has a fraction ("last 1.5 months").

    The error suggests the whole count of the next smaller unit (a month taken as 30 days).
    """
    match = _FRACTION.search(text)
    if match is None:
        return
    count, unit = float(f"{match.group(1)}.{match.group(2)}"), match.group(3).lower()
    hint = f"use a whole number of {unit}s"
    if unit in _SMALLER:
        smaller, per = _SMALLER[unit]
        hint += f", or {smaller}s ('last {int(count * per + 0.5)} {smaller}s')"
    raise TapestryError(f"{match.group(0)!r}: {hint}")


def _why_no_day(year: int, month: int) -> str:
    if not 1 <= month <= 12:
        return "months run from 01 to 12"
    if year < 1:
        return "years start at 0001"
    last = month_period(date(year, month, 1)).end
    return f"{last.strftime('%B')} {year} has {last.day} days"


def _find_range(text: str, now: datetime, tz: ZoneInfo, fdow: int) -> tuple[TimeRange, str] | None:
    """The first ``A..B``, "between A and B", "from A to B" or "A to B" range in ``text``, and the rest."""
    for match in _DOTTED.finditer(text):
        found = _try_when(match.group(1), now, tz, fdow)
        if found is not None:
            return found, " ".join((text[:match.start()] + " " + text[match.end():]).split())
    for match in _RANGE_OPEN.finditer(text):
        words = list(re.finditer(r"\S+", text[match.end():]))
        joins = _RANGE_JOIN[match.group(1).lower()]
        for i, join in enumerate(words[1:_RANGE_WORDS + 1], start=1):
            if join.group().lower() in joins:
                lo_text = " ".join(w.group() for w in words[:i])
                ranged = _range_to(text, match.start(), lo_text, words[i + 1:], match.end(), now, tz, fdow)
                if ranged is not None:
                    return ranged
    return _find_bare_to(text, now, tz, fdow)


def _find_bare_to(text: str, now: datetime, tz: ZoneInfo, fdow: int) -> tuple[TimeRange, str] | None:
    """The first "A to B" (or "A through B") range without "from": A is the longest run of
    words (at most :data:`_RANGE_WORDS`) just before the joining word that reads as a time."""
    for join in _BARE_TO.finditer(text):
        before = list(re.finditer(r"\S+", text[:join.start()]))
        after = list(re.finditer(r"\S+", text[join.end():]))
        for n in range(min(len(before), _RANGE_WORDS), 0, -1):
            start = before[-n].start()
            lo_text = text[start:join.start()].strip()
            if _try_when(lo_text, now, tz, fdow) is not None:
                found = _range_to(text, start, lo_text, after, join.end(), now, tz, fdow)
                if found is not None:
                    return found
                break
    return None


def _range_to(text: str, start: int, lo_text: str, after: list[re.Match[str]], base: int, now: datetime,
              tz: ZoneInfo, fdow: int) -> tuple[TimeRange, str] | None:
    """The range from ``lo_text`` (beginning at ``text[start]``) to the longest run of the words
    ``after`` the joining word (their offsets counted from ``base``) that reads as a time; "to now"
    leaves the range open up to now, and "to may" after a joining word is the month."""
    if after and after[0].group().rstrip(",.;:?!").lower() == "now":
        lo = _try_when(lo_text, now, tz, fdow)
        if lo is None:
            return None
        phrase = text[start:base + after[0].end()].rstrip(",.;:?!")
        return _span(phrase, lo, None, now, tz), " ".join((text[:start] + " " + text[base + after[0].end():]).split())
    for stop in range(min(len(after), _RANGE_WORDS), 0, -1):
        hi_text = " ".join(w.group() for w in after[:stop])
        hi = _try_when(re.sub(r"^may\b", "May", hi_text.rstrip(",.;:?!")), now, tz, fdow)
        if hi is None:
            continue
        year = _YEAR.search(hi_text)
        lo = _try_when(f"{lo_text} {year.group()}", now, tz, fdow) if year and not _YEAR.search(lo_text) else None
        lo = lo or _try_when(lo_text, now, tz, fdow)
        if lo is None:
            return None
        phrase = text[start:base + after[stop - 1].end()].rstrip(",.;:?!")
        rest = " ".join((text[:start] + " " + text[start + len(phrase):].lstrip(",.;:")).split())
        return _span(phrase, lo, hi, now, tz), rest
    return None


def _try_when(text: str, now: datetime, tz: ZoneInfo, fdow: int) -> TimeRange | None:
    """:func:`parse_when` of ``text``, or None when it is not a time (other errors propagate)."""
    if not text.strip() or not _CUE.search(text):
        return None
    try:
        return parse_when(text, now=now, tz=tz, first_day_of_week=fdow)
    except _Unreadable:
        return None


def _only_filler(rest: str) -> bool:
    return all(w.lower() in ("on", "in", "at", "during", "the", "of") for w in rest.split())


def _from_period_key(key: str, tz: ZoneInfo, first_day_of_week: int) -> TimeRange:
    try:
        period = parse_period_key(key, first_day_of_week)
    except UnsupportedDateError:
        raise
    except ValueError as exc:
        raise _Unreadable(f"{key!r} is not a valid date or period key") from exc
    lo, hi = utc_range(period.start, period.end, tz)
    names = {1: "day", 2: "week", 3: "month", 4: "year"}
    return TimeRange(key, lo, hi, period.start, period.end, names[period.level], tz.key)


def _search_dates(text: str, now: datetime, tz: ZoneInfo) -> list[tuple[str, datetime]]:
    """dateparser's finds in ``text``; none, without importing dateparser (a fifth of a CPU-second),
    when nothing in ``text`` could pass :func:`_plausible` ("route 66", "error 404"). When it finds
    nothing in a text holding two calendar words or years after "in", its finds in the text before the second (less
    the joining words), so the second is read from the rest."""
    if not _may_hold_a_date(text):
        return []
    from dateparser.search import search_dates

    found = search_dates(text, languages=["en"], settings=_settings(now, tz))
    marks = sorted(m.start() for pattern in (_STRONG, _IN_YEAR) for m in pattern.finditer(text))
    if found or len(marks) < 2:
        return found or []
    # dateparser finds nothing in some runs of two phrases ("in July in August", "in 2025 in 2024"): read up to
    # the second
    head = _TRAILING_FILLER.sub("", text[:marks[1]])
    return search_dates(head, languages=["en"], settings=_settings(now, tz)) or []


def _settings(now: datetime, tz: ZoneInfo) -> dict[str, Any]:
    base = now.astimezone(tz).replace(tzinfo=None)
    return {"RELATIVE_BASE": base, "PREFER_DATES_FROM": "past", "RETURN_AS_TIMEZONE_AWARE": False}


def _may_hold_a_date(text: str) -> bool:
    """Whether ``text`` holds something :func:`_plausible` could accept: a calendar word, a capital
    May, or a run of digits and date punctuation at least 4 characters long that is neither a
    decimal number ("python 3.12") nor a clock time ("10:30")."""
    if _STRONG.search(text) or _CAPITAL_MAY.search(text):
        return True
    return any(_date_like(run) for run in _DATE_RUN.findall(text))


def _date_like(run: str) -> bool:
    """Whether a run of digits and date punctuation could be a date on its own (see :func:`_may_hold_a_date`)."""
    return len(run) >= 4 and bool(re.search(r"\d", run)) and not _NOT_A_DATE.fullmatch(run.strip())


def _plausible(found: str) -> bool:
    """Whether dateparser's match is a time phrase and not an ordinary word it reads as one."""
    core = _LEAD.sub("", found.strip())
    if not core:
        return False
    if _ARTICLE_UNIT.match(core):
        return False
    if _STRONG.search(core) or _CAPITAL_MAY.search(core):
        return True
    return bool(re.fullmatch(r"[\d\s/.:-]+", core)) and _date_like(core)


def _read_checked(found: str, *, now: datetime, tz: ZoneInfo, first_day_of_week: int,
                  cued: bool = False) -> TimeRange | None:
    """:func:`_read`, refusing a day outside the supported range; a bare number out of range
    ("port 9999") is not a time at all, so it gives None rather than an error, unless an
    open-range word before it (``cued``: "since 9999") says it is one."""
    try:
        return _read(found, now=now, tz=tz, first_day_of_week=first_day_of_week)
    except UnsupportedDateError:
        if not cued and re.fullmatch(r"[\d\s/.:-]+", found.strip()):
            return None
        raise


def _read(found: str, *, now: datetime, tz: ZoneInfo, first_day_of_week: int) -> TimeRange | None:
    from dateparser.date import DateDataParser

    core = _LEAD.sub("", found.strip())
    data = DateDataParser(languages=["en"], settings=_settings(now, tz)).get_date_data(core)
    if data is None or data.date_obj is None:
        return None
    day = data.date_obj.date()
    check_supported(day, repr(found.strip()))
    part = next((p for p in _PARTS if re.search(rf"\b{p}\b", core, re.I)), "")
    if part:
        return _part_of_day(found.strip(), day, part, tz)
    return _whole_period(found.strip(), day, str(data.period or "day"), tz, first_day_of_week)


def _part_of_day(phrase: str, day: date, part: str, tz: ZoneInfo) -> TimeRange:
    lo_hour, hi_hour = _PARTS[part]
    lo = datetime.combine(day, time(), tzinfo=tz) + timedelta(hours=lo_hour)
    hi = datetime.combine(day, time(), tzinfo=tz) + timedelta(hours=hi_hour)
    return TimeRange(phrase, lo.astimezone(timezone.utc), hi.astimezone(timezone.utc), day,
                     day + timedelta(days=1) if hi_hour > 24 else day, "part", tz.key)


def _whole_period(phrase: str, day: date, granularity: str, tz: ZoneInfo, first_day_of_week: int) -> TimeRange:
    if granularity == "week":
        first = day - timedelta(days=(day.weekday() - first_day_of_week) % 7)
        last = first + timedelta(days=6)
    elif granularity == "month":
        first, last = month_period(day).start, month_period(day).end
    elif granularity == "year":
        first, last = year_period(day).start, year_period(day).end
    else:
        granularity, first, last = "day", day, day
    lo, hi = utc_range(first, last, tz)
    return TimeRange(phrase, lo, hi, first, last, granularity, tz.key)


def _prefix_before(text: str, start: int) -> tuple[str, int]:
    """The open-range word just before position ``start`` (or ''), and where to cut from."""
    match = re.search(r"(\w+)\s*$", text[:start])
    word = match.group(1).lower() if match else ""
    if word in _OPEN_AFTER or word in _OPEN_BEFORE:
        return word, match.start(1) if match else start
    return "", start


def _open_ended(found: TimeRange, prefix: str, now: datetime, tz: ZoneInfo) -> TimeRange:
    phrase = f"{prefix} {found.phrase}"
    today = now.astimezone(tz).date()
    if prefix in _OPEN_AFTER:
        return TimeRange(phrase, found.since, None, found.first, max(today, found.first), "range", tz.key)
    if prefix == "before":
        return TimeRange(phrase, None, found.since, date(1970, 1, 1), found.first - timedelta(days=1), "range", tz.key)
    return TimeRange(phrase, None, found.until, date(1970, 1, 1), found.last, "range", tz.key)  # until/till: X included
