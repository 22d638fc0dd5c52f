"""Relative time words resolved against the day a sentence was said: "yesterday" → "on 7 May 2023".

A summary outlives the day it was written: a month summary saying "yesterday I tried
Cyberpunk 2077" no longer says when. :func:`resolve_relative` rewrites the relative
expressions it knows against the message's own date ``day``:

* days: ``yesterday``, ``the day before yesterday``, ``today``, ``tonight``, ``this
  morning/afternoon/evening``, ``last night``, ``tomorrow``;
* weekdays with ``last``/``next``/``this``: ``last Friday`` (or ``last Fri``) → ``on Fri 5 May 2023``;
* ``last/this/next week|weekend|month|year``: ``next month`` → ``in June 2023``;
* ``N days|weeks|months|years ago`` (digits or ``a``, ``one`` … ``ten``), an approximation
  kept (``about``, ``around``, ``roughly``, ``nearly``, ``almost``): ``about 5 years ago`` →
  ``in about 2018``, ``about two weeks ago`` → ``around 24 Apr 2023``.

An expression after a determiner or possessive ("our last night in Lisbon") names a
thing, not a time, and stays. A preposition already before the expression is kept (``since yesterday`` → ``since 7 May
2023``). Vague words (``recently``, ``the other day``) stay as written: they claim no date.
:func:`has_relative` says whether a sentence still holds one of the resolvable words (an
input with no known date: such a sentence is passed over, it cannot be placed).
"""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["has_relative", "resolve_relative", "without_resolved"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SHORT_DAYS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "couple of": 2}
_PREPOSITION = r"(?P<prep>\b(?:since|until|till|from|by|before|after|of|on|in|for)\s+)?"
_APPROXIMATE = r"about|around|roughly|nearly|almost"
_EXPRESSION = re.compile(
    _PREPOSITION + r"(?P<expr>\b(?:the day before yesterday|yesterday|today|tonight|tomorrow|last night"
    r"|this (?:morning|afternoon|evening)"
    rf"|(?:last|next|this) (?:{'|'.join(_WEEKDAYS)}|(?:{'|'.join(_SHORT_DAYS)})(?!\w)|week|weekend|month|year)"
    rf"|(?:(?P<approx>{_APPROXIMATE}) )?(?:\d{{1,2}}|{'|'.join(_NUMBERS)}) (?:day|week|month|year)s? ago)\b)", re.I)

_OWNED = re.compile(r"\b(?:our|my|your|his|her|their|its|the|a|an|that|whose|every|each)\s+$", re.I)

# What resolve_relative writes: "on Fri 5 May 2023", "in the week of 1 May 2023", "around 24 Apr 2023",
# "in June 2023", "in 2022".
_RESOLVED = re.compile(
    r"\s*\b(?:on|in|around|since|until|till|from|by|before|after|of|for)\s+(?:the (?:week|weekend) of )?"
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) )?\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}\b",
    re.I)


def without_resolved(text: str) -> str:
    """``text`` without the day phrases :func:`resolve_relative` writes, for ranking a sentence on what it says.

    A resolved date is there for the reader; left in, its numbers would count as specifics
    and favour every sentence that once said "yesterday".
    """
    return _RESOLVED.sub("", text)


def has_relative(text: str) -> bool:
    """Whether ``text`` holds a relative time expression that :func:`resolve_relative` would rewrite."""
    return _EXPRESSION.search(text) is not None


def resolve_relative(text: str, day: date) -> str:
    """``text`` with each relative time expression replaced by the date it means, said on ``day``."""
    def replace(match: re.Match[str]) -> str:
        prep, words, approx = match.group("prep"), match.group("expr"), match.group("approx")
        if not prep and _OWNED.search(text, 0, match.start()):
            return match.group(0)  # "our last night in Lisbon" names an evening, it dates nothing
        phrase = _absolute(words[len(approx or ""):].strip().lower(), day, approximate=bool(approx))
        if prep:
            phrase = prep + phrase.split(" ", 1)[1]  # "since" + "7 May 2023": the text's own preposition
        return _cased(phrase, match.group(0))

    return _EXPRESSION.sub(replace, text)


def _absolute(words: str, day: date, *, approximate: bool = False) -> str:
    """The absolute phrase, preposition first (``on 7 May 2023``), for one lower-case expression.

    ``approximate``: the expression is "about N … ago": ``around 24 Apr 2023``, ``in about 2018``.
    """
    fixed = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "today": 0, "tonight": 0,
             "tomorrow": 1}
    if words in fixed or words.startswith("this ") and words[5:] in ("morning", "afternoon", "evening"):
        return f"on {_day(day + timedelta(days=fixed.get(words, 0)))}"
    if words.endswith(" ago"):
        return _ago(words, day, approximate)
    which, unit = words.split(" ", 1)
    step = {"last": -1, "this": 0, "next": 1}[which]
    if unit in _WEEKDAYS or unit in _SHORT_DAYS:
        when = _weekday(day, _WEEKDAYS.index(unit) if unit in _WEEKDAYS else _SHORT_DAYS[unit], step)
        return f"on {when:%a} {_day(when)}"
    return _period(unit, step, day)


def _ago(words: str, day: date, approximate: bool) -> str:
    count_word, unit = words[:-4].rsplit(" ", 1)
    count = int(count_word) if count_word.isdigit() else _NUMBERS[count_word]
    unit = unit.rstrip("s")
    if approximate and unit in ("day", "week"):
        return f"around {_day(day - timedelta(days=count * (7 if unit == 'week' else 1)))}"
    if approximate:
        return _period(unit, -count, day).replace("in ", "in about ", 1)
    if unit == "day":
        return f"on {_day(day - timedelta(days=count))}"
    if unit == "week":
        return f"in the week of {_day(day - timedelta(weeks=count))}"
    return _period(unit, -count, day)


def _period(unit: str, step: int, day: date) -> str:
    if unit == "week":
        return f"in the week of {_day(day + timedelta(weeks=step))}"
    if unit == "weekend":
        saturday = day + timedelta(days=5 - day.weekday() + 7 * step)
        return f"on the weekend of {_day(saturday)}"
    if unit == "month":
        months = day.year * 12 + day.month - 1 + step
        return f"in {date(months // 12, months % 12 + 1, 1):%B %Y}"
    return f"in {day.year + step}"


def _weekday(day: date, weekday: int, step: int) -> date:
    """The ``weekday`` (0 Monday) before ``day`` (step -1), after it (1), or in its week (0)."""
    if step < 0:
        return day - timedelta(days=(day.weekday() - weekday - 1) % 7 + 1)
    if step > 0:
        return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)
    return day + timedelta(days=weekday - day.weekday())


def _day(day: date) -> str:
    return f"{day.day} {day:%b %Y}"


def _cased(phrase: str, original: str) -> str:
    return phrase[0].upper() + phrase[1:] if original[:1].isupper() else phrase
