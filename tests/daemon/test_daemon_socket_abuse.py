"""The socket under abuse from a process of the same user (issue 17): idle connections held
open, a flood of clients, a lone surrogate and a request nested 50,000 levels deep."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from daemon_helpers import Daemon, session_line, wait_for

from tapestryd.cli.hook import HOOK_TIMEOUT
from tapestryd.wire.client import request
from tapestryd.daemon.server import SocketServer
from tapestryd.errors import DaemonError


def _echo(op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"op": op, "args": args}


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[float], SocketServer]]:
    """Starts a SocketServer answering with the request's op and args (8 connections, the given
    idle timeout in seconds); stopped after the test."""
    servers: list[SocketServer] = []

    def start(idle_timeout: float) -> SocketServer:
        server = SocketServer(tmp_path / "s" / f"echo{len(servers)}.sock", _echo, idle_timeout=idle_timeout,
                              max_connections=8)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def _connect(path: Path, timeout: float = 5.0) -> socket.socket:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    conn.connect(str(path))
    return conn


def _ask(conn: socket.socket, payload: bytes) -> dict[str, Any]:
    conn.sendall(payload + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        assert chunk, "the server closed the connection without answering"
        data += chunk
    return json.loads(data)


def test_a_lone_surrogate_and_deep_nesting_answer_bad_json(serve: Callable[[float], SocketServer]) -> None:
    """Both are bad_json answers on a connection that stays open (no traceback, no internal)."""
    echo_server = serve(5.0)
    with _connect(echo_server.path) as conn:
        lone = _ask(conn, b'{"v": 1, "id": 1, "op": "search", "args": {"query": "\\ud800"}}')
        nested = _ask(conn, b'{"v": 1, "id": 2, "op": "search", "args": {"q": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}")
        key = _ask(conn, b'{"v": 1, "id": 3, "op": "x", "args": {"\\udfff": 1}}')
        pair = _ask(conn, b'{"v": 1, "id": 4, "op": "search", "args": {"query": "\\ud83d\\ude00"}}')
        raw = _ask(conn, b'{"v": 1, "id": 5, "op": "search", "args": {"query": "a\xed\xa0\x80b"}}')  # U+D800 as bytes
    assert [a["error"]["code"] for a in (lone, nested, key, raw)] == ["bad_json"] * 4
    assert "surrogate" in lone["error"]["message"] and "nested" in nested["error"]["message"]
    assert pair["ok"] and pair["result"]["args"]["query"] == "\U0001f600"  # a real pair is text


def test_idle_connections_are_closed_quickly(serve: Callable[[float], SocketServer]) -> None:
    """Connections that never send a request are closed after idle_timeout (0.5 s here)."""
    echo_server = serve(0.5)
    started = time.monotonic()
    with ExitStack() as stack:
        idle = [stack.enter_context(_connect(echo_server.path)) for _ in range(8)]
        assert all(conn.recv(1) == b"" for conn in idle)  # end of stream: the server closed each
    assert time.monotonic() - started < 4.0
    assert request(echo_server.path, "ping")["op"] == "ping"


def test_refusing_past_the_limit_costs_nothing(serve: Callable[[float], SocketServer]) -> None:
    """With every connection taken, 100 more are each refused with busy at once (before: 0.2 s
    each on the accepting thread), and a place freed by one idle connection serves again."""
    echo_server = serve(30.0)
    with ExitStack() as stack:
        held = [stack.enter_context(_connect(echo_server.path)) for _ in range(8)]
        wait_for(lambda: len(echo_server._watched) == 8, interval=0.01)
        started = time.monotonic()
        refusals = []
        for _ in range(100):
            with _connect(echo_server.path) as conn:
                refusals.append(_ask(conn, b'{"v": 1, "op": "ping"}')["error"]["code"])
        elapsed = time.monotonic() - started
        assert refusals == ["busy"] * 100 and elapsed < 10.0, elapsed  # 0.2 s each before: 20 s
        held[0].close()
        wait_for(lambda: len(echo_server._watched) < 8, interval=0.01)
        with _connect(echo_server.path) as conn:
            assert _ask(conn, b'{"v": 1, "op": "ping"}')["ok"]


@pytest.fixture
def live(daemon: Daemon, projects: Path) -> Daemon:
    """A running daemon (a real subprocess) with a searchable session."""
    (projects / "-home-me-p").mkdir()
    lines = b"".join(session_line("s", f"u{i}", f"a lighthouse on the cliff, note {i}") for i in range(40))
    (projects / "-home-me-p" / "s.jsonl").write_bytes(lines)
    daemon.start()
    wait_for(lambda: daemon.call("search", {"query": "lighthouse"})["hits"])
    return daemon


def test_a_hook_query_answers_in_budget_while_200_clients_hammer(live: Daemon) -> None:
    """130 idle connections held open and 200 clients searching in bounded loops: every search
    is answered (no EAGAIN, no busy) and each prompt-hook query answers within HOOK_TIMEOUT."""
    errors: list[str] = []
    answered = [0]
    lock = threading.Lock()
    start = threading.Barrier(201)

    def hammer() -> None:
        start.wait()
        for _ in range(5):
            try:
                request(live.socket, "search", {"query": "lighthouse"}, timeout=60)
                with lock:
                    answered[0] += 1
            except DaemonError as exc:
                with lock:
                    errors.append(f"{exc.code}: {exc}")

    hook_args = {"project": "/home/me/proj", "format": "markdown", "max_tokens": 2400, "now_only": True}
    with ExitStack() as stack:
        idle = [stack.enter_context(_connect(live.socket, timeout=60)) for _ in range(130)]
        threads = [threading.Thread(target=hammer) for _ in range(200)]
        for thread in threads:
            thread.start()
        start.wait()
        latencies = []
        while any(t.is_alive() for t in threads) or not latencies:
            began = time.monotonic()
            request(live.socket, "context", hook_args, timeout=HOOK_TIMEOUT)
            latencies.append(time.monotonic() - began)
        for thread in threads:
            thread.join()
        assert len(idle) == 130
    assert errors == [] and answered[0] == 1000
    assert max(latencies) < HOOK_TIMEOUT, latencies


def test_a_client_argument_that_is_not_utf8_is_a_clear_error(tmp_path: Path) -> None:
    """argv bytes that are not UTF-8 (Python's surrogateescape) stop the client with one message, before any socket."""
    with pytest.raises(DaemonError) as caught:
        request(tmp_path / "no.sock", "search", {"query": "ab\udcffcd"})
    assert caught.value.code == "bad_request" and "not UTF-8" in str(caught.value) and "udcff" in str(caught.value)
    with pytest.raises(DaemonError):  # a lone surrogate from elsewhere (not argv) is refused the same way
        request(tmp_path / "no.sock", "search", {"query": "\ud800"})
