"""The hub's schema and statements against a real PostgreSQL server."""

from __future__ import annotations

import pytest

from tapestryd.errors import SyncError
from tapestryd.sync.hub import Hub, Timeouts


def _row(n: int, origin: str = "laptop") -> dict[str, object]:
    return {"event_id": f"e{n}", "origin": origin, "type": "MessageRecorded", "schema": 2,
            "occurred_at": f"2026-01-01T00:00:{n:02d}.000000Z", "key_id": "k", "nonce": b"n" * 12,
            "ciphertext": f"c{n}".encode()}


def test_push_is_idempotent_and_moves_the_checkpoint_with_the_rows(hub_url: str) -> None:
    with Hub(hub_url) as hub:
        assert hub.pushed("laptop") == 0 and hub.head() == 0
        assert hub.push("laptop", [_row(1), _row(2)], 7) == 2
        assert hub.push("laptop", [_row(2), _row(3)], 9) == 1  # e2 is there already
        assert hub.pushed("laptop") == 9 and hub.pushed("desktop") == 0
        rows = hub.rows_after(0, 10)[1]
        assert [r.event_id for r in rows] == ["e1", "e2", "e3"]
        assert [r.event_id for r in hub.rows_after(rows[0].seq, 1)[1]] == ["e2"]
        assert hub.head() == rows[-1].seq
        hub.push("desktop", [_row(4, "desktop")], 1)
        head, others = hub.rows_after(0, 10, skip_origin="laptop")
        assert head == hub.head() and [r.event_id for r in others] == ["e4"]


def test_forget_replaces_the_payload_once(hub_url: str) -> None:
    with Hub(hub_url) as hub:
        hub.push("laptop", [_row(1), _row(2)], 2)
        tomb = {"event_id": "e1", "key_id": "k", "nonce": b"m" * 12, "ciphertext": b"tombstone"}
        assert hub.forget("desktop", [tomb, {**tomb, "event_id": "absent"}]) == 1
        assert hub.forget("desktop", [tomb]) == 0
        rows = hub.forgotten_after(0, 10)
        assert [(r.event_id, bytes(r.ciphertext)) for r in rows] == [("e1", b"tombstone")]
        assert hub.forgotten_head() == rows[0].seq
        assert bytes(hub.rows_after(0, 1)[1][0].ciphertext) == b"tombstone"


def test_an_unreachable_hub_raises_sync_error_quickly(pg_cluster: object) -> None:
    import socket
    import time

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with Hub(f"postgresql://x@127.0.0.1:{port}/hub", timeouts=Timeouts(connect=2)) as hub:
        with pytest.raises(SyncError, match="hub postgresql"):
            hub.head()
    assert time.monotonic() - started < 10


def test_a_hub_that_never_answers_times_out(pg_cluster: object) -> None:
    import socket
    import time

    with socket.socket() as listener:  # accepts the TCP connection, never speaks
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        started = time.monotonic()
        with Hub(f"postgresql://x@127.0.0.1:{port}/hub", timeouts=Timeouts(connect=2)) as hub:
            with pytest.raises(SyncError):
                hub.head()
        assert time.monotonic() - started < 10


def test_not_a_postgresql_url() -> None:
    with pytest.raises(SyncError, match="postgresql://"):
        Hub("sqlite:///x.db")
