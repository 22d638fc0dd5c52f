"""search --regex with a pattern that backtracks without end: it stops with an error naming the pattern,
and other threads run while it matches."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import warnings
from datetime import datetime
from pathlib import Path

import pytest
from query_helpers import PARIS, History
from waiting import PATIENCE

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import search
from tapestryd.queries.timed_pattern import SECONDS, TimedPattern

ROOT = Path(__file__).resolve().parents[2]
RUNAWAY = "(a|aa)+$"  # on 'aaa…ab', Python's re tries about fib(len) ways before it fails
TEXT = "a" * 64 + "b"


def test_a_runaway_pattern_ends_the_search_with_an_error_naming_it(history: History) -> None:
    """`search '(a|aa)+$' --regex` over a message of 64 a's and a b ran until killed (and, asked of the daemon,
    held it: status and the hook got no answer); now it stops after its time budget with one error line."""
    history.message("claude-code:s1", datetime(2026, 3, 2, 9, tzinfo=PARIS), TEXT, session="s1")
    history.message("claude-code:s1", datetime(2026, 3, 2, 10, tzinfo=PARIS), "aaaa", session="s1")
    history.commit()
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "search", RUNAWAY, "--regex"], env=env,
                          capture_output=True, text=True, timeout=min(PATIENCE, 20 * SECONDS))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"the regular expression {RUNAWAY!r} took more than" in done.stderr and "simplify it" in done.stderr


def test_while_a_pattern_matches_other_threads_run() -> None:
    """The match does not hold the GIL (re did: the daemon's other threads stood still)."""
    pattern = TimedPattern(RUNAWAY, seconds=2.0)
    started = threading.Event()
    ticks = 0

    def count() -> None:
        nonlocal ticks
        started.wait()
        while matcher.is_alive():
            ticks += 1

    matcher = threading.Thread(target=lambda: (started.set(), pattern.matches(TEXT)))
    counter = threading.Thread(target=count)
    counter.start()
    matcher.start()
    matcher.join(PATIENCE)
    counter.join(PATIENCE)
    assert pattern.timed_out and ticks > 1000
    with pytest.raises(TapestryError, match=r"took more than 2 s"):
        pattern.check()


def test_a_match_over_a_whole_long_message_is_cut_in_its_snippet(history: History) -> None:
    """`(\\w+\\s?)+` matched all of a 2.7 MB message, and search printed the whole match as its snippet."""
    history.message("claude-code:s1", datetime(2026, 3, 2, 9, tzinfo=PARIS), "tell me " + "hugeword " * 2_000,
                    session="s1")
    history.commit()
    with Reader.open(load_settings(history.settings.home)) as reader:
        (hit,) = search(reader, r"(\w+\s?)+", regex=True, now=datetime(2026, 3, 3, tzinfo=PARIS))["hits"]
    assert hit["snippet"].startswith("[tell me hugeword") and len(hit["snippet"]) < 300, len(hit["snippet"])


def test_an_invalid_pattern_is_named_with_re_s_message() -> None:
    with pytest.raises(TapestryError, match=r"not a valid regular expression '\(unclosed': missing \), unterminated"):
        TimedPattern("(unclosed")


def test_a_posix_class_is_matched_as_the_regex_package_reads_it_and_no_warning_reaches_the_user() -> None:
    """`search '[[:digit:]]{4}' --regex` printed re's FutureWarning ("Possible nested set") with a source line of
    tapestryd, though the regex package that matches reads the set as the POSIX class."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pattern = TimedPattern("[[:digit:]]{4} plums")
    assert pattern.matches("In 2026 plums were cheap") and not pattern.matches("In 20 plums")
