"""The calendar's Flask application factory and the state its views share.

``create_app(settings)`` is what the daemon serves when ``[web] enabled = true`` and what
``tapestryctl calendar`` serves on its own. Every request's Host is checked, every
state-changing request needs the page's CSRF token and a same-origin ``Origin`` (see
:mod:`tapestryd.web.security`), and every response carries a strict Content-Security-Policy
(scripts and styles only from this server, no inline script).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any

import structlog
from flask import Flask, Response, current_app, g, jsonify, request

from tapestryd.clock import Clock, SystemClock
from tapestryd.config import Settings
from tapestryd.errors import StoreError, TapestryError
from tapestryd.paths import paths_for
from tapestryd.queries.calendar import agents_with_data
from tapestryd.queries.reader import Reader
from tapestryd.web.backend import call_op
from tapestryd.web.security import bind_warning, host_allowed, write_refusal
from tapestryd.web.uploads import Staged, UploadJobs, file_away, receipt_failure

__all__ = ["WebState", "create_app", "data_agents", "reader", "state"]

log = structlog.get_logger(__name__)

_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


@dataclass
class WebState:
    """What every view needs: settings, the CSRF token, upload jobs, the bound host, a clock."""

    settings: Settings
    csrf_token: str
    jobs: UploadJobs
    host: str
    clock: Clock

    def today(self) -> date:
        """Today's local date in the configured timezone."""
        return self.clock.now().astimezone(self.settings.tz).date()


def create_app(settings: Settings, *, host: str | None = None, clock: Clock | None = None) -> Flask:
    """The calendar app for ``settings``' home, to be served on ``host`` (default ``[web] host``).

    Logs ``web.exposed`` (a warning) when ``host`` is not loopback; the page shows it too.
    """
    from tapestryd.web import api, views

    app = Flask(__name__)
    bound = host if host is not None else settings.web.host
    app.config["MAX_CONTENT_LENGTH"] = settings.web.max_upload_mb * (1 << 20)
    app.extensions["tapestry"] = WebState(settings, secrets.token_urlsafe(32), UploadJobs(_importer(settings)),
                                          bound, clock or SystemClock())
    if bind_warning(bound):
        log.warning("web.exposed", host=bound, message=bind_warning(bound))
    app.before_request(_guard)
    app.after_request(_headers)
    app.teardown_appcontext(_close_reader)
    app.register_blueprint(views.pages)
    app.register_blueprint(api.api)
    return app


def state() -> WebState:
    """The current app's :class:`WebState`."""
    return current_app.extensions["tapestry"]  # type: ignore[no-any-return]


def reader() -> Reader | None:
    """This request's read-only Reader (opened once), or None when nothing is stored yet."""
    if "reader" not in g:
        try:
            g.reader = Reader.open(state().settings)
        except StoreError:
            g.reader = None
    return g.reader  # type: ignore[no-any-return]


def data_agents() -> list[str]:
    """The agents that have conversations stored, sorted (read once per request)."""
    if "data_agents" not in g:
        opened = reader()
        g.data_agents = agents_with_data(opened) if opened else []
    return g.data_agents  # type: ignore[no-any-return]


def _close_reader(exc: BaseException | None) -> None:
    opened = g.pop("reader", None)
    if opened is not None:
        opened.close()


def _guard() -> Any:
    web = state()
    if not host_allowed(request.host, web.host):
        return _refuse(f"refused: unknown Host {request.host!r} (this page answers on loopback only)", 421)
    why = write_refusal(request, web.csrf_token)
    return _refuse(why, 403) if why else None


def _refuse(message: str, status: int) -> Response:
    log.warning("web.request_refused", path=request.path, status=status, reason=message)
    response = jsonify({"ok": False, "error": message})
    response.status_code = status
    return response


def _headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = _CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _importer(settings: Settings) -> Any:
    def run(staged: Staged, agent: str, parser: str) -> dict[str, Any]:
        inbox = paths_for(settings).inbox
        args = {"paths": [str(staged.path)], "agent": agent or None, "parser": parser or "auto"}
        try:
            receipt = call_op(settings, "ingest", args, timeout=3600.0)
        except TapestryError as exc:
            file_away(staged.path, inbox, exc.message, datetime.now(timezone.utc))
            raise
        file_away(staged.path, inbox, receipt_failure(receipt), datetime.now(timezone.utc))
        return receipt  # type: ignore[no-any-return]

    return run
