"""Parsers against hostile sizes: deep nesting, huge strings, many conversations.

Complements tests/sources/test_sources_fuzz.py (byte corruption, random JSON shapes):
here the input is built to exhaust the stack, a single buffer, or memory. A parser must
end (pytest-timeout bounds the time), turn what it cannot read into a Problem, and keep
its memory near one item's size rather than the file's.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from typing import Any

import pytest

from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.sources.parsers.base import Origin, Problem, Skip
from tapestryd.sources.parsers.chatgpt import ChatGPTParser
from tapestryd.sources.parsers.claude_ai import ClaudeAIParser
from tapestryd.sources.parsers.claude_code import ClaudeCodeParser

PARSERS = {"claude-code": ClaudeCodeParser(), "chatgpt": ChatGPTParser(), "claude-ai": ClaudeAIParser()}
ORIGIN = Origin("hostile", "0" * 64, "test")


def _items(parser: str, data: bytes) -> list[Any]:
    return list(PARSERS[parser].parse(io.BytesIO(data), ORIGIN))


def _peak(parser: str, data: bytes) -> tuple[int, int]:
    """(items, peak bytes allocated while parsing) with the input itself already allocated."""
    stream = io.BytesIO(data)
    tracemalloc.start()
    try:
        count = sum(1 for _ in PARSERS[parser].parse(stream, ORIGIN))
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("parser", sorted(PARSERS))
@pytest.mark.parametrize("depth", [1_000, 200_000])
def test_deep_nesting_ends_in_problems_not_a_crash(parser: str, depth: int) -> None:
    """JSON nested deeper than any stack, as a file and as a JSONL line, yields problems, no exception."""
    nested = b"[" * depth + b"]" * depth
    for data in (nested, b'{"type":"user","message":' + nested + b"}\n", b"[" + nested + b"]"):
        items = _items(parser, data)
        assert all(isinstance(i, (NewEvent, Skip, Problem)) for i in items)
        assert not any(isinstance(i, NewEvent) for i in items)


def _claude_code_line(n: int, text: str) -> bytes:
    return json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": "big", "timestamp": "2025-01-01T00:00:00Z",
                       "message": {"role": "user", "content": text}}).encode() + b"\n"


def test_huge_message_is_kept_whole_in_bounded_memory() -> None:
    """A 20 MB message is one event with all its text; memory stays within a few copies of it."""
    text = "lorem ipsum " * (20_000_000 // 12)
    count, peak = _peak("claude-code", _claude_code_line(1, text))
    assert count == 2 and peak < 6 * len(text)  # the message, and the session's title from its first line
    event = _items("claude-code", _claude_code_line(1, text))[0]
    assert isinstance(event, NewEvent) and isinstance(event.event, MessageRecorded) and event.event.text == text


def _chatgpt_export(conversations: int) -> bytes:
    def one(i: int) -> dict[str, Any]:
        return {"id": f"c{i}", "title": f"chat {i}", "create_time": 1700000000 + i, "update_time": 1700000000 + i,
                "current_node": "m2", "mapping": {
                    "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
                    "m1": {"id": "m1", "parent": "root", "children": ["m2"], "message": {
                        "id": "m1", "author": {"role": "user"}, "create_time": 1700000000 + i,
                        "content": {"content_type": "text", "parts": [f"question {i} " + "x" * 2000]}}},
                    "m2": {"id": "m2", "parent": "m1", "children": [], "message": {
                        "id": "m2", "author": {"role": "assistant"}, "create_time": 1700000001 + i,
                        "content": {"content_type": "text", "parts": [f"answer {i} " + "y" * 2000]}}}}}
    return json.dumps([one(i) for i in range(conversations)]).encode()


def test_many_conversations_stream_in_memory_of_one() -> None:
    """A 4.6 MB export of 1,000 conversations parses with a peak far below the file's size (about
    0.23 MB, as for 4,000: it does not grow with the file)."""
    data = _chatgpt_export(1000)
    count, peak = _peak("chatgpt", data)
    messages = sum(1 for i in _items("chatgpt", data)
                   if isinstance(i, NewEvent) and isinstance(i.event, MessageRecorded))
    assert messages == 2000 and count >= 2000
    assert peak < len(data) / 4, f"peak {peak / 1e6:.1f} MB for a {len(data) / 1e6:.1f} MB file"
