"""The socket server: JSON lines (:mod:`tapestryd.wire.protocol`) over a Unix socket.

* The socket is created mode ``0600`` inside a ``0700`` folder this user owns, and every
  peer's uid is checked (``SO_PEERCRED`` on Linux, ``getpeereid(3)`` on macOS and the
  BSDs): a connection from another uid gets a ``forbidden`` error and is closed.
* One thread reads every connection (a :mod:`selectors` loop): a connection costs a file
  descriptor until it sends a whole request line, and only then takes a worker thread.
  ``context``, ``status`` and ``ping`` (what hooks and prompts ask) run on their own small
  pool, so a flood of other requests never queues in front of them. At most
  ``max_connections`` are open at once; more get ``busy`` at once (no waiting, no draining
  on the reading thread). A connection silent for ``idle_timeout`` seconds (5 by default)
  is closed, so idle connections held open free their place quickly.
* A line longer than :data:`~tapestryd.wire.protocol.MAX_LINE` gets ``too_large`` and
  the connection is closed, and so does a connection sending requests faster than its
  :class:`~tapestryd.daemon.peer.TokenBucket` allows (``rate_limited``). A client may send
  several requests on one connection; they are answered in order.
* The server never dies of a request: malformed JSON (a lone surrogate, nesting too deep
  included), an unknown op or a failing operation each become an error response with a code.

``dispatch(op, args)`` does the work; it raises ProtocolError or TapestryError for
answers with a code, anything else is logged and answered ``internal``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import queue
import resource
import selectors
import socket
import stat
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

import structlog

from tapestryd.daemon.peer import TokenBucket, set_peer_uid
from tapestryd.errors import DaemonError, TapestryError
from tapestryd.wire.protocol import (
    MAX_LINE,
    ProtocolError,
    decode_request,
    encode,
    error_response,
    ok_response,
)

__all__ = ["URGENT_OPS", "Dispatch", "SocketServer", "peer_uid"]

log = structlog.get_logger(__name__)

Dispatch = Callable[[str, dict[str, Any]], Any]
Request = tuple[Any, str, dict[str, Any]] | ProtocolError

URGENT_OPS = frozenset({"context", "status", "ping"})
"""Ops served on their own pool: a hook's or prompt's query never waits behind a flood of others."""

URGENT_WORKERS = 4
EXPIRY_TICK = 0.1  # seconds between scans for idle and refused connections
REFUSAL_LINGER = 0.2  # seconds a refused connection is read (never waited on) before it is closed
MAX_REFUSING = 1024  # refused connections lingering at once; past that they are closed at once


def default_max_connections() -> int:
    """Connections held at once: 1,024, or fewer when the open-files limit is low (128 fds kept free)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1024 if soft == resource.RLIM_INFINITY else max(16, min(1024, soft - 128))


class _Client:
    """One open connection: its socket, peer uid, unread bytes, request budget and idle deadline."""

    __slots__ = ("bucket", "buffer", "deadline", "sock", "uid")

    def __init__(self, sock: socket.socket, uid: int | None, deadline: float) -> None:
        self.sock, self.uid, self.deadline = sock, uid, deadline
        self.buffer, self.bucket = bytearray(), TokenBucket()


class _Refused:
    """A connection told ``busy`` or ``forbidden``: what it still sends is read and dropped until
    it hangs up or ``deadline`` passes (closing over unread bytes resets the connection, and
    the peer could lose the refusal before reading it)."""

    __slots__ = ("deadline", "drained", "sock")

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline, self.drained = sock, deadline, 0


class SocketServer:
    """Serves ``dispatch`` on a Unix socket at ``path`` until :meth:`stop`.

    ``allowed_uid`` is the only peer uid served (default: this process's uid).
    ``max_clients`` requests run at once (worker threads, besides the urgent pool),
    ``max_connections`` may be open (default :func:`default_max_connections`), each closed
    after ``idle_timeout`` seconds without a whole request. Raises DaemonError from
    :meth:`start` when the socket folder is unsafe, the path is too long, or another server
    already listens there.
    """

    def __init__(self, path: Path, dispatch: Dispatch, *, allowed_uid: int | None = None,
                 max_clients: int = 64, max_connections: int | None = None, idle_timeout: float = 5.0,
                 urgent_ops: frozenset[str] = URGENT_OPS) -> None:
        self.path = path
        self.dispatch = dispatch
        self.allowed_uid = os.getuid() if allowed_uid is None else allowed_uid
        self.idle_timeout = idle_timeout
        self.max_connections = max_connections or default_max_connections()
        self.urgent_ops = urgent_ops
        self._workers = ThreadPoolExecutor(max_clients, thread_name_prefix="tapestryd-client")
        self._urgent = ThreadPoolExecutor(URGENT_WORKERS, thread_name_prefix="tapestryd-urgent")
        self._stopping = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._wake_lock = threading.Lock()  # a worker finishing after stop() must not write to a reused number
        self._wake_open = True
        self._returned: queue.SimpleQueue[_Client] = queue.SimpleQueue()
        self._watched: dict[int, _Client] = {}  # waiting for a request, by file descriptor
        self._refused: dict[int, _Refused] = {}  # told busy/forbidden, read until they hang up
        self._serving = 0  # connections handed to a worker (read and written by the loop only)
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._inode = 0
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Bind the socket (mode 0600) and start serving clients on a thread."""
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
        listener.listen(socket.SOMAXCONN)
        listener.setblocking(False)
        self._listener, self._inode = listener, os.stat(self.path).st_ino
        self._selector.register(listener, selectors.EVENT_READ)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._loop, name="tapestryd-accept", daemon=True)
        self._thread.start()
        log.info("socket.listening", path=str(self.path))

    def stop(self, timeout: float = 1.0) -> None:
        """Stop accepting, close idle connections, remove the socket file (if still ours)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout)
        for pool in (self._workers, self._urgent):
            pool.shutdown(wait=False, cancel_futures=True)
        if self._listener is not None:
            self._listener.close()
        _unlink_if(self.path, self._inode)
        self._selector.close()
        with self._wake_lock:
            self._wake_open = False
            os.close(self._wake_r)
            os.close(self._wake_w)
        log.info("socket.closed", path=str(self.path))

    def _wake(self) -> None:
        """Wake the reading thread; nothing once :meth:`stop` closed the pipe (a request answered after the
        stop), whose file descriptor number another file may hold by then."""
        with self._wake_lock:
            if not self._wake_open:
                return
            try:
                os.write(self._wake_w, b"x")
            except BlockingIOError:
                pass  # the loop has wake-ups pending already

    # The reading thread ------------------------------------------------------------------

    def _loop(self) -> None:
        next_expiry = time.monotonic() + EXPIRY_TICK
        try:
            while not self._stopping.is_set():
                wait = max(0.0, next_expiry - time.monotonic()) if self._watched or self._refused else None
                for key, _ in self._selector.select(wait):
                    if key.fileobj is self._listener:
                        self._accept_all()
                    elif key.fileobj == self._wake_r:
                        os.read(self._wake_r, 4096)
                    elif isinstance(key.data, _Refused):
                        self._drain(key.data)
                    else:
                        self._readable(key.data)
                self._take_back()
                if time.monotonic() >= next_expiry:
                    self._expire()
                    next_expiry = time.monotonic() + EXPIRY_TICK
        finally:
            for client in list(self._watched.values()):
                self._drop(client)
            for refused in list(self._refused.values()):
                self._close_refused(refused)

    def _accept_all(self) -> None:
        assert self._listener is not None
        while True:
            try:
                conn, _ = self._listener.accept()
            except BlockingIOError:
                return
            except OSError as exc:  # out of file descriptors: the pending ones wait for a free one
                log.warning("socket.accept_failed", error=str(exc))
                return
            self._admit(conn)

    def _admit(self, conn: socket.socket) -> None:
        uid = peer_uid(conn)
        if uid is not None and uid != self.allowed_uid:
            log.warning("socket.peer_refused", uid=uid)
            self._refuse_now(conn, error_response(None, "forbidden", f"uid {uid} may not use this socket"))
        elif len(self._watched) + self._serving >= self.max_connections:
            self._refuse_now(conn, error_response(None, "busy", "too many clients; try again"))
        else:
            conn.setblocking(False)
            self._next_request(_Client(conn, uid, 0.0))

    def _next_request(self, client: _Client) -> None:
        """Hand the client's next whole line to a worker, or wait for more bytes from it."""
        while (cut := client.buffer.find(b"\n")) >= 0:
            line = bytes(client.buffer[:cut])
            del client.buffer[:cut + 1]
            if not line.strip():
                continue
            if not client.bucket.take():
                self._hand(self._workers, self._refuse, client,
                           error_response(None, "rate_limited", "too many requests on one connection"))
                return
            request = _decode(line)
            pool = self._urgent if not isinstance(request, ProtocolError) and request[1] in self.urgent_ops \
                else self._workers
            self._hand(pool, self._serve, client, request)
            return
        if len(client.buffer) > MAX_LINE:
            self._hand(self._workers, self._refuse, client,
                       error_response(None, "too_large", f"request is larger than {MAX_LINE} bytes"))
            return
        client.deadline = time.monotonic() + self.idle_timeout
        self._watched[client.sock.fileno()] = client
        self._selector.register(client.sock, selectors.EVENT_READ, client)

    def _hand(self, pool: ThreadPoolExecutor, work: Callable[[_Client, Any], None], client: _Client,
              what: Any) -> None:
        self._serving += 1
        try:
            pool.submit(work, client, what)
        except RuntimeError:  # the pools are shut down: the server is stopping
            self._serving -= 1
            client.sock.close()

    def _readable(self, client: _Client) -> None:
        try:
            chunk = client.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        self._unwatch(client)
        if not chunk:  # end of stream: bytes after the last newline are a request cut short
            client.sock.close()
            return
        client.buffer.extend(chunk)
        self._next_request(client)

    def _unwatch(self, client: _Client) -> None:
        del self._watched[client.sock.fileno()]
        self._selector.unregister(client.sock)

    def _drop(self, client: _Client) -> None:
        self._unwatch(client)
        client.sock.close()

    def _take_back(self) -> None:
        """Watch again the connections workers answered (or forget the ones they closed)."""
        while True:
            try:
                client = self._returned.get_nowait()
            except queue.Empty:
                return
            self._serving -= 1
            if client.sock.fileno() >= 0 and not self._stopping.is_set():
                self._next_request(client)
            else:
                client.sock.close()

    def _expire(self) -> None:
        now = time.monotonic()
        for client in [c for c in self._watched.values() if c.deadline <= now]:
            self._drop(client)
        for refused in [r for r in self._refused.values() if r.deadline <= now]:
            self._close_refused(refused)

    def _refuse_now(self, conn: socket.socket, message: dict[str, Any]) -> None:
        """Send a short refusal and half-close without waiting; the rest of what the peer sends
        is read (and dropped) by the loop for up to REFUSAL_LINGER seconds."""
        try:
            conn.setblocking(False)
            conn.send(encode(message))
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            conn.close()
            return
        if len(self._refused) >= MAX_REFUSING:
            conn.close()
            return
        refused = _Refused(conn, time.monotonic() + REFUSAL_LINGER)
        self._refused[conn.fileno()] = refused
        self._selector.register(conn, selectors.EVENT_READ, refused)

    def _drain(self, refused: _Refused) -> None:
        try:
            while chunk := refused.sock.recv(65536):
                refused.drained += len(chunk)
                if refused.drained > MAX_LINE:
                    break
            else:
                self._close_refused(refused)  # the peer hung up
                return
        except BlockingIOError:
            return
        except OSError:
            pass
        self._close_refused(refused)

    def _close_refused(self, refused: _Refused) -> None:
        del self._refused[refused.sock.fileno()]
        self._selector.unregister(refused.sock)
        refused.sock.close()

    # Worker threads ------------------------------------------------------------------------

    def _serve(self, client: _Client, request: Request) -> None:
        try:
            set_peer_uid(client.uid)
            data = _encoded(self._respond(request))
            client.sock.settimeout(self.idle_timeout)
            client.sock.sendall(data)
            client.sock.setblocking(False)
        except OSError as exc:
            log.debug("socket.client_dropped", error=str(exc))
            client.sock.close()
        finally:
            self._returned.put(client)
            self._wake()

    def _refuse(self, client: _Client, message: dict[str, Any]) -> None:
        try:
            client.sock.setblocking(True)
            _send_quietly(client.sock, message)
        finally:
            client.sock.close()
            self._returned.put(client)
            self._wake()

    def answer(self, line: bytes) -> dict[str, Any]:
        """The response to one request line (never raises)."""
        return self._respond(_decode(line))

    def _respond(self, request: Request) -> dict[str, Any]:
        if isinstance(request, ProtocolError):
            return error_response(request.request_id, request.code, request.message)
        rid, op, args = request
        try:
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


def _decode(line: bytes) -> Request:
    try:
        return decode_request(line)
    except ProtocolError as exc:
        return exc


def _encoded(response: dict[str, Any]) -> bytes:
    """``response`` as a line; one that cannot be encoded (a lone surrogate a result carried) is ``internal``."""
    try:
        return encode(response)
    except (ValueError, TypeError, RecursionError) as exc:
        log.exception("socket.response_unencodable", request_id=response.get("id"))
        return encode(error_response(None, "internal", f"internal error: the answer cannot be encoded: {exc}"))


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
