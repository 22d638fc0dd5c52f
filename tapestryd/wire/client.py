"""The socket client (standard library only, so ``tapestryctl context`` starts fast).

Every call is bounded by a timeout (connect, send and every read; a full listen queue is
retried until the timeout, not reported as an error); a missing socket or
refused connection raises DaemonNotRunning at once, so a shell prompt or a hook never
hangs. A response larger than :data:`MAX_RESPONSE` bytes, or one that is not a JSON
object, is a DaemonError.

It talks through the C module ``_socket`` rather than ``socket``: the Python wrapper
builds enums at import time that cost milliseconds this one-request client never uses.
"""

from __future__ import annotations

import _socket
import itertools
import json
import os
import time

from tapestryd.errors import DaemonError, DaemonNotRunning
from tapestryd.wire.protocol import VERSION, encode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_RESPONSE", "request"]

MAX_RESPONSE = 256 << 20  # bytes; a context or search answer is far smaller
_ids = itertools.count(1)


def request(sock_path: str | os.PathLike[str], op: str, args: dict[str, Any] | None = None, *,
            timeout: float = 10.0) -> Any:
    """Send one request and return its ``result``.

    Raises DaemonNotRunning when nothing listens at ``sock_path``, DaemonError (with the
    server's error code) for an error response, a timeout (code ``timeout``) or a broken
    connection.
    """
    rid = next(_ids)
    try:
        data = encode({"v": VERSION, "id": rid, "op": op, "args": args or {}})
    except UnicodeEncodeError as exc:  # an argument from argv holding bytes that are not UTF-8
        bad = exc.object[exc.start:exc.end]
        raise DaemonError(f"an argument holds bytes that are not UTF-8 text ({bad!a})", code="bad_request") from None
    conn = None
    try:
        conn = _connect(os.fspath(sock_path), timeout)
        try:
            conn.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before our request was read: the refusal ("busy") may be waiting
        line = _read_line(conn)
    except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError) as exc:
        raise DaemonNotRunning(f"tapestryd is not running (no socket at {os.fspath(sock_path)})") from exc
    except TimeoutError as exc:
        raise DaemonError(f"tapestryd did not answer {op!r} within {timeout:g} s", code="timeout") from exc
    except OSError as exc:
        raise DaemonError(f"socket {os.fspath(sock_path)}: {exc.strerror or exc}", code="socket") from exc
    finally:
        if conn is not None:
            conn.close()
    return _result(line, op)


def _connect(path: str, timeout: float) -> Any:
    """A socket connected to ``path``; a full listen queue (EAGAIN) is retried until ``timeout``.

    Raises TimeoutError when the queue stays full, OSError as ``connect`` does.
    """
    deadline = time.monotonic() + timeout
    pause = 0.002
    while True:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.settimeout(timeout)
        try:
            conn.connect(path)
            return conn
        except BlockingIOError:
            conn.close()
            if time.monotonic() + pause >= deadline:
                raise TimeoutError(f"the listen queue of {path} stayed full") from None
            time.sleep(pause)  # the server accepts many per wake-up; back off a little each time
            pause = min(pause * 2, 0.05)
        except BaseException:
            conn.close()
            raise


def _read_line(conn: Any) -> bytes:
    chunks, size = [], 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
        if size > MAX_RESPONSE:
            raise DaemonError(f"tapestryd's answer is larger than {MAX_RESPONSE} bytes", code="too_large")
    return b"".join(chunks)


def _result(line: bytes, op: str) -> Any:
    if not line:
        raise DaemonError(f"tapestryd closed the connection without answering {op!r}", code="closed")
    try:
        response = json.loads(line)
    except ValueError as exc:
        raise DaemonError(f"tapestryd answered {op!r} with something that is not JSON", code="bad_response") from exc
    if not isinstance(response, dict):
        raise DaemonError(f"tapestryd answered {op!r} with something that is not a JSON object", code="bad_response")
    if not response.get("ok"):
        error = response.get("error") or {}
        raise DaemonError(str(error.get("message", "unknown error")), code=str(error.get("code", "internal")))
    return response.get("result")
