"""The codec's and format_utc's fast paths give what the general paths give."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.events.codec import decode, encode, loads
from tapestryd.events.types import ConversationTitled, Event, MessageRecorded, NodeSummarized, format_utc

STDLIB = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _slow_format(ts: datetime) -> str:
    if ts.tzinfo is not None:
        ts = ts.astimezone(timezone.utc).replace(tzinfo=None)
    return ts.isoformat(timespec="microseconds") + "Z"


@pytest.mark.parametrize("ts", [
    datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=timezone.utc),
    datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc),
    datetime(999, 1, 2, tzinfo=timezone.utc),
    datetime(2026, 3, 4, 5, 6, 7, 1, tzinfo=ZoneInfo("Europe/Paris")),
    datetime(2026, 3, 4, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-7))),
    datetime(2026, 3, 4, 5, 6, 7),
])
def test_format_utc_matches_the_general_path(ts: datetime) -> None:
    assert format_utc(ts) == _slow_format(ts)
    assert len(format_utc(ts)) == 27  # fixed width, so text order is time order


def test_payload_keeps_field_order_even_when_the_instance_dict_differs() -> None:
    """An attribute set on an instance after construction never reaches the payload."""
    event = MessageRecorded("c", "m", "user", "hi", "2026-01-01T00:00:00.000000Z", meta={"n": None})
    object.__setattr__(event, "extra", 1)
    _, _, payload = encode(event)
    assert list(json.loads(payload)) == ["conversation", "message", "role", "text", "timestamp", "model", "session",
                                         "skipped", "meta"]


@pytest.mark.parametrize("event", [
    MessageRecorded("c", "m", "user", "null and NaN in text", "t", skipped={"image": 1}, meta={"x": [1, {"y": 2}]}),
    MessageRecorded("c", "m", "user", "t", "t", meta={"nan": float("nan"), "inf": float("-inf")}),
    ConversationTitled("c", "a title", ""),
])
def test_encode_is_the_stdlib_text(event: MessageRecorded | ConversationTitled) -> None:
    assert encode(event)[2] == STDLIB.encode(dict(vars(event)))


def test_decode_drops_unknown_keys_and_keeps_known_ones() -> None:
    payload = '{"conversation":"c","title":"t","future":[1,2]}'
    assert decode("ConversationTitled", 1, payload) == ConversationTitled("c", "t")
    with pytest.raises(TypeError):
        decode("ConversationTitled", 1, '{"conversation":"c"}')


@pytest.mark.parametrize("event", [
    MessageRecorded("c", "m", "user", "hi", "2026-01-01T00:00:00.000000Z", "model", "s", {"image": 1}, {"n": [1]}),
    ConversationTitled("c", "a title", "2026-01-01T00:00:00.000000Z", "ai"),
    NodeSummarized("L0:x", 0, "f", "extractive", "m", "1", "T", "S", {"calls": 1}),
])
def test_decode_of_every_field_is_the_constructed_event(event: Event) -> None:
    """A payload holding every field (set without the generated __init__) gives the event the constructor gives:
    equal, hashable alike, fields in declaration order (so encoding it again reuses its __dict__ as before)."""
    type_name, schema, payload = encode(event)
    decoded = decode(type_name, schema, payload)
    assert decoded == event and type(decoded) is type(event) and list(vars(decoded)) == list(vars(event))
    assert encode(decoded) == (type_name, schema, payload)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decoded.type_name = "x"  # type: ignore[attr-defined]
    missing = json.loads(payload)
    missing.pop(next(reversed(missing)))  # a payload without a defaulted field still goes through __init__
    assert decode(type_name, schema, json.dumps(missing)) == type(event)(**missing)


@pytest.mark.parametrize("text", [
    '{"a":[{"b":[1,2,{"c":18446744073709551616}]}]}', '[[[-99999999999999999999]]]',
    '{"a":1e19,"b":"12345678901234567890"}',
    '{"deep":' + '[' * 200 + '1.5' + ']' * 200 + '}', '{"s":["x","y"],"n":{"m":{}}}',
])
def test_loads_of_nested_big_numbers_is_the_stdlib_value(text: str) -> None:
    assert repr(loads(text)) == repr(json.loads(text))
