"""Parsers never raise on corrupted corpus files or random JSON: bad input is always a Problem.

Hypothesis mutates the real corpus files (flipped, dropped and inserted bytes, truncation)
and generates JSON of random shapes, whole or spliced into real conversations.
"""

from __future__ import annotations

import io
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapestryd.events.codec import encode
from tapestryd.events.types import NewEvent, format_utc
from tapestryd.sources.parsers.base import Origin, Problem, Skip
from tapestryd.sources.parsers.chatgpt import ChatGPTParser
from tapestryd.sources.parsers.claude_ai import ClaudeAIParser
from tapestryd.sources.parsers.claude_code import ClaudeCodeParser

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"
PARSERS = {"claude-code": ClaudeCodeParser(), "chatgpt": ChatGPTParser(), "claude-ai": ClaudeAIParser()}
FUZZ = settings(max_examples=int(os.environ.get("TAPESTRY_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def samples() -> list[tuple[str, bytes]]:
    """(parser, bytes) of every corpus file and project fixture that has a parser."""
    found = []
    for root in (CORPUS, FIXTURES):
        for folder, parser in (("claude-code", "claude-code"), ("chatgpt", "chatgpt"), ("claude-ai", "claude-ai")):
            found.extend((parser, p.read_bytes()) for p in sorted((root / folder).glob("*.json*")))
    return found


SAMPLES = samples()


def check(parser_name: str, data: bytes) -> None:
    """Parse ``data`` fully; every item is a valid kind and every event encodes."""
    for item in PARSERS[parser_name].parse(io.BytesIO(data), Origin("fuzz", "0" * 64, "fuzz")):
        assert isinstance(item, (NewEvent, Skip, Problem))
        if isinstance(item, NewEvent):
            encode(item.event)


@st.composite
def corrupted(draw: st.DrawFn) -> tuple[str, bytes]:
    parser, data = draw(st.sampled_from(SAMPLES))
    buf = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        if not buf:
            break
        at = draw(st.integers(0, len(buf) - 1))
        action = draw(st.sampled_from(["flip", "drop", "insert", "truncate"]))
        if action == "flip":
            buf[at] = draw(st.integers(0, 255))
        elif action == "drop":
            del buf[at: at + draw(st.integers(1, 64))]
        elif action == "insert":
            buf[at:at] = draw(st.binary(min_size=1, max_size=16))
        else:
            del buf[at:]
    return parser, bytes(buf)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "message", "content", "text", "parts", "mapping", "parent", "children", "author",
                         "role", "current_node", "create_time", "chat_messages", "sender", "uuid", "created_at",
                         "sessionId", "timestamp", "isMeta", "id", "attachments", "files", "summary"])
        | st.text(max_size=5),
        inner, max_size=5),
    max_leaves=25,
)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS}")
@FUZZ
@given(corrupted())
def test_parsers_survive_byte_corruption(case: tuple[str, bytes]) -> None:
    """Random byte damage to real files never raises out of a parser."""
    check(*case)


@FUZZ
@given(JSON, st.sampled_from(sorted(PARSERS)))
def test_parsers_survive_random_json_shapes(value: Any, parser: str) -> None:
    """Any JSON value, as a whole file, as a list item, or as JSONL lines, is handled."""
    check(parser, json.dumps(value).encode())
    check(parser, json.dumps([value]).encode())
    lines = value if isinstance(value, list) else [value]
    check(parser, b"".join(json.dumps(v).encode() + b"\n" for v in lines))


@FUZZ
@given(JSON, st.data())
def test_parsers_survive_random_values_spliced_into_real_records(value: Any, data: st.DataObject) -> None:
    """A random value put at a random key of a real conversation or line is handled."""
    parser, raw = data.draw(st.sampled_from([s for s in SAMPLES if s[0] != "claude-code"] or SAMPLES))
    doc = json.loads(raw)
    target = doc[0] if isinstance(doc, list) and doc else doc
    path = data.draw(st.lists(st.integers(0, 30), max_size=4))
    splice(target, path, value)
    check(parser, json.dumps(doc).encode())


def splice(node: Any, path: list[int], value: Any) -> None:
    """Replace the value found by following ``path`` (indexes into keys or items) with ``value``."""
    for step in path:
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            return
        key = keys[step % len(keys)]
        if not isinstance(node[key], (dict, list)) or step == path[-1]:
            node[key] = value
            return
        node = node[key]


@FUZZ
@given(st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31),
                    timezones=st.none() | st.sampled_from([timezone.utc, timezone(timedelta(hours=-7, minutes=-30))])))
def test_format_utc_is_the_strftime_text(ts: datetime) -> None:
    """The isoformat fast path of format_utc (used for every event) writes exactly the old strftime text."""
    utc = ts.replace(tzinfo=timezone.utc) if ts.tzinfo is None else ts.astimezone(timezone.utc)
    assert format_utc(ts) == utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
