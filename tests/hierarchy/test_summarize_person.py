"""A named speaker's "I …" sentence is written in the third person ("Nadia adopted …") where that is safe."""

from __future__ import annotations

import pytest

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest
from tapestryd.summarize.person import first_person, third_person
from tapestryd.summarize.speakers import attributed


@pytest.mark.parametrize(("said", "told"), [
    ("I adopted a grey cat called Pixel.", "Nadia adopted a grey cat called Pixel."),
    ("I went to a poetry reading on Fri 14 Jul 2023.", "Nadia went to a poetry reading on Fri 14 Jul 2023."),
    ("I just started a pottery class.", "Nadia just started a pottery class."),
    ("I'm planning a trip to the East Coast.", "Nadia is planning a trip to the East Coast."),
    ("I'm not sure about the date.", "Nadia is not sure about the date."),
    ("I've been taking a poetry class.", "Nadia has been taking a poetry class."),
    ("I don't eat meat.", "Nadia doesn't eat meat."),
    ("I'll fly to Oslo in May.", "Nadia will fly to Oslo in May."),
    ("I love hiking in the hills.", "Nadia loves hiking in the hills."),
    ("I try new recipes on Sundays.", "Nadia tries new recipes on Sundays."),
    ("I watch old films.", "Nadia watches old films."),
    ("I really miss the sea.", "Nadia really misses the sea."),
    ("I sold my old Volvo to a neighbour.", "Nadia sold their old Volvo to a neighbour."),
    ("I challenged myself to run 10K.", "Nadia challenged themself to run 10K."),
    ("I just had a picnic by the river.", "Nadia just had a picnic by the river."),
    ("I really have to fix the roof.", "Nadia really has to fix the roof."),
    ("I just can't wait for June.", "Nadia just can't wait for June."),
    ("I need a new bike.", "Nadia needs a new bike."),
    ("I was tired and hungry after the hike.", "Nadia was tired and hungry after the hike."),
    ("On Fri 14 Jul 2023 I went to a council meeting.", "On Fri 14 Jul 2023 Nadia went to a council meeting."),
    ("In 2022, I took a solo trip to Spain.", "In 2022, Nadia took a solo trip to Spain."),
    ("In my old town I ran a bakery.", "In their old town Nadia ran a bakery."),
])
def test_the_speakers_own_statement_is_told_with_their_name_as_subject(said: str, told: str) -> None:
    """Past forms stay, an auxiliary follows its table, a present verb gets its "-s"; reading it back gives
    a first-person sentence that is told the same way again."""
    assert third_person("Nadia", said) == told
    name, back = first_person(told, frozenset({"Nadia"}))
    assert name == "Nadia" and third_person("Nadia", back) == told


@pytest.mark.parametrize("said", [
    "My brother sold his old Volvo.",        # the speaker is not the subject
    "The trip made me happy.",               # the speaker is not the subject
    "I took some me-time at the lake.",      # "me": whose, once told in the third person?
    "I stay calm and find a way.",           # the "-s" would not reach the second verb
    "Since we talked, I have been busy.",    # "we" before the subject
    "I loved your painting of the lake.",    # "your": the other side, lost in the third person
    "We booked the ferry to Gotland.",       # the subject is not the speaker alone
    "I read a book about Kyoto.",            # past or present: cannot tell
    "I'd love to see the Alps.",             # "would" or "had": cannot tell
])
def test_a_sentence_that_would_change_meaning_keeps_its_prefix(said: str) -> None:
    assert third_person("Nadia", said) == ""
    assert attributed([("Nadia", said)]) == f"Nadia: {said}"


def test_only_a_known_name_is_read_back() -> None:
    """"Python has a GIL." names no speaker; a name the child summary never used as a prefix is not read back."""
    assert first_person("Python has a GIL.", frozenset({"Nadia"})) == ("", "Python has a GIL.")
    assert first_person("Nadia adopted a cat.", frozenset()) == ("", "Nadia adopted a cat.")


CHAT = [("user", "Hey Nadia! My brother and I finally booked the ferry to Gotland for 12 June."),
        ("assistant", "Hi Tomas! I adopted a grey cat called Pixel from the shelter on Rua Nova."),
        ("user", "Wow, congrats! How old is Pixel?")]
OTHER_DAY = "Tomas: I repaired the roof of the boat shed in Visby with two neighbours over the long weekend."


def test_a_conversation_day_and_its_week_tell_each_speaker_by_name() -> None:
    """L0 writes "Nadia adopted …" and keeps "Tomas: My brother and I …"; the week over it reads both back and
    writes them as they were, never carrying one speaker's name onto the other's sentence."""
    inputs = tuple(Passage(f"10:0{i} x", text, role) for i, (role, text) in enumerate(CHAT))
    l0 = SummaryRequest("L0:x:2026-05-03:c", 0, "Sunday 03 May 2026", inputs, day="2026-05-03",
                        source_chars=20 * sum(len(t) for _, t in CHAT))
    day = ExtractiveSummarizer().summarize(l0, Budget()).text
    assert day == ("Tomas: My brother and I finally booked the ferry to Gotland for 12 June. "
                   "Nadia adopted a grey cat called Pixel from the shelter on Rua Nova.")
    inputs = (Passage("Sun 03 May", day), Passage("Mon 04 May", OTHER_DAY))
    week = SummaryRequest("L2:x:2026-04-27w", 2, "week of 27 April 2026", inputs,
                          source_chars=100 * (len(day) + len(OTHER_DAY)))
    text = ExtractiveSummarizer().summarize(week, Budget()).text
    assert "Nadia adopted a grey cat" in text and "Tomas: Nadia" not in text


HERS = "Nadia adopted a grey cat called Pixel from the animal shelter on Rua Nova after waiting for many weeks."
HIS = "Tomas: I visited the animal shelter on Rua Nova with my brother and we played with a grey cat."


@pytest.mark.parametrize("order", [(HERS, HIS), (HIS, HERS)])
def test_a_week_ranks_a_told_sentence_as_the_speakers_own(order: tuple[str, str]) -> None:
    """"Nadia adopted …" in a child summary is read back as Nadia's "I adopted …", her own event, so it
    ranks as Tomas's "I visited …" does: a week with room for one keeps the one with more in it, even
    though no sentence of the children names Nadia with a prefix."""
    inputs = tuple(Passage(f"Day {i}", text) for i, text in enumerate(order))
    week = SummaryRequest("L2:x:2026-04-27w", 2, "week of 27 April 2026", inputs, source_chars=4800)
    assert ExtractiveSummarizer().summarize(week, Budget()).text == HERS


@pytest.mark.parametrize("said", [
    "I myself fixed the roof.",              # no verb after "I": "Nadia myselfs fixed …" was written
    "I wanna see the Alps.",                 # "Nadia wannas see …"
    "I gotta fix the roof.",                 # "Nadia gottas fix …"
    "I kinda like the rain.",                # "Nadia kindas like …"
    "I sure do miss the sea.",               # "Nadia sures do miss …"
    "I mean, the roof is fine.",             # a filler, not a statement: "Nadia means, the roof is fine."
    "I know, right?",                        # "Nadia knows, right?"
    'I heard Tomas say "my dad is sick".',  # Tomas's "my", not Nadia's: "… say "their dad is sick""
    "I heard Tomas say \u201cmy dad is sick\u201d.",
])
def test_a_sentence_the_third_person_would_garble_keeps_the_prefix(said: str) -> None:
    assert third_person("Nadia", said) == ""


@pytest.mark.parametrize(("said", "told"), [
    ("I edited my.cnf on the server.", "Nadia edited my.cnf on the server."),  # a file name, not "their.cnf"
    ("I keep notes in my/notes.txt now.", "Nadia keeps notes in my/notes.txt now."),
    ("I fixed my car.", "Nadia fixed their car."),
])
def test_a_possessive_inside_a_file_name_or_path_stays(said: str, told: str) -> None:
    assert third_person("Nadia", said) == told


def test_a_week_gives_a_bare_first_person_sentence_no_name_from_a_sentence_read_back() -> None:
    """A capitalised word read back as a speaker ("Meeting notes from Tuesday." as Meeting's "I note …") names
    that sentence only: the next child sentence, "I need help …" with no name, stays unnamed (seen on the
    corpus's Claude.ai sample: "Meeting needs help optimizing their database queries.")."""
    day = "Meeting notes from Tuesday. I need help optimizing my database queries. I've attached the slow query log."
    inputs = (Passage("Wed 01 Oct", day), Passage("Thu 02 Oct", "Full extracted text from the uploaded PDF."))
    week = SummaryRequest("L2:x:2025-09-29w", 2, "week of 29 September 2025", inputs, source_chars=100 * len(day))
    text = ExtractiveSummarizer().summarize(week, Budget()).text
    assert "I need help optimizing my database queries." in text and "Meeting needs" not in text
