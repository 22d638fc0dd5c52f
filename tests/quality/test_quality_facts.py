"""Fact extraction from raw messages and the facts file format."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tapestryd.errors import TapestryError
from tapestryd.quality.facts import Fact, FactsFile, extract_facts, has_specific, load_facts


def test_sentences_with_numbers_names_dates_or_decisions_are_facts() -> None:
    """Each kind of specific makes a sentence a fact; small talk does not."""
    assert has_specific("We moved the launch to 14 March.")
    assert has_specific("My sister lives near Caroline now.")
    assert has_specific("The meeting is on Tuesday morning.")
    assert has_specific("We decided to keep the old schema.")
    assert not has_specific("That sounds really great to me.")


def test_the_first_word_of_a_sentence_and_the_pronoun_i_are_not_names() -> None:
    """Capitals that every sentence has do not count as names."""
    assert not has_specific("Honestly I think that works well.")


def test_extraction_keeps_fact_sentences_once_and_drops_questions_and_fragments() -> None:
    """Questions ask rather than state; one-word replies say nothing; repeats count once."""
    texts = ["I moved to Berlin in 2019. That sounds great! What time is it in Tokyo?",
             "Ok.", "I decided to use Postgres for the new project.", "i moved to berlin in 2019."]
    assert extract_facts(texts) == ["I moved to Berlin in 2019.", "I decided to use Postgres for the new project."]


def test_overlong_sentences_are_not_single_facts() -> None:
    """A 41-word run-on sentence is too long to be one fact."""
    assert extract_facts(["In 2019 " + "word " * 39 + "end."]) == []


def test_a_locomo_shaped_facts_file_reads_with_its_conversation_uuid(tmp_path: Path) -> None:
    """Unknown keys are ignored; conversation_uuid is the conversation, day narrows it."""
    path = tmp_path / "facts.jsonl"
    path.write_text('{"fact": "Caroline moved from Sweden.", "conversation_uuid": "f231", "session": 1}\n\n'
                    '{"text": "A day fact.", "day": "2023-05-08", "agent": "claude-ai"}\n')
    assert load_facts(path) == FactsFile([Fact("Caroline moved from Sweden.", "f231"),
                                          Fact("A day fact.", "", date(2023, 5, 8), "claude-ai")])


@pytest.mark.parametrize(("line", "message"), [
    ("not json", "facts.jsonl:2: not JSON"),
    ("[1, 2]", "facts.jsonl:2: expected a JSON object"),
    ('{"conversation": "x"}', "facts.jsonl:2: no fact text"),
    ('{"fact": "A fact."}', "facts.jsonl:2: a fact needs 'conversation'"),
    ('{"fact": "A fact.", "day": "8 May 2023"}', "facts.jsonl:2: day '8 May 2023' is not an ISO date"),
])
def test_a_bad_facts_line_is_reported_with_its_line_and_skipped(tmp_path: Path, line: str, message: str) -> None:
    """The user sees which line of which file to fix and how many were skipped; the facts after it still count."""
    path = tmp_path / "facts.jsonl"
    path.write_text('{"fact": "Fine.", "conversation": "c"}\n' + line + '\n{"fact": "After.", "day": "2023-05-09"}\n')
    read = load_facts(path)
    assert [f.text for f in read.facts] == ["Fine.", "After."]
    assert read.skipped == 1 and message in read.problems[0]


def test_a_facts_file_without_one_good_line_is_a_user_error(tmp_path: Path) -> None:
    """Nothing to evaluate against: the error names the count and the first bad line."""
    path = tmp_path / "facts.jsonl"
    path.write_text("not json\n[1]\n")
    with pytest.raises(TapestryError, match="no fact could be read .*2 bad lines, the first .*facts.jsonl:1: not JSON"):
        load_facts(path)


def test_facts_lines_end_at_line_breaks_only(tmp_path: Path) -> None:
    """CR-only ends separate facts; a U+2028 inside a fact's string is text."""
    path = tmp_path / "facts.jsonl"
    path.write_text('{"fact": "One\u2028two.", "day": "2023-05-08"}\r{"fact": "Three.", "day": "2023-05-08"}\r',
                    encoding="utf-8", newline="")
    assert [f.text for f in load_facts(path).facts] == ["One\u2028two.", "Three."]


def test_a_missing_facts_file_is_a_user_error(tmp_path: Path) -> None:
    """A mistyped path names the file."""
    with pytest.raises(TapestryError, match="cannot read facts file"):
        load_facts(tmp_path / "nope.jsonl")


def test_may_the_verb_is_not_a_date_but_8_may_is() -> None:
    """"I may go" says nothing specific; "on 8 May" names a day."""
    assert not has_specific("Perhaps they may come along soon.")
    assert has_specific("They come back on 8 May.")
    assert has_specific("They are going to stay.")
