"""The socket server: JSON lines (:mod:`tapestryd.daemon.protocol`) over a Unix socket.

* The socket is created mode ``0600`` inside a ``0700`` folder this user owns, and every
  peer's uid is checked (``SO_PEERCRED`` on Linux, ``getpeereid(3)`` on macOS and the
  BSDs): a connection from another uid gets a ``forbidden`` error and is closed.
* One thread per client, at most ``max_clients`` at once (more get ``busy``); a client
  may send several requests on one connection; one silent for ``idle_timeout`` seconds is
  dropped. A line longer than :data:`~tapestryd.daemon.protocol.MAX_LINE` gets
  ``too_large`` and the connection is closed, and so does a connection sending requests
  faster than its :class:`~tapestryd.daemon.peer.TokenBucket` allows (``rate_limited``).
* The server never dies of a request: malformed JSON, an unknown op or a failing
  operation each become an error response with a code.

``dispatch(op, args)`` does the work; it raises ProtocolError or TapestryError for
answers with a code, anything else is logged and answered ``internal``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import socket
import stat
import struct
import threading
from pathlib import Path
from typing import Any, Callable

import structlog

from tapestryd.daemon.peer import TokenBucket, set_peer_uid
from tapestryd.daemon.protocol import MAX_LINE, ProtocolError, decode_request, encode, error_response, ok_response
from tapestryd.errors import DaemonError, TapestryError

__all__ = ["Dispatch", "SocketServer", "peer_uid"]

log = structlog.get_logger(__name__)

Dispatch = Callable[[str, dict[str, Any]], Any]


class _TooLarge(Exception):
    """A request line went past MAX_LINE bytes without a newline."""


class SocketServer:
    """Serves ``dispatch`` on a Unix socket at ``path`` until :meth:`stop`.

    ``allowed_uid`` is the only peer uid served (default: this process's uid). Raises
    DaemonError from :meth:`start` when the socket folder is unsafe, the path is too long,
    or another server already listens there.
    """

    def __init__(self, path: Path, dispatch: Dispatch, *, allowed_uid: int | None = None,
                 max_clients: int = 64, idle_timeout: float = 30.0) -> None:
        self.path = path
        self.dispatch = dispatch
        self.allowed_uid = os.getuid() if allowed_uid is None else allowed_uid
        self.idle_timeout = idle_timeout
        self._slots = threading.BoundedSemaphore(max_clients)
        self._stopping = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._listener: socket.socket | None = None
        self._inode = 0
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind the socket (mode 0600) and start accepting clients on a thread."""
        _secure_folder(self.path.parent)
        _remove_stale(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(self.path))
        except OSError as exc:
            listener.close()
            raise DaemonError(f"cannot listen on {self.path}: {exc.strerror or exc}", code="socket") from exc
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)
        listener.listen(128)
        self._listener, self._inode = listener, os.stat(self.path).st_ino
        self._thread = threading.Thread(target=self._accept_loop, name="tapestryd-accept", daemon=True)
        self._thread.start()
        log.info("socket.listening", path=str(self.path))

    def stop(self, timeout: float = 1.0) -> None:
        """Stop accepting, remove the socket file (if still ours) and close the listener."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout)
        if self._listener is not None:
            self._listener.close()
        _unlink_if(self.path, self._inode)
        os.close(self._wake_r)
        os.close(self._wake_w)
        log.info("socket.closed", path=str(self.path))

    def _accept_loop(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            watched: list[Any] = [self._listener, self._wake_r]
            ready, _, _ = select.select(watched, [], [])
            if self._listener not in ready or self._stopping.is_set():
                continue
            try:
                conn, _ = self._listener.accept()
            except OSError as exc:
                log.warning("socket.accept_failed", error=str(exc))
                continue
            self._hand_off(conn)

    def _hand_off(self, conn: socket.socket) -> None:
        if not self._slots.acquire(blocking=False):
            _send_quietly(conn, error_response(None, "busy", "too many clients; try again"))
            conn.close()
            return
        threading.Thread(target=self._serve, args=(conn,), name="tapestryd-client", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                if self._admit(conn):
                    self._converse(conn)
        except OSError as exc:
            log.debug("socket.client_dropped", error=str(exc))
        finally:
            self._slots.release()

    def _admit(self, conn: socket.socket) -> bool:
        uid = peer_uid(conn)
        set_peer_uid(uid)
        if uid is None or uid == self.allowed_uid:
            return True
        log.warning("socket.peer_refused", uid=uid)
        _send_quietly(conn, error_response(None, "forbidden", f"uid {uid} may not use this socket"))
        return False

    def _converse(self, conn: socket.socket) -> None:
        conn.settimeout(self.idle_timeout)
        buffer, bucket = bytearray(), TokenBucket()
        while not self._stopping.is_set():
            try:
                line = _next_line(conn, buffer)
            except _TooLarge:
                _send_quietly(conn, error_response(None, "too_large", f"request is larger than {MAX_LINE} bytes"))
                return
            except socket.timeout:
                return
            if line is None:
                return
            if line.strip() and not bucket.take():
                _send_quietly(conn, error_response(None, "rate_limited", "too many requests on one connection"))
                return
            if line.strip():
                conn.sendall(encode(self.answer(line)))

    def answer(self, line: bytes) -> dict[str, Any]:
        """The response to one request line (never raises)."""
        rid: Any = None
        try:
            rid, op, args = decode_request(line)
            return ok_response(rid, self.dispatch(op, args))
        except ProtocolError as exc:
            return error_response(exc.request_id if exc.request_id is not None else rid, exc.code, exc.message)
        except DaemonError as exc:
            return error_response(rid, exc.code, exc.message)
        except TapestryError as exc:
            return error_response(rid, "user_error", exc.message)
        except Exception as exc:  # the server must survive any failing operation
            log.exception("socket.request_failed", request_id=rid)
            return error_response(rid, "internal", f"internal error: {type(exc).__name__}: {exc}")


def _next_line(conn: socket.socket, buffer: bytearray) -> bytes | None:
    """The next newline-terminated line from ``conn``; None at end of stream.

    Bytes after the last newline when the peer closes are a request cut short: dropped.
    """
    while True:
        cut = buffer.find(b"\n")
        if cut >= 0:
            line = bytes(buffer[:cut])
            del buffer[:cut + 1]
            return line
        if len(buffer) > MAX_LINE:
            raise _TooLarge()
        chunk = conn.recv(65536)
        if not chunk:
            return None
        buffer.extend(chunk)


def _send_quietly(conn: socket.socket, message: dict[str, Any]) -> None:
    """Send a last message and half-close; unread bytes of the peer are drained for a moment,
    because closing over unread data resets the connection before the peer reads our answer."""
    try:
        conn.sendall(encode(message))
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(0.2)
        drained = 0
        while drained <= MAX_LINE and (chunk := conn.recv(65536)):
            drained += len(chunk)
    except OSError:
        pass


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket, or None if the OS cannot tell."""
    if hasattr(socket, "SO_PEERCRED"):
        raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        return int(struct.unpack("3i", raw)[1])
    return _getpeereid(conn.fileno())


def _getpeereid(fd: int) -> int | None:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name, use_errno=True) if name else None
    if libc is None or not hasattr(libc, "getpeereid"):
        return None
    uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
    if libc.getpeereid(fd, ctypes.byref(uid), ctypes.byref(gid)) != 0:
        return None
    return int(uid.value)


def _secure_folder(folder: Path) -> None:
    """Create ``folder`` 0700, or refuse one owned by another user or open to others."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise DaemonError(f"socket folder {folder} belongs to uid {info.st_uid}, not to you; remove it", code="socket")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)


def _remove_stale(path: Path) -> None:
    """Remove a socket file nobody listens on; refuse when a server answers there."""
    if not path.exists() and not path.is_symlink():
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        try:
            probe.connect(str(path))
        except OSError:
            path.unlink(missing_ok=True)
            return
    raise DaemonError(f"another server already listens on {path}", code="socket")


def _unlink_if(path: Path, inode: int) -> None:
    try:
        if path.stat().st_ino == inode:
            path.unlink()
    except FileNotFoundError:
        pass
