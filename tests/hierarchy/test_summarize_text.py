"""Text in, text out: the extractive provider, length budgets, chunking and answer parsing."""

from __future__ import annotations

import pytest

from tapestryd.errors import ProviderError
from tapestryd.summarize import Budget, BudgetExhausted, ExtractiveSummarizer, Passage, SummaryRequest
from tapestryd.summarize.chunking import chunk_passages, split_text
from tapestryd.summarize.prompts import parse_answer, render_messages
from tapestryd.summarize.tokens import estimate_tokens

SMALL_TALK = ["Wow, that's so cool!", "Thanks so much, that means a lot to me!", "Haha, you are the best, really!",
              "Sounds great, have fun with that!", "How are you doing these days?"]
FACTS = ["I moved the Postgres cluster to version 16.2 on 14 March after the benchmark showed 38% faster writes.",
         "We decided to hire Priya Raman as the second SRE, starting on 1 May with a budget of 92,000 euros.",
         "My flight to Lisbon leaves on Friday at 07:45 from gate B12, booked with TAP for 240 euros."]


def day_request(level: int = 0, repeat: int = 6) -> SummaryRequest:
    texts = [t for _ in range(repeat) for t in SMALL_TALK + FACTS]
    inputs = tuple(Passage(f"10:{i:02d} me", t, "user" if i % 2 else "assistant") for i, t in enumerate(texts))
    return SummaryRequest("L0:x:2026-03-14:c", level, "Saturday 14 March 2026", inputs,
                          source_chars=sum(len(t) for t in texts))


def test_extractive_is_deterministic() -> None:
    """Same input, same output, from two separate instances."""
    request = day_request()
    first = ExtractiveSummarizer().summarize(request, Budget())
    assert ExtractiveSummarizer().summarize(request, Budget()) == first


def test_extractive_keeps_specific_sentences_over_small_talk() -> None:
    """The kept sentences carry names, numbers and dates; cheering and questions are left out."""
    summary = ExtractiveSummarizer().summarize(day_request(), Budget())
    assert any(fact in summary.text for fact in FACTS)
    assert not any(talk in summary.text for talk in SMALL_TALK)
    assert summary.usage.calls == 1 and summary.usage.tokens_in > summary.usage.tokens_out


def test_a_daily_is_at_least_twenty_times_smaller_than_its_messages() -> None:
    """The L1 length budget keeps a typical day (about 5,000 characters) above 20:1 compression."""
    request = day_request(level=1, repeat=12)
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert request.source_chars >= 5000
    assert request.source_chars / len(summary.text) >= 20


def test_the_title_is_the_conversations_own_or_its_heaviest_terms() -> None:
    """A known title wins; otherwise a few weighty words from the kept sentences."""
    request = day_request()
    titled = SummaryRequest(request.node, 0, request.period, request.inputs, title_hint="Lisbon trip planning",
                            source_chars=request.source_chars)
    assert ExtractiveSummarizer().summarize(titled, Budget()).title == "Lisbon trip planning"
    title = ExtractiveSummarizer().summarize(request, Budget()).title
    assert 0 < len(title) <= 70 and "," in title


def test_a_segment_without_prose_still_gets_content() -> None:
    """Only short replies: the text falls back to the raw words, never empty."""
    request = SummaryRequest("n", 0, "today", (Passage("me", "ok"), Passage("assistant", "done")))
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.text == "ok done" and summary.title == "Untitled"


def test_a_spent_budget_stops_before_the_call() -> None:
    """A call budget of one allows one node, then raises BudgetExhausted."""
    budget = Budget(calls=1)
    ExtractiveSummarizer().summarize(day_request(), budget)
    with pytest.raises(BudgetExhausted):
        ExtractiveSummarizer().summarize(day_request(), budget)


def test_chunks_respect_the_token_size_and_keep_order() -> None:
    """A long message is cut at sentence boundaries; chunks stay under the limit, in order."""
    long = " ".join(f"Sentence number {i} says something about item {i}." for i in range(400))
    passages = (Passage("09:00 me", "short start"), Passage("09:01 assistant", long), Passage("09:02 me", "end"))
    chunks = chunk_passages(passages, 500)
    assert len(chunks) > 1
    assert all(sum(estimate_tokens(p.text) + estimate_tokens(p.label) + 2 for p in c) <= 500 for c in chunks)
    joined = " ".join(p.text for c in chunks for p in c)
    assert joined.startswith("short start Sentence number 0") and joined.endswith("item 399. end")
    assert all(len(piece) <= 40 for piece in split_text("a" * 100, 40))


def test_answers_are_read_with_or_without_a_title_line() -> None:
    """``Title:`` (with markdown) or a short first line give the title; empty answers are errors."""
    assert parse_answer("**Title:** Moving day\n\nI moved to Leeds.") == ("Moving day", "I moved to Leeds.")
    assert parse_answer("# Moving day\nI moved to Leeds.") == ("Moving day", "I moved to Leeds.")
    assert parse_answer("I moved to Leeds on 3 May.")[0] == "I moved to Leeds on 3 May."
    with pytest.raises(ProviderError):
        parse_answer("  \n ")


def test_prompts_carry_context_and_the_running_summary() -> None:
    """The user prompt names the period, gives context for continuity and the earlier chunks' summary."""
    request = day_request()
    request = SummaryRequest(request.node, 0, request.period, request.inputs[:2],
                             context=(Passage("Fri 13 Mar 2026", "I planned the Lisbon trip."),), agent="chatgpt")
    system, user = render_messages(request, request.inputs, carried="Earlier: we met Priya.", part=(2, 3))
    assert system["role"] == "system" and "first person" in system["content"]
    text = user["content"]
    assert "Saturday 14 March 2026" in text and "I planned the Lisbon trip." in text
    assert "part 2 of 3" in text and "Earlier: we met Priya." in text and "Title:" in text
