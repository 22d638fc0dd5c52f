"""The extractive provider keeps episodic statements, the facts a memory is asked about later."""

from __future__ import annotations

import pytest

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest

EPISODIC = "I painted a small wooden boat at the lake house."
GENERAL = "I love small wooden boats at the lake house."


@pytest.mark.parametrize("order", [(EPISODIC, GENERAL), (GENERAL, EPISODIC)])
def test_what_i_did_is_kept_over_a_general_remark_of_the_same_words(order: tuple[str, str]) -> None:
    """Same content words, both first person: the day's one-sentence summary keeps the event."""
    request = SummaryRequest(node="L1:x:2026-03-04", level=1, period="Wednesday 04 March 2026",
                             inputs=tuple(Passage("10:00 me", text, "user") for text in order), source_chars=1200)
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.text == EPISODIC


OWN = "We often go hiking in the hills near the old mill."
ADVICE = "Let's all go hiking in the hills near the old mill."


@pytest.mark.parametrize("order", [(OWN, ADVICE), (ADVICE, OWN)])
def test_the_speakers_own_statement_is_kept_over_advice(order: tuple[str, str]) -> None:
    """Same content words: a statement with the speaker as its subject beats an exhortation
    ("Let's …"), which says nothing that happened."""
    request = SummaryRequest(node="L1:x:2026-03-04", level=1, period="Wednesday 04 March 2026",
                             inputs=tuple(Passage("10:00 me", text, "user") for text in order), source_chars=1200)
    assert ExtractiveSummarizer().summarize(request, Budget()).text == OWN


RESOLVE = "I'll keep building small wooden boats at the lake house."
STATEMENT = "I keep small wooden boats in the shed at the lake house."
PLAN = "I'll sail the small wooden boat to Oslo from the lake house."


@pytest.mark.parametrize(("first", "second", "expected"), [
    (RESOLVE, STATEMENT, STATEMENT), (STATEMENT, RESOLVE, STATEMENT), (PLAN, STATEMENT, PLAN), (STATEMENT, PLAN, PLAN)])
def test_a_bare_resolve_gives_way_but_a_named_plan_does_not(first: str, second: str, expected: str) -> None:
    """"I'll keep …" with no number or name says nothing that happened or is booked: a statement of
    the same words is kept over it; a plan naming a place keeps its weight and is kept."""
    request = SummaryRequest(node="L1:x:2026-03-04", level=1, period="Wednesday 04 March 2026",
                             inputs=(Passage("10:00 me", first, "user"), Passage("10:01 me", second, "user")),
                             source_chars=1200)
    assert ExtractiveSummarizer().summarize(request, Budget()).text == expected


HELD = "I keep the small wooden boat in the shed at the lake house."
FELT = "I love the small wooden boat in the shed at the lake house."


@pytest.mark.parametrize("order", [(HELD, FELT), (FELT, HELD)])
def test_a_feeling_without_a_number_or_name_gives_way_to_a_statement(order: tuple[str, str]) -> None:
    """Same content words, both the speaker's: "I love …" reports a state of mind, "I keep …" a thing
    the speaker has; the day's one-sentence summary keeps the statement."""
    request = SummaryRequest(node="L1:x:2026-03-04", level=1, period="Wednesday 04 March 2026",
                             inputs=tuple(Passage("10:00 me", text, "user") for text in order), source_chars=1200)
    assert ExtractiveSummarizer().summarize(request, Budget()).text == HELD


BIKE = "I sold my old bike to a friendly neighbour in town for sixty euros."
BOAT = "I sold my old boat to a friendly neighbour in town for fifty euros."
BOAT_TOLD = "Ana sold their old boat to a friendly neighbour in town for fifty euros."


@pytest.mark.parametrize(("greetings", "expected"), [(("Hi Ben! ", "Thanks, Ana! "), BOAT_TOLD), (("", ""), BIKE)])
def test_two_named_people_weigh_alike_while_a_users_words_count_more(greetings: tuple[str, str], expected: str) -> None:
    """Two equal statements, the assistant's first: between two named people (a conversation
    such as LoCoMo's) neither side is favoured, so the first is kept; with an unnamed
    assistant the user's own words win."""
    said = (Passage("09:00 assistant", greetings[0] + BOAT, "assistant"),
            Passage("09:01 me", greetings[1] + BIKE, "user"))
    request = SummaryRequest("L1:x:2026-05-03", 1, "Sunday 03 May 2026", (Passage("Sun 03 May", BIKE),),
                             source_chars=1200, sources=(said,))
    assert ExtractiveSummarizer().summarize(request, Budget()).text == expected
