"""The socket as an attack surface: peer read checks for ingest, size and rate limits, fuzzing."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from privacy_helpers import at, message, record

from tapestryd.config import Settings
from tapestryd.daemon.service import Service
from tapestryd.errors import TapestryError
from tapestryd.operations.base import READ
from tapestryd.operations.readable import readable_by
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for
from tapestryd.wire.client import request
from tapestryd.wire.protocol import MAX_LINE

NOBODY = 65534
READ_OPS = sorted(name for name, op in OPERATIONS.items() if op.kind == READ)
SLOW_OPS = ("drift", "eval")
"""Read ops a valid request of which runs for seconds (a whole evaluation; scikit-learn's import), more
on a loaded machine: the fuzz leaves them out, :func:`test_slow_ops_answer_bad_args_at_once` covers them."""
FUZZED_OPS = [name for name in READ_OPS if name not in SLOW_OPS]


@pytest.fixture
def service(settings: Settings) -> Iterator[Service]:
    """A running in-process daemon (real socket, writer, scheduler) over a home with two messages."""
    with Runtime.open(settings) as rt:
        record(rt, message("claude-code:a", "1", "hello lantern", at("2025-01-10")),
               message("claude-code:a", "2", "where is the lantern", at("2025-01-10", 13)))
    svc = Service(settings)
    svc.start()
    yield svc
    svc.stop()


def _exchange(sock_path: Path, payload: bytes, *, timeout: float = 5.0) -> list[dict[str, Any]]:
    """Send raw bytes, half-close, and read every response line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(sock_path))
        try:
            conn.sendall(payload)
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may close first (too large, rate limited)
        data = b""
        try:
            while chunk := conn.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _searchable(folder: Path) -> bool:
    return folder.is_dir() and all(p.stat().st_mode & 0o001 for p in (folder, *folder.parents))


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder every user can search (pytest's tmp root is 0700, which hides everything below it)."""
    base = next((Path(d) for d in ("/var/tmp", "/tmp", "/dev/shm") if _searchable(Path(d))), None)
    if base is None:
        pytest.skip("no temporary folder here is searchable by every user")
    folder = Path(tempfile.mkdtemp(dir=base))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_readable_by_follows_permission_bits(open_tmp: Path, tmp_path: Path) -> None:
    """A 0600 file of another user, or one under a 0700 folder, is not readable; 0644 under 0755 is."""
    folder = open_tmp / "shared"
    folder.mkdir(mode=0o755)
    secret = folder / "export.json"
    secret.write_text("{}")
    os.chmod(secret, 0o600)
    assert not readable_by(secret, NOBODY) and readable_by(secret, os.getuid())
    os.chmod(secret, 0o644)
    assert readable_by(secret, NOBODY)
    os.chmod(folder, 0o700)
    assert not readable_by(secret, NOBODY)
    assert not readable_by(tmp_path, NOBODY)  # pytest's 0700 root hides its tmp folders


def test_ingest_refuses_a_path_the_peer_cannot_read(settings: Settings, tmp_path: Path) -> None:
    """The ingest op, given the peer's uid, refuses what that uid could not read itself."""
    private = tmp_path / "private.jsonl"
    private.write_text("")
    os.chmod(private, 0o600)
    with Runtime.open(settings) as rt:
        with pytest.raises(TapestryError, match=f"not readable by uid {NOBODY}"):
            run_json("ingest", rt, {"paths": [str(private)]}, peer_uid=NOBODY)
        assert run_json("ingest", rt, {"paths": [str(private)]}, peer_uid=os.getuid())["totals"]["files"] == 1


def test_client_cannot_forge_the_peer_uid(service: Service, tmp_path: Path) -> None:
    """Keys starting with _ sent by a client are dropped; the server's own peer uid is used."""
    private = tmp_path / "mine.jsonl"
    private.write_text("")
    os.chmod(private, 0o600)
    result = request(paths_for(service.settings).socket, "ingest", {"paths": [str(private)], "_peer_uid": NOBODY})
    assert result["totals"]["files"] == 1  # we are its owner; the forged uid was ignored


def test_oversized_request_is_refused(service: Service) -> None:
    """A line beyond MAX_LINE gets too_large and the connection closes; the daemon keeps serving."""
    replies = _exchange(paths_for(service.settings).socket, b"x" * (MAX_LINE + 10) + b"\n")
    assert replies and replies[0]["error"]["code"] == "too_large"
    assert request(paths_for(service.settings).socket, "ping")["pong"] is True


def test_request_flood_is_rate_limited(service: Service) -> None:
    """Thousands of pipelined requests on one connection end in rate_limited, not a stalled daemon."""
    line = json.dumps({"v": 1, "id": 1, "op": "ping", "args": {}}).encode() + b"\n"
    replies = _exchange(paths_for(service.settings).socket, line * 3000, timeout=20)
    assert replies[-1]["error"]["code"] == "rate_limited" and len(replies) < 3000
    assert request(paths_for(service.settings).socket, "ping")["pong"] is True


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: (st.lists(inner, max_size=4)
                                    | st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                     max_leaves=12)
_requests = st.one_of(
    st.binary(max_size=300),
    _json.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"v": st.sampled_from([1, 1, 2, "1", None]), "id": _json,
                           "op": st.one_of(st.sampled_from(FUZZED_OPS), st.text(max_size=12)),
                           "args": st.one_of(st.dictionaries(st.sampled_from(
                               ["query", "limit", "agent", "since", "until", "conversation", "date", "max_tokens",
                                "project", "format", "role", "node", "text"]), _json, max_size=5), _json)},
                          ).map(lambda r: json.dumps(r).encode()),
)


@pytest.mark.parametrize("op", SLOW_OPS)
def test_slow_ops_answer_bad_args_at_once(service: Service, op: str) -> None:
    """eval and drift with args of the wrong shape or type get protocol errors (no run), and the daemon goes on."""
    lines = [json.dumps({"v": 1, "id": n, "op": op, "args": args}).encode() + b"\n"
             for n, args in enumerate(({"threshold": "x"}, {"agent": 5}, [1, 2], "text", {"threshold": [None]}))]
    replies = _exchange(paths_for(service.settings).socket, b"".join(lines))
    assert len(replies) == len(lines)
    for reply in replies:
        assert reply["v"] == 1 and reply["ok"] is False and set(reply["error"]) == {"code", "message"}, reply
    assert request(paths_for(service.settings).socket, "ping")["pong"] is True


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_requests, min_size=1, max_size=4))
def test_protocol_fuzz_never_breaks_the_daemon(service: Service, lines: list[bytes]) -> None:
    """Random bytes, JSON shapes and read requests with random args: every line gets an answer
    of the protocol's shape, and the daemon answers ping afterwards."""
    payload = b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines)
    replies = _exchange(paths_for(service.settings).socket, payload)
    sent = sum(1 for line in lines if line.replace(b"\n", b" ").strip())
    assert len(replies) == sent
    for reply in replies:
        assert reply["v"] == 1 and isinstance(reply["ok"], bool)
        assert reply["ok"] or set(reply["error"]) == {"code", "message"}
    assert request(paths_for(service.settings).socket, "ping")["pong"] is True
