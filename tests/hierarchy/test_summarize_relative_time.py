"""Relative time words in summary sentences become the dates they mean, said on the message's day."""

from __future__ import annotations

from datetime import date

import pytest

from tapestryd.summarize.relative_time import has_relative, resolve_relative

SAID_ON = date(2023, 8, 19)  # a Saturday


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Yesterday I tried Cyberpunk 2077.", "On 18 Aug 2023 I tried Cyberpunk 2077."),
    ("I went to a support group yesterday.", "I went to a support group on 18 Aug 2023."),
    ("Last Friday I signed the lease.", "On Fri 18 Aug 2023 I signed the lease."),
    ("We move next month.", "We move in September 2023."),
    ("I started piano two years ago.", "I started piano in 2021."),
    ("It has rained since yesterday.", "It has rained since 18 Aug 2023."),
    ("I finished the draft 3 days ago.", "I finished the draft on 16 Aug 2023."),
    ("I started guitar about 5 years ago.", "I started guitar in about 2018."),
    ("About two weeks ago I met Ann.", "Around 5 Aug 2023 I met Ann."),
    ("The exam is tomorrow.", "The exam is on 20 Aug 2023."),
])
def test_relative_days_and_periods_are_resolved_against_the_day_said(sentence: str, expected: str) -> None:
    """A summary read months later still says when: each expression becomes a date or a period."""
    assert resolve_relative(sentence, SAID_ON) == expected


def test_vague_words_claim_no_date_and_stay() -> None:
    """"recently" names no day; it is left as written, and is not counted as resolvable."""
    assert resolve_relative("I recently joined a choir.", SAID_ON) == "I recently joined a choir."
    assert not has_relative("I recently joined a choir.") and has_relative("Last week I joined a choir.")


def test_an_owned_last_night_is_a_thing_not_a_date() -> None:
    """"our last night in Lisbon" is an evening of the trip, whenever it was said."""
    sentence = "Any restaurant for our last night in Lisbon?"
    assert resolve_relative(sentence, SAID_ON) == sentence
