"""The socket server stopped while a request is still being served (a search under way when the daemon
gets SIGTERM): the worker that finishes it afterwards touches none of the server's closed descriptors."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from tapestryd.daemon.server import SocketServer


def test_a_request_finished_after_stop_writes_into_no_file_that_reused_the_wake_pipe(tmp_path: Path) -> None:
    """The stopped server closed its wake-up pipe, and the daemon goes on opening files (a Reader's
    database, the similarity index) that may take those descriptor numbers: the worker finishing a
    request after the stop must not write its wake-up byte into one of them."""
    entered, release = threading.Event(), threading.Event()

    def slow(op: str, args: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        release.wait(30)
        return {"op": op}

    path = Path(f"/tmp/tapestry-test-{os.getpid()}-{tmp_path.name[-8:]}.sock")
    server = SocketServer(path, slow)
    server.start()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(30)
        client.connect(str(path))
        client.sendall(json.dumps({"v": 1, "id": 1, "op": "search", "args": {}}).encode() + b"\n")
        assert entered.wait(30)
        server.stop()
        files: list[int] = []  # the lowest free numbers, up to the wake-up pipe's: every file opened next
        while not files or files[-1] < max(server._wake_r, server._wake_w):
            files.append(os.open(tmp_path / f"opened-after-stop.{len(files)}", os.O_RDWR | os.O_CREAT, 0o600))
        try:
            release.set()
            assert json.loads(client.makefile("rb").readline())["result"] == {"op": "search"}
            for worker in [t for t in threading.enumerate() if t.name.startswith("tapestryd-client")]:
                worker.join(30)
        finally:
            for fd in files:
                os.close(fd)
    written = {p.name: p.read_bytes() for p in tmp_path.glob("opened-after-stop.*")}
    assert written == dict.fromkeys(written, b"")
