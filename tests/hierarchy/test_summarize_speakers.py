"""Attribution: a conversation whose two sides name each other is summarized as who said what."""

from __future__ import annotations

from datetime import date

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest
from tapestryd.summarize.relative_time import resolve_relative
from tapestryd.summarize.speakers import attributed, split_speaker, unaddressed
from tapestryd.summarize.titles import choose_title
from tapestryd.vocatives import names_by_role

CHAT = [("user", "Hey Nadia! How was the weekend?"),
        ("assistant", "Hi Tomas! I ran the Porto half marathon in 1:52 and beat my record by four minutes."),
        ("user", "Wow, congrats! I finally booked the ferry to Gotland for 12 June with my brother."),
        ("assistant", "Nice, Tomas! I adopted a grey cat called Pixel from the shelter on Rua Nova."),
        ("user", "Thanks, Nadia! I also sold my old Volvo to a neighbour for 900 euros.")]


def l0(chat: list[tuple[str, str]]) -> SummaryRequest:
    inputs = tuple(Passage(f"10:0{i} x", text, role) for i, (role, text) in enumerate(chat))
    return SummaryRequest("L0:x:2026-05-03:c", 0, "Sunday 03 May 2026", inputs, day="2026-05-03",
                          source_chars=20 * sum(len(t) for _, t in chat))


def test_each_side_is_named_by_what_the_other_calls_it() -> None:
    assert names_by_role(CHAT) == {"user": "Tomas", "assistant": "Nadia"}
    assert names_by_role([("user", "Hey there! Hi all, thanks everyone!"), ("assistant", "Hello!")]) == {}
    assert names_by_role([("user", "Hi Sam, here is my draft."), ("assistant", "It reads well.")]) == {}


def test_a_short_name_gives_way_to_its_fuller_form_when_both_are_heard() -> None:
    """"Mel" twice, "Melanie" once: the side is Melanie; a name heard only short stays short."""
    chat = [("user", "Hey Mel! How was the trip?"), ("assistant", "Hi Caroline! It was lovely."),
            ("user", "Great, Mel!"), ("assistant", "Thanks!"), ("user", "See you soon, Melanie!")]
    assert names_by_role(chat) == {"user": "Caroline", "assistant": "Melanie"}
    assert names_by_role(chat[:4]) == {"user": "Caroline", "assistant": "Mel"}


def test_a_bare_name_names_a_side_no_greeting_named_but_never_outvotes_one() -> None:
    """"John, I'm sorry …" and "…, John." name the side no greeting named; a place standing
    there ("Paris, …") loses to a single greeting."""
    chat = [("user", "Hey Maria, we had to say goodbye to Max."), ("assistant", "John, I'm sorry to hear about Max."),
            ("user", "He taught us a lot."), ("assistant", "That's a lesson for your kids, John.")]
    assert names_by_role(chat) == {"user": "John", "assistant": "Maria"}
    trip = [("user", "Hey Maria, how was the trip?"), ("assistant", "Paris, the city of light, was lovely."),
            ("assistant", "Paris, again, was great."), ("assistant", "Thanks, John!")]
    assert names_by_role(trip) == {"user": "John", "assistant": "Maria"}


def test_a_named_conversation_is_written_as_who_said_what_and_a_day_keeps_it() -> None:
    """L0: each sentence under its speaker's name, vocatives gone; the L1 over it keeps the names."""
    summary = ExtractiveSummarizer().summarize(l0(CHAT), Budget())
    assert "Nadia ran the Porto half marathon" in summary.text and "Tomas finally booked" in summary.text
    assert ", Tomas!" not in summary.text and "Thanks, Nadia" not in summary.text
    day = SummaryRequest("L1:x:2026-05-03", 1, "Sunday 03 May 2026", (Passage("Sun 03 May", summary.text),),
                         day="2026-05-03", source_chars=12 * len(summary.text))
    text = ExtractiveSummarizer().summarize(day, Budget()).text
    assert text and all(s.startswith(("Nadia ", "Tomas ")) for s in text.split(". "))


def test_an_unnamed_conversation_is_not_attributed() -> None:
    unnamed = [(role, text.replace("Nadia", "there").replace("Tomas", "there")) for role, text in CHAT]
    assert ": " not in ExtractiveSummarizer().summarize(l0(unnamed), Budget()).text


def test_each_sentence_carries_its_speakers_name_and_vocatives_are_dropped() -> None:
    """A sentence stands alone when a week takes it from its day: the second of a run is named too."""
    assert attributed([("A", "One."), ("A", "Two."), ("B", "Three."), ("", "Four.")]) == \
        "A: One. A: Two. B: Three. Four."
    assert split_speaker("Nadia: I ran.") == ("Nadia", "I ran.") and split_speaker("I ran.") == ("", "I ran.")
    assert unaddressed("Maria, since we talked, it's been tough.", ["Maria"]) == "Since we talked, it's been tough."
    assert unaddressed("That's a great dream, Jon!", ["Jon"]) == "That's a great dream!"
    assert unaddressed("Jon, hi!", ["Jon"]) == "Jon, hi!"


def test_an_abbreviated_weekday_is_resolved_too() -> None:
    assert resolve_relative("I went to a poetry reading last Fri.", date(2023, 7, 15)) == \
        "I went to a poetry reading on Fri 14 Jul 2023."
    assert resolve_relative("The last frisbee game.", date(2023, 7, 15)) == "The last frisbee game."


def test_a_greeting_only_exchange_is_named_by_its_period_not_untitled() -> None:
    """Nothing to name: the level and the period; a phrase of the whole input when there is one."""
    request = SummaryRequest("n", 0, "Thursday 20 November 2025",
                             (Passage("me", "Hello", "user"), Passage("assistant", "Hi! How can I assist you today?")))
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.title == "Conversation on Thursday 20 November 2025"
    assert choose_title("", [], 0, source="An independent session; Other reply.") == "Independent session"
    assert choose_title("Untitled · Garden plan", [], 1) == "Garden plan"


def test_a_name_in_quoted_or_code_output_names_nobody() -> None:
    """'it prints "Hello, Alice!"' is about a program, not the person at the keyboard."""
    chat = [("user", "Thanks Claude! Show me a decorator."),
            ("assistant", 'When you run this code, it will print "Hello, Alice!" three times.\n'
                          "```\nHi Bob, welcome\n```\nGreat, Alice!")]
    assert names_by_role(chat[:1] + [("assistant", chat[1][1].replace("Great, Alice!", ""))]) == {}
    assert names_by_role(chat) == {"user": "Alice", "assistant": "Claude"}
