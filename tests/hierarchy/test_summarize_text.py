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


def test_the_title_is_the_conversations_own_or_a_phrase_of_the_kept_sentences() -> None:
    """A known title wins; otherwise a short phrase taken whole from the kept sentences, not a word list."""
    request = day_request()
    titled = SummaryRequest(request.node, 0, request.period, request.inputs, title_hint="Lisbon trip planning",
                            source_chars=request.source_chars)
    assert ExtractiveSummarizer().summarize(titled, Budget()).title == "Lisbon trip planning"
    title = ExtractiveSummarizer().summarize(request, Budget()).title
    assert 0 < len(title) <= 70 and "," not in title and 2 <= len(title.split()) <= 5
    assert title.lower() in summary_text_lower(request)


def summary_text_lower(request: SummaryRequest) -> str:
    return ExtractiveSummarizer().summarize(request, Budget()).text.lower()


def test_a_day_title_names_its_main_topic_not_a_list_of_its_conversations() -> None:
    """Above L0 the title is the one child title the kept sentences are most about."""
    inputs = (Passage("Sat 14 Mar 10:00: Postgres upgrade", FACTS[0]), Passage("Sat 14 Mar 12:00: Hiring", FACTS[1]))
    request = SummaryRequest("L1:x:2026-03-14", 1, "Saturday 14 March 2026", inputs,
                             title_hint="Postgres upgrade · Hiring", source_chars=5000)
    assert ExtractiveSummarizer().summarize(request, Budget()).title in ("Postgres upgrade", "Hiring")


def test_summaries_are_whole_sentences_without_scaffolding_or_headings() -> None:
    """No "Certainly…", "Let me know if…", list stubs or cut sentences; relative days become dates."""
    reply = ("Certainly, I'll update the calculator for you.\n### Step 3: Write Code for OAuth 2.0 Authorization\n"
             "## Pricing\n- Start Ready\n- First attempt\n"
             "Here is the new table:\nThe calculator now prices GPT-4o at 5 dollars per million input tokens. "
             "Let me know if you want more models.")
    question = "Yesterday I compared the Claude and GPT-4o prices for our team of 12 people."
    inputs = (Passage("10:00 me", question, "user"), Passage("10:01 assistant", reply, "assistant"))
    request = SummaryRequest("L0:x:2023-08-19:c", 0, "Saturday 19 August 2023", inputs, source_chars=2400,
                             day="2023-08-19")
    text = ExtractiveSummarizer().summarize(request, Budget()).text
    assert "On 18 Aug 2023 I compared the Claude and GPT-4o prices" in text
    for scaffolding in ("Certainly", "Let me know", "Here is", "Start Ready", "First attempt", "Step 3", "…"):
        assert scaffolding not in text
    assert text.endswith(".")


def test_a_segment_without_prose_still_gets_content() -> None:
    """Only short replies: the text lists them whole ("ok; done."), never empty, never cut; named by its period."""
    request = SummaryRequest("n", 0, "Saturday 14 March 2026", (Passage("me", "ok"), Passage("assistant", "done")))
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.text == "ok; done." and summary.title == "Conversation on Saturday 14 March 2026"


def test_a_week_passes_over_a_sentence_whose_yesterday_it_cannot_place() -> None:
    """Above a day the input's day is unknown: "yesterday" cannot be resolved, so the sentence is not used."""
    inputs = (Passage("week", "Yesterday I moved the Postgres cluster to version 16.2 for faster writes."),
              Passage("week", FACTS[1]))
    request = SummaryRequest("L2:x:2026-03-09w", 2, "the week", inputs, source_chars=20000, day="2026-03-09")
    assert "Yesterday" not in ExtractiveSummarizer().summarize(request, Budget()).text


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
