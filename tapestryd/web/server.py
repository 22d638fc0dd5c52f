"""A WebServer component: the calendar served by werkzeug's threaded WSGI server in a thread.

The daemon starts one when ``[web] enabled = true``; ``tapestryctl calendar`` runs one in
the foreground. ``start`` binds at once (so a taken port fails loudly, and port 0 picks a
free one, read back from ``port``); ``stop`` shuts it down and joins the thread.
"""

from __future__ import annotations

import errno
import socket
import threading

import structlog
from werkzeug.serving import BaseWSGIServer, make_server

from tapestryd.clock import Clock
from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.web.app import create_app

__all__ = ["WebServer", "check_port"]

log = structlog.get_logger(__name__)


class WebServer:
    """The calendar on ``host:port`` (defaults from ``[web]``), served from a background thread."""

    def __init__(self, settings: Settings, *, host: str | None = None, port: int | None = None,
                 clock: Clock | None = None) -> None:
        self.host = host if host is not None else settings.web.host
        self.port = settings.web.port if port is None else port
        self._app = create_app(settings, host=self.host, clock=clock)
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The calendar's address, e.g. ``http://127.0.0.1:5008/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> None:
        """Bind and serve in a daemon thread.

        Raises TapestryError ``port N is in use on HOST`` when the address is taken, else
        ``cannot serve the calendar on HOST:PORT: <reason>``.
        """
        check_port(self.host, self.port)
        try:
            self._server = make_server(self.host, self.port, self._app, threaded=True)
        except (OSError, SystemExit) as exc:
            check_port(self.host, self.port)  # taken between the check and the bind
            raise TapestryError(f"cannot serve the calendar on {self.host}:{self.port}: {exc}") from exc
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, name="web", daemon=True)
        self._thread.start()
        log.info("web.started", url=self.url)

    def stop(self) -> None:
        """Stop serving and wait for the thread (at most 5 s)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        self._server = self._thread = None
        log.info("web.stopped")


def check_port(host: str, port: int) -> None:
    """Raise TapestryError ``port N is in use on HOST`` when something listens on ``host:port``.

    Probed with SO_REUSEADDR, as werkzeug binds, so a closed socket's TIME_WAIT does not
    count; port 0 (any free port) is never taken. Other bind errors are left to the server.
    """
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise TapestryError(f"port {port} is in use on {host}") from exc
