"""The calendar's Flask application factory and the state its views share.

``create_app(settings)`` is what the daemon serves when ``[web] enabled = true`` and what
``tapestryctl calendar`` serves on its own. Every request's Host is checked, every
state-changing request needs the page's CSRF token and a same-origin ``Origin`` (see
:mod:`tapestryd.web.security`), and every response carries a strict Content-Security-Policy
(scripts and styles only from this server, no inline script).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Any

import structlog
from flask import Flask, Response, jsonify, request

from tapestryd.clock import Clock, SystemClock
from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.operations.requests import IngestRequest
from tapestryd.operations.results import IngestResult
from tapestryd.paths import paths_for
from tapestryd.web import api, views
from tapestryd.web.backend import call_result
from tapestryd.web.context import WebState, close_reader, state
from tapestryd.web.security import bind_warning, host_allowed, write_refusal
from tapestryd.web.uploads import Staged, UploadJobs, file_away, receipt_failure

__all__ = ["create_app"]

log = structlog.get_logger(__name__)

_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def create_app(settings: Settings, *, host: str | None = None, clock: Clock | None = None) -> Flask:
    """The calendar app for ``settings``' home, to be served on ``host`` (default ``[web] host``).

    Logs ``web.exposed`` (a warning) when ``host`` is not loopback; the page shows it too.
    """
    app = Flask(__name__)
    bound = host if host is not None else settings.web.host
    app.config["MAX_CONTENT_LENGTH"] = settings.web.max_upload_mb * (1 << 20)
    app.extensions["tapestry"] = WebState(settings, secrets.token_urlsafe(32), UploadJobs(_importer(settings)),
                                          bound, clock or SystemClock())
    if bind_warning(bound):
        log.warning("web.exposed", host=bound, message=bind_warning(bound))
    app.before_request(_guard)
    app.after_request(_headers)
    app.teardown_appcontext(close_reader)
    app.register_blueprint(views.pages)
    app.register_blueprint(api.api)
    return app


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
    def run(staged: Staged, agent: str, parser: str) -> IngestResult:
        inbox = paths_for(settings).inbox
        args = {"paths": [str(staged.path)], "agent": agent or None, "parser": parser or "auto"}
        try:
            receipt: IngestResult = call_result(settings, IngestRequest, args, timeout=3600.0)
        except TapestryError as exc:
            file_away(staged.path, inbox, exc.message, datetime.now(timezone.utc))
            raise
        file_away(staged.path, inbox, receipt_failure(receipt), datetime.now(timezone.utc))
        return receipt

    return run
