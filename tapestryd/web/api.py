"""The calendar's JSON endpoints: status strip, uploads and their receipts, agent colours.

State-changing endpoints (``POST``) pass the guards of :mod:`tapestryd.web.security`
before they get here. Errors answer ``{"ok": false, "error": "<readable message>"}``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from tapestryd.config import PARSERS
from tapestryd.errors import TapestryError
from tapestryd.paths import paths_for
from tapestryd.queries.calendar import store_status
from tapestryd.web.backend import daemon_health
from tapestryd.web.colors import save_color
from tapestryd.web.context import data_agents, reader, state
from tapestryd.web.uploads import UploadTooLarge, stage_upload, upload_name

__all__ = ["api"]

api = Blueprint("api", __name__, url_prefix="/api")


def _error(message: str, status: int) -> tuple[Response, int]:
    return jsonify({"ok": False, "error": message}), status


@api.app_errorhandler(RequestEntityTooLarge)
def _too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
    return _error(f"the upload is larger than the {state().settings.web.max_upload_mb} MB limit "
                  "([web] max_upload_mb in tapestry.toml)", 413)


@api.route("/status")
def status() -> Response:
    """Daemon health, projector lag, node states and the last import, as JSON."""
    web = state()
    opened = reader()
    store = store_status(opened, paths_for(web.settings).events_db) if opened else \
        {"last_seq": 0, "lag": {}, "nodes": {}, "last_import": None}
    return jsonify({"ok": True, "daemon": daemon_health(web.settings), **store})


@api.route("/upload", methods=["POST"])
def upload() -> tuple[Response, int]:
    """Stream the request body (one export file) to disk and start importing it.

    Query: ``name`` (the browser's file name, for its suffix only), ``agent`` ('' = from the
    parser), ``parser`` (``auto`` or a parser name). Answers 202 with the job.
    """
    web = state()
    agent, parser = request.args.get("agent", ""), request.args.get("parser", "auto") or "auto"
    if parser != "auto" and parser not in PARSERS:
        return _error(f"unknown parser {parser!r}; expected auto or one of {', '.join(PARSERS)}", 400)
    if agent and agent not in {a.name for a in web.settings.agents} | set(data_agents()):
        return _error(f"unknown agent {agent!r}; pick one of the listed agents or leave it on auto", 400)
    limit = web.settings.web.max_upload_mb * (1 << 20)
    if (request.content_length or 0) > limit:
        return _too_large(RequestEntityTooLarge())
    try:
        name = upload_name(request.args.get("name", ""), datetime.now(timezone.utc))
        staged = stage_upload(request.stream, paths_for(web.settings).cache / "uploads", name,
                              request.args.get("name", ""), limit=limit)
    except UploadTooLarge as exc:
        return _error(exc.message, 413)
    except TapestryError as exc:
        return _error(exc.message, 400)
    return jsonify({"ok": True, "job": web.jobs.submit(staged, agent, parser)}), 202


@api.route("/upload/<job_id>")
def upload_job(job_id: str) -> tuple[Response, int]:
    """One upload job: state (importing, done, failed), receipt or error."""
    job = state().jobs.get(job_id)
    if job is None:
        return _error(f"no upload job {job_id!r} (jobs are forgotten when the server restarts)", 404)
    return jsonify({"ok": True, "job": job}), 200


@api.route("/agents/color", methods=["POST"])
def agent_color() -> tuple[Response, int]:
    """Set an agent's colour: JSON ``{"agent": name, "color": "#rrggbb"}``, saved in tapestry.toml."""
    body: Any = request.get_json(silent=True) or {}
    agent, color = str(body.get("agent", "")), str(body.get("color", ""))
    if agent not in {a.name for a in state().settings.agents} | set(data_agents()):
        return _error(f"unknown agent {agent!r}", 400)
    try:
        save_color(state().settings.config_file, agent, color)
    except TapestryError as exc:
        return _error(exc.message, 400)
    return jsonify({"ok": True, "agent": agent, "color": color.lower()}), 200
