"""The calendar's search page says why each hit is there, as ``tapestryctl search`` does: a range with no
match answers from other times, marked; a turn holding none of the words is marked next to a match."""

from __future__ import annotations

import re

from flask.testing import FlaskClient


def hits_of(client: FlaskClient, query: str) -> tuple[str, list[str]]:
    page = client.get("/search", query_string={"q": query}).get_data(as_text=True)
    return page, re.findall(r'<li class="hit .*?</li>', page, re.S)


def test_hits_from_outside_a_time_phrase_are_said_to_be(client: FlaskClient) -> None:
    """Nothing about garlic in February (today 2026-03-21): the March hits came back unmarked, under
    'Read “in February” as …', as if they were February's."""
    page, hits = hits_of(client, "garlic in February")
    assert hits and all("outside the range" in hit for hit in hits)
    assert "0 results in “in February”" in page


def test_a_turn_shown_for_its_neighbour_is_marked(client: FlaskClient) -> None:
    """'WAL' is only in the reply; the question before it comes as its neighbour, and says so."""
    _, hits = hits_of(client, "WAL")
    question = [hit for hit in hits if "The sqlite lock test fails again" in hit]
    assert question and "next to a match" in question[0]
    assert all("next to a match" not in hit for hit in hits if "<mark>WAL</mark>" in hit)
