"""Sentence compression: the chat wrapping goes, the statement stays readable and whole."""

from __future__ import annotations

import pytest

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest
from tapestryd.summarize.compress import clauses, compress
from tapestryd.summarize.sentences import split_sentences


@pytest.mark.parametrize(("sentence", "expected"), [
    ("Hey Mel, we moved the standup to 9:30 on Mondays.", "We moved the standup to 9:30 on Mondays."),
    ("Yeah John, it's super important to pin the numpy version.", "It's important to pin the numpy version."),
    ("Wow, thanks! I really love the new Rust parser.", "I love the new Rust parser."),
    ("By the way, the invoice for March is 240 euros.", "The invoice for March is 240 euros."),
    ("I think it's time to drop Python 3.9 support.", "It's time to drop Python 3.9 support."),
    ("The backup runs at night, you know?", "The backup runs at night."),
    ("Honestly, the build takes 14 minutes :)", "The build takes 14 minutes"),
    ("Oh, and BTW, I opened an online store in May - pretty cool, huh?", "I opened an online store in May."),
    ("Oh wow, that's awesome, I got the job at the museum!", "I got the job at the museum!"),
    ("Haha, yeah, so I adopted a dog in June.", "I adopted a dog in June."),
    ("Quick update: I moved to Lisbon in March.", "I moved to Lisbon in March."),
    ("I just wanted to let you know I ran a charity 10K on Sunday.", "I ran a charity 10K on Sunday."),
    ("I'm so excited to tell you that we adopted a kitten.", "We adopted a kitten."),
    ("I made a peach cobbler on Sunday, it was great.", "I made a peach cobbler on Sunday."),
    ("We went to the Tate on Friday and it was so inspiring!", "We went to the Tate on Friday!"),
    ("Ah ha ha, yeah, I finished the marathon in May.", "I finished the marathon in May."),
])
def test_openers_fillers_hedges_and_tags_are_cut(sentence: str, expected: str) -> None:
    """Only the wrapping is deleted; names, numbers and content words stay in their order."""
    assert compress(sentence) == expected


@pytest.mark.parametrize("sentence", [
    "Yesterday, I flew to Paris, France.",
    "I feel like a new person after the trip to Kyoto.",
    "I believe in the plan we wrote on Friday.",
    "Thanks, Melanie!",
    "We deploy on Friday, right?",
    "So that we can leave at 6, I packed the car.",
    "The super block of the ext4 volume is damaged.",
    'print("Something before the function")',
    "If we need help, we'll let you know!",
    "I wanted to tell you about the school fair in May.",
    "The weather was warm and nice.",
])
def test_statements_without_wrapping_are_left_alone(sentence: str) -> None:
    """A time word, a hedge before a noun, a noun after a determiner, a too-short rest, code, "you
    know" as the sentence's own words: all kept."""
    assert compress(sentence) == sentence


@pytest.mark.parametrize("teaser", [
    "I've got something to share!", "I got some great news to share.", "But here's some good news.",
    "I just wanted to check in.", "There's something I want to tell you.", "I had to share something cool with you.",
    "Been a busy week since we talked.", "It's been a wild ride!", "It has been a while.",
])
def test_a_teaser_announcing_news_is_not_a_sentence_to_keep(teaser: str) -> None:
    """A sentence that only announces news says nothing a summary can keep; the news itself stays."""
    assert split_sentences(teaser) == []
    assert split_sentences(f"{teaser} I got the job at the museum.") == ["I got the job at the museum."]


def test_time_that_passed_with_news_in_it_is_kept() -> None:
    assert split_sentences("It's been a year since I moved to Oslo.") == ["It's been a year since I moved to Oslo."]


def test_stand_alone_clauses_become_sentences() -> None:
    """A spaced dash, a semicolon and ", but <subject>" split; a plain list comma does not."""
    assert clauses("A lot happened - I joined a climbing gym last Tuesday") == [
        "A lot happened.", "I joined a climbing gym last Tuesday."]
    assert clauses("I was busy with work, but I finished the thesis draft.") == [
        "I was busy with work.", "I finished the thesis draft."]
    assert clauses("We bought apples, pears and plums.") == ["We bought apples, pears and plums."]


@pytest.mark.parametrize("sentence", [
    "Indigenous ancestry is very high — often 70% or more.",
    "2. **`decorator(func)`** - This is the actual decorator that gets returned",
    "Yes — what she said is very much on point.",
])
def test_a_fragment_is_not_split_off(sentence: str) -> None:
    """A dash before a phrase without a subject, or after a list item's head, keeps the sentence whole."""
    assert clauses(sentence) == [sentence]


def test_attachment_notes_are_not_sentences() -> None:
    """A line wholly in square brackets is metadata about the message, not something said."""
    text = "I finished the oak bookshelf for the hall.\n[shared an image: a photo of a wooden bookshelf]"
    assert split_sentences(text) == ["I finished the oak bookshelf for the hall."]


def test_a_summary_keeps_the_statement_without_its_greeting() -> None:
    """The day's summary quotes the compressed statement, not the greeting around it."""
    texts = ["Hey Sam! Long time no talk.", "Hi Ana! Great to hear from you, what's new?",
             "Oh wow, so much! I adopted a grey cat called Miso from the shelter on Saturday."]
    inputs = tuple(Passage("10:00 me", t, "user" if i % 2 == 0 else "assistant") for i, t in enumerate(texts))
    request = SummaryRequest("L1:x:2026-03-07", 1, "Saturday 07 March 2026", inputs, source_chars=2400)
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.text == "I adopted a grey cat called Miso from the shelter on Saturday."


def test_markup_and_unfenced_code_are_not_sentences() -> None:
    """Artifact tags, form inputs and code pasted without a fence (Claude.ai artifacts) never reach a summary."""
    text = ('<antArtifact identifier="calc" type="text/html" title="LLM Pricing Calculator">'
            ' <input type="number" id="inputTokens" min="0" value="0">\n'
            "import { Tabs, TabsList } from '@/components/ui/tabs';\n"
            "bestSellers: ['Sourdough Sandwich Loaf', 'Artisan Baguette'],\n"
            "const total = inputTokens * price;\n"
            "    'claude-3-opus': { name: 'Claude 3 Opus', input: 15.00, output: 75.00 },\n"
            "I built the pricing calculator with presets for each model.</antThinking>\n"
            "Note: the plain sentence with a colon stays.\n"
            "**PEP 695** makes generic classes shorter in Python 3.12.")
    assert split_sentences(text) == ["I built the pricing calculator with presets for each model.",
                                     "Note: the plain sentence with a colon stays.",
                                     "PEP 695 makes generic classes shorter in Python 3.12."]


def test_a_title_above_l0_is_one_child_title_not_a_clipped_list() -> None:
    """Titles joined from the children's are not clipped into a list: one of them names the node."""
    hint = " · ".join(["Valid Conversation Before Errors", "Attachment Test", "Thinking Test…",
                       "Another Long Conversation Title"])
    inputs = (Passage("10:00 me", "I moved the nightly backup to 02:00 because of the load.", "user"),)
    request = SummaryRequest("L2:x:2026-03-02w", 2, "week", inputs, source_chars=200, title_hint=hint)
    title = ExtractiveSummarizer().summarize(request, Budget()).title
    assert title in hint.split(" · ") and "·" not in title
