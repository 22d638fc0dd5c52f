"""The socket protocol against a live daemon: bad requests get coded errors, the server survives."""

from __future__ import annotations

import json
import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import Daemon, session_line, wait_for

from tapestryd.daemon.server import SocketServer
from tapestryd.errors import DaemonNotRunning
from tapestryd.wire.protocol import MAX_LINE


def exchange(path: Path, payload: bytes, *, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Send raw bytes, half-close, and read every response line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        conn.connect(str(path))
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return [json.loads(line) for line in data.splitlines()]


@pytest.fixture
def live(daemon: Daemon, projects: Path) -> Daemon:
    """A running daemon with one searchable session."""
    (projects / "-home-me-p").mkdir()
    (projects / "-home-me-p" / "s.jsonl").write_bytes(session_line("s", "u1", "a lighthouse on the cliff"))
    daemon.start()
    wait_for(lambda: daemon.call("search", {"query": "lighthouse"})["hits"])
    return daemon


def test_bad_requests_get_error_codes_and_the_connection_goes_on(live: Daemon) -> None:
    """Malformed JSON, non-objects, wrong version, unknown op, bad args: one coded error each,
    and a good request after them on the same connection is still answered."""
    lines = [b"{not json", b"[1, 2]", b'{"v": 9, "id": 3, "op": "ping"}', b'{"v": 1, "id": 4, "op": "launch"}',
             b'{"v": 1, "id": 5, "op": "search", "args": []}', b'{"v": 1, "id": 6, "op": "search", '
             b'"args": {"query": "x", "limit": "many"}}', b'{"v": 1, "id": 7, "op": "ping"}']
    answers = exchange(live.socket, b"\n".join(lines) + b"\n")
    assert [a.get("error", {}).get("code") for a in answers] == [
        "bad_json", "bad_request", "unsupported_version", "unknown_op", "bad_request", "user_error", None]
    assert [a["id"] for a in answers[2:]] == [3, 4, 5, 6, 7] and answers[-1]["result"]["pong"] is True


def test_a_huge_line_is_refused_and_the_server_lives_on(live: Daemon) -> None:
    """A request longer than MAX_LINE gets too_large; the daemon keeps serving others."""
    answers = exchange(live.socket, b'{"op": "ping", "pad": "' + b"x" * (MAX_LINE + 10) + b'"}\n')
    assert answers == [{"v": 1, "id": None, "ok": False,
                        "error": {"code": "too_large", "message": f"request is larger than {MAX_LINE} bytes"}}]
    assert live.call("ping")["pong"] is True


def test_a_client_that_disconnects_mid_request_harms_nothing(live: Daemon) -> None:
    """Half a request then a hang-up, or a hang-up before reading the answer: the server goes on."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(str(live.socket))
        conn.sendall(b'{"v": 1, "id": 1, "op": "pau')
    for _ in range(20):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(str(live.socket))
            conn.sendall(b'{"v": 1, "id": 2, "op": "search", "args": {"query": "lighthouse"}}\n')
    assert live.call("status")["daemon"]["paused"] is False
    assert live.call("search", {"query": "lighthouse"})["hits"]


def test_sixteen_concurrent_clients_are_all_served(live: Daemon) -> None:
    """Sixteen clients at once, each several requests (reads and a write): all answered correctly."""
    barrier = threading.Barrier(16)

    def client(n: int) -> list[Any]:
        barrier.wait()
        return [live.call("search", {"query": "lighthouse"})["hits"][0]["message_key"],
                live.call("status")["store"]["messages"], set(live.call("catch_up")["lag"].values()) == {0},
                live.call("ping")["pong"]]

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(client, range(16)))
    assert results == [["u1", 1, True, True]] * 16


def test_ops_sent_with_private_arguments_cannot_inject_them(live: Daemon) -> None:
    """Keys starting with '_' are the daemon's own; a client's are dropped."""
    answers = exchange(live.socket, b'{"v": 1, "id": 1, "op": "status", "args": {"_daemon": "x"}}\n')
    assert answers[0]["ok"] and answers[0]["result"]["daemon"]["running"] is True


def test_a_peer_of_another_uid_is_refused(tmp_path: Path) -> None:
    """The peer's uid is read from the socket (SO_PEERCRED / getpeereid) and checked."""
    path = Path(f"/tmp/tapestry-test-{os.getpid()}-{tmp_path.name[-8:]}.sock")
    server = SocketServer(path, lambda op, args: {"op": op}, allowed_uid=os.getuid() + 1)
    server.start()
    try:
        answers = exchange(path, b'{"v": 1, "id": 1, "op": "ping"}\n')
        assert answers[0]["error"]["code"] == "forbidden"
    finally:
        server.stop()
    assert not path.exists()


def test_the_client_says_the_daemon_is_not_running(tmp_path: Path) -> None:
    """No socket, or a stale one: DaemonNotRunning at once, never a hang."""
    from tapestryd.wire.client import request

    with pytest.raises(DaemonNotRunning):
        request(tmp_path / "none.sock", "ping", timeout=1)
    stale = tmp_path / "stale.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.bind(str(stale))
    with pytest.raises(DaemonNotRunning):
        request(stale, "ping", timeout=1)
