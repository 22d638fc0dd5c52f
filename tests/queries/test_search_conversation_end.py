"""search --conversation takes the full key or any unique end of it, as show does (forget asks
for 6+ characters); an ambiguous, blank or unknown end is one clear error."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from cli_runner import tapestryctl
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.operations.testing import run_json
from tapestryd.queries.hybrid import hybrid_search
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search

NOW = datetime(2026, 3, 5, 12, 0, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    history.message("claude-ai:tool-conv-002", datetime(2026, 3, 3, 10, tzinfo=PARIS), "python tool call",
                    agent="claude")
    history.message("claude-ai:tool-conv-002", datetime(2026, 3, 3, 10, 5, tzinfo=PARIS),
                    "the tool call returned a python traceback from the tool call wrapper", agent="claude")
    history.message("claude-ai:tool-conv-002", datetime(2026, 3, 3, 10, 9, tzinfo=PARIS), "call it once more",
                    agent="claude")
    history.message("chatgpt:tool-conv-102", datetime(2026, 3, 3, 11, tzinfo=PARIS), "python elsewhere",
                    agent="chatgpt")
    history.message("chatgpt:other-conv-102", datetime(2026, 3, 3, 12, tzinfo=PARIS), "python again", agent="chatgpt")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def conversations(result: dict) -> set[str]:
    return {h["conversation"] for h in result["hits"]}


@pytest.mark.parametrize("ref", ["tool-conv-002", "conv-002", "claude-ai:tool-conv-002", "002", "-002"])
def test_a_unique_end_finds_the_conversation(reader: Reader, ref: str) -> None:
    assert conversations(search(reader, "python", SearchFilters(conversation=ref), now=NOW)) == {
        "claude-ai:tool-conv-002"}
    hybrid = hybrid_search(reader, "python", SearchFilters(conversation=ref), now=NOW)
    full = hybrid_search(reader, "python", SearchFilters(conversation="claude-ai:tool-conv-002"), now=NOW)
    assert conversations(hybrid) == {"claude-ai:tool-conv-002"} and hybrid == full


def test_an_end_of_several_keys_names_them(reader: Reader) -> None:
    with pytest.raises(TapestryError, match="'conv-102' is ambiguous.*chatgpt:other-conv-102, chatgpt:tool-conv-102"):
        search(reader, "python", SearchFilters(conversation="conv-102"), now=NOW)


@pytest.mark.parametrize("ref", ["2", "02", "-102", "conv-102"])
def test_an_end_of_many_keys_is_ambiguous_at_any_length(reader: Reader, ref: str) -> None:
    with pytest.raises(TapestryError, match=f"^'{ref}' is ambiguous: it ends several conversation keys"):
        search(reader, "python", SearchFilters(conversation=ref), now=NOW)


def test_a_blank_or_unknown_end_is_refused(reader: Reader) -> None:
    for blank in ("", "  "):
        with pytest.raises(TapestryError, match="^--conversation is empty: give a conversation key"):
            run_json("search", reader, {"query": "python", "conversation": blank})
    assert len(conversations(run_json("search", reader, {"query": "python", "conversation": None}))) == 3
    with pytest.raises(TapestryError, match="no conversation matches 'nowhere-999'"):
        search(reader, "python", SearchFilters(conversation="nowhere-999"), now=NOW)


def test_the_cli_searches_one_conversation_by_its_end(reader: Reader) -> None:
    done = tapestryctl("search", "python", "--conversation", "tool-conv-002", "-f", "jsonl")
    hits = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and {h["conversation"] for h in hits} == {"claude-ai:tool-conv-002"}
    assert len([h for h in hits if not h["extra"].get("next_to_match")]) == 2
    text = tapestryctl("search", "python", "--conversation", "tool-conv-002")
    assert text.returncode == 0 and text.stdout.splitlines()[0] == "in conversation claude-ai:tool-conv-002"
    bad = tapestryctl("search", "python", "--conversation", "conv-102")
    assert bad.returncode == 1 and "ambiguous" in bad.stderr and "Traceback" not in bad.stderr
    empty = tapestryctl("search", "python", "--conversation", "")
    assert empty.returncode == 1 and "--conversation is empty" in empty.stderr
