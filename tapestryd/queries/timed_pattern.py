"""A person's regular expression, matched within a time limit.

``search --regex`` tries its pattern on every message. A pattern with nested repetition
(``(a|aa)+$``, ``(\\w+\\s?)+!``) can backtrack for hours on one long message, and Python's ``re``
holds the GIL all that time: a daemon asked such a search answered nothing else (status, search,
the hook) until it was killed. The ``regex`` package (dateparser's own dependency) matches the
same syntax with a timeout and without holding the GIL, so the search ends with an error naming
the pattern and the rest of the daemon keeps running meanwhile.
"""

from __future__ import annotations

import re
import time
import warnings
from typing import Any

import regex

from tapestryd.errors import TapestryError

__all__ = ["SECONDS", "TimedPattern", "check_syntax"]

SECONDS = 10.0
"""Matching time one pattern may spend over all the texts it is tried on, in seconds (a search through
the daemon's socket waits 30 s)."""


def check_syntax(pattern: str, flags: int = 0) -> None:
    """Raise ``re.error`` (or OverflowError: a repetition count too large) when ``pattern`` is not valid in Python's
    ``re``, with its message and position. ``re``'s FutureWarning on a set such as ``[[:digit:]]`` ("Possible
    nested set") is not shown: the ``regex`` package that matches the pattern reads it as the POSIX class, and the
    warning printed a source line of tapestryd to the user."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        re.compile(pattern, flags)


class TimedPattern:
    """``pattern`` (Python's ``re`` syntax, case-insensitive), tried on texts within ``seconds`` in all.

    Once the budget is spent, :meth:`matches` is False and :meth:`search` None for every further
    text, and :meth:`check` raises. Raises TapestryError when ``pattern`` is not a valid regular
    expression (``re``'s own message, with its position).
    """

    def __init__(self, pattern: str, seconds: float = SECONDS) -> None:
        try:
            check_syntax(pattern, re.IGNORECASE)  # the syntax and messages of Python's re
            self._compiled: Any = regex.compile(pattern, regex.IGNORECASE | regex.V0)
        except (re.error, regex.error, OverflowError) as exc:  # OverflowError: a repetition count too large
            raise TapestryError(f"not a valid regular expression {pattern!r}: {exc}") from exc
        self.pattern = pattern
        self.seconds = seconds
        self.spent = 0.0  # seconds spent matching so far (reading the texts is not counted)
        self.timed_out = False

    def search(self, text: str) -> Any:
        """The first match in ``text`` (a match object with ``start()``, ``end()``, ``group()``), or None;
        None too once the time budget is spent."""
        if self.timed_out:
            return None
        start = time.monotonic()
        try:
            return self._compiled.search(text, timeout=max(self.seconds - self.spent, 0.001), concurrent=True)
        except TimeoutError:
            self.timed_out = True
            return None
        finally:
            self.spent += time.monotonic() - start

    def matches(self, text: str) -> bool:
        """Whether the pattern occurs in ``text`` (False once the time budget is spent)."""
        return self.search(text) is not None

    def check(self) -> None:
        """Raise TapestryError when the time budget ran out: what was found is incomplete."""
        if self.timed_out:
            raise TapestryError(f"the regular expression {self.pattern!r} took more than {self.seconds:g} s on the "
                                "stored messages and was stopped (nested repetition such as '(a+)+' can backtrack "
                                "without end): simplify it")
