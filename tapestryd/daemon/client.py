"""The socket client (standard library only, so ``tapestryctl context`` starts fast).

Every call is bounded by a timeout; a missing socket or refused connection raises
DaemonNotRunning at once, so a shell prompt or a hook never hangs.
"""

from __future__ import annotations

import itertools
import json
import socket
from pathlib import Path
from typing import Any

from tapestryd.daemon.protocol import VERSION, encode
from tapestryd.errors import DaemonError, DaemonNotRunning

__all__ = ["request"]

_ids = itertools.count(1)


def request(sock_path: Path, op: str, args: dict[str, Any] | None = None, *, timeout: float = 10.0) -> Any:
    """Send one request and return its ``result``.

    Raises DaemonNotRunning when nothing listens at ``sock_path``, DaemonError (with the
    server's error code) for an error response or a timeout.
    """
    rid = next(_ids)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(str(sock_path))
            conn.sendall(encode({"v": VERSION, "id": rid, "op": op, "args": args or {}}))
            line = _read_line(conn)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise DaemonNotRunning(f"tapestryd is not running (no socket at {sock_path})") from exc
    except socket.timeout as exc:
        raise DaemonError(f"tapestryd did not answer {op!r} within {timeout:g} s", code="timeout") from exc
    except OSError as exc:
        raise DaemonError(f"socket {sock_path}: {exc.strerror or exc}", code="socket") from exc
    return _result(line, op)


def _read_line(conn: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


def _result(line: bytes, op: str) -> Any:
    if not line:
        raise DaemonError(f"tapestryd closed the connection without answering {op!r}", code="closed")
    response = json.loads(line)
    if not response.get("ok"):
        error = response.get("error") or {}
        raise DaemonError(str(error.get("message", "unknown error")), code=str(error.get("code", "internal")))
    return response.get("result")
