"""The orjson-backed codec stores and reads back exactly what the stdlib codec did."""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tapestryd.errors import StoreError
from tapestryd.events.codec import decode, encode
from tapestryd.events.store import EventStore
from tapestryd.events.types import MessageRecorded, NewEvent, UnknownEvent

STDLIB = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def message(meta: dict[str, Any], text: str = "hello é ✓") -> MessageRecorded:
    return MessageRecorded(conversation="chatgpt:c1", message="m1", role="user", text=text,
                           timestamp="2026-03-04T05:06:07.000000Z", skipped={"image": 2}, meta=meta)


@pytest.mark.parametrize("meta", [
    {},
    {"cwd": "/home/me", "sidechain": True, "attachments": ["a.png", "b.pdf"]},
    {"none": None, "nested": {"x": [1, None, 2.5]}},
    {"big": 2 ** 70, "small": -(2 ** 70), "edge": 2 ** 64 - 1, "low": -(2 ** 63)},
    {"inf": math.inf, "ninf": -math.inf},
    {"float": 1e-05, "huge": 1e300},
    {1: "int key"},
])
def test_round_trip_equals_stdlib(meta: dict[str, Any]) -> None:
    event = message(meta)
    type_name, schema, payload = encode(event)
    assert json.loads(payload) == json.loads(STDLIB.encode({**vars(event)}))
    assert decode(type_name, schema, payload) == decode(type_name, schema, STDLIB.encode(vars(event)))


def test_nan_is_kept_as_nan_not_null() -> None:
    _, _, payload = encode(message({"nan": math.nan}))
    assert "NaN" in payload
    assert math.isnan(decode("MessageRecorded", 1, payload).meta["nan"])  # type: ignore[union-attr]


def test_integer_beyond_64_bits_decodes_as_integer() -> None:
    payload = ('{"conversation":"c","message":"m","role":"user","text":"t","timestamp":"x",'
               '"meta":{"id":123456789012345678901234}}')
    decoded = decode("MessageRecorded", 1, payload)
    assert decoded.meta["id"] == 123456789012345678901234  # type: ignore[union-attr]
    assert type(decoded.meta["id"]) is int  # type: ignore[union-attr]


def test_unknown_event_payload_round_trips() -> None:
    type_name, schema, payload = encode(UnknownEvent(name="Future", payload={"a": [1, {"b": None}], "n": 2 ** 80}))
    assert (type_name, schema) == ("Future", 0)
    assert decode(type_name, schema, payload) == UnknownEvent(name="Future",
                                                              payload={"a": [1, {"b": None}], "n": 2 ** 80})


def test_lone_surrogate_still_fails_as_before(tmp_path: Path) -> None:
    """The stdlib fallback writes the surrogate; SQLite refuses it (UnicodeEncodeError), which the appender scrubs."""
    _, _, payload = encode(message({}, text="bad \ud800 text"))
    assert "\ud800" in payload
    with EventStore(tmp_path / "events.db") as store:
        with pytest.raises(UnicodeEncodeError):
            store.append([NewEvent("e1", message({}, text="bad \ud800"), datetime(2026, 1, 1, tzinfo=timezone.utc))])
        assert store.count() == 0


def test_batch_append_seqs_known_and_repeated_ids(tmp_path: Path) -> None:
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with EventStore(tmp_path / "events.db") as store:
        first = store.append([NewEvent(f"e{i}", message({}), at) for i in range(3)])
        assert first.seqs == (1, 2, 3)
        again = store.append([NewEvent(i, message({}), at) for i in ("e1", "x", "x", "e9", "e2")])
        assert again.seqs == (None, 4, None, 5, None)
        assert (again.new, again.known) == (2, 3)
        assert [e.event_id for e in store.read()] == ["e0", "e1", "e2", "x", "e9"]
        assert [e.seq for e in store.read()] == [1, 2, 3, 4, 5]


def test_batch_append_after_deleted_rows_continues_the_sequence(tmp_path: Path) -> None:
    """AUTOINCREMENT never reuses a seq, even when the newest rows were deleted (compaction)."""
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with EventStore(tmp_path / "events.db") as store:
        store.append([NewEvent(f"e{i}", message({}), at) for i in range(4)])
        store.conn.execute("DELETE FROM events WHERE seq >= 3")
        assert store.append([NewEvent("n1", message({}), at), NewEvent("n2", message({}), at)]).seqs == (5, 6)


def test_batch_append_larger_than_one_id_lookup(tmp_path: Path) -> None:
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with EventStore(tmp_path / "events.db") as store:
        store.append([NewEvent(f"e{i}", message({}), at) for i in range(0, 1300, 2)])
        result = store.append([NewEvent(f"e{i}", message({}), at) for i in range(1300)])
        assert result.new == 650 and result.known == 650
        assert store.count() == 1300
        assert result.seqs[1] == 651 and result.seqs[-1] == 1300 and result.seqs[0] is None


def test_failed_batch_stores_nothing(tmp_path: Path) -> None:
    """A row the insert silently drops (here a trigger) fails the whole batch; nothing of it is kept."""
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with EventStore(tmp_path / "events.db") as store:
        store.conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.event_id = 'bad'"
                           " BEGIN SELECT RAISE(IGNORE); END")
        with pytest.raises(StoreError, match="stored 1 of 2"):
            store.append([NewEvent("ok", message({}), at), NewEvent("bad", message({}), at)])
        assert store.count() == 0


CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


@pytest.mark.parametrize("text", [
    '{"a":1}', ' {"a": [1, 2.5, -0, 1e-05]} ', '"\\ud800"', '[NaN, Infinity]', '1e400', '{"a":1,"a":2}',
    '{"id":123456789012345678901234}', '[-9223372036854775809]', '[18446744073709551615]', '"\\u0000"',
    '{"a":"\x01"}', '[1,]', '{"a":1}x', '01', '', '{', '"\t"', '[' * 3000 + ']' * 3000,
])
def test_loads_gives_the_stdlib_values_and_errors(text: str) -> None:
    from tapestryd.events.codec import loads

    def outcome(fn: Any) -> tuple[str, Any]:
        try:
            value = fn(text)
        except (ValueError, RecursionError) as exc:
            return type(exc).__name__, str(exc)
        return "ok", repr(value)

    assert outcome(loads) == outcome(json.loads)


def test_loads_equals_stdlib_on_every_corpus_line() -> None:
    from tapestryd.events.codec import loads

    files = sorted(CORPUS.rglob("*.jsonl")) if CORPUS.exists() else []
    if not files:
        pytest.skip(f"no .jsonl files in the shared corpus at {CORPUS}")
    for path in files:
        for line in path.read_bytes().splitlines():
            if line.strip():
                text = line.decode("utf-8", "replace")
                try:
                    expected = json.loads(text)
                except ValueError:
                    continue
                assert loads(text) == expected


def test_long_text_is_coded_in_bounded_memory() -> None:
    """A 4 MB message costs a few copies of itself (orjson alone would peak near 13)."""
    import tracemalloc

    event = message({}, text="lorem ipsum " * (4_000_000 // 12))
    tracemalloc.start()
    type_name, schema, payload = encode(event)
    assert decode(type_name, schema, payload) == event
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5 * len(event.text)
