"""Selection by coverage: a summary stands for the whole input, not for its loudest topic."""

from __future__ import annotations

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest

GARDEN = ["I planted three tomato rows in the garden on Sunday.", "My tomato rows in the garden need stakes by June.",
          "I watered the tomato rows in the garden twice today."]
CAR = "I sold my old Volvo to a neighbour for 900 euros."


def summarize(texts: list[str], source_chars: int) -> str:
    inputs = tuple(Passage("09:00 me", t, "user") for t in texts)
    request = SummaryRequest("L1:x:2026-05-03", 1, "Sunday 03 May 2026", inputs, source_chars=source_chars)
    return ExtractiveSummarizer().summarize(request, Budget()).text


def test_a_second_topic_beats_a_third_sentence_on_the_first() -> None:
    """Room for two sentences (2,400 characters at a day's 1/22): one on the garden and the one on
    the car, in their original order."""
    text = summarize(GARDEN + [CAR], source_chars=2400)
    kept = [s for s in GARDEN + [CAR] if s in text]
    assert len(kept) == 2 and kept[-1] == CAR


def test_a_repeated_sentence_is_kept_once() -> None:
    """A repeat covers nothing new, so it never takes the budget twice."""
    text = summarize([CAR, CAR, CAR, GARDEN[0]], source_chars=3200)
    assert text.count(CAR) == 1 and GARDEN[0] in text


def test_a_day_picks_from_what_was_said_not_only_from_its_children_summaries() -> None:
    """With its conversations' messages as sources, a day can keep a sentence its L0 summary left
    out; each conversation names its own speakers."""
    said = (Passage("09:00 me", f"Hey Ana! {CAR}", "user"),
            Passage("09:01 assistant", "Thanks, Ben! Nice.", "assistant"))
    inputs = (Passage("Sun 03 May 09:00–09:01", GARDEN[0]),)
    request = SummaryRequest("L1:x:2026-05-03", 1, "Sunday 03 May 2026", inputs, source_chars=2400, sources=(said,))
    text = ExtractiveSummarizer().summarize(request, Budget()).text
    assert text == "Ben sold their old Volvo to a neighbour for 900 euros."
