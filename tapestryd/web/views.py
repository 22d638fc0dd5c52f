"""The calendar's pages: month grid with a day panel, one node, a conversation-day, search.

Every page is rendered on the server from :mod:`tapestryd.queries.calendar`; the agent
filter travels in the query string (``filtered=1`` plus one ``agent=`` per shown agent), so
every link keeps it.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as Redirect

from tapestryd.clock import SUPPORTED_FROM, SUPPORTED_UNTIL
from tapestryd.config import PARSERS
from tapestryd.errors import TapestryError
from tapestryd.operations.requests import SearchRequest
from tapestryd.operations.result_parts import Hit
from tapestryd.operations.results import SearchResult
from tapestryd.queries.calendar import conversation_day, day_panel, month_grid, node_view
from tapestryd.queries.substring import has_terms
from tapestryd.web.backend import call_result
from tapestryd.web.colors import color_for, read_colors
from tapestryd.web.context import data_agents, reader, state
from tapestryd.web.render import highlight, markdown, plain, shorten
from tapestryd.web.security import bind_warning

__all__ = ["pages"]

pages = Blueprint("pages", __name__)
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")


@pages.app_template_filter("md")
def _md(text: str | None) -> Any:
    return markdown(text)


@pages.app_template_filter("plain")
def _plain(text: str | None) -> str:
    return plain(text)


@pages.app_template_filter("highlight")
def _highlight(snippet: str | None, query: str) -> Any:
    return highlight(snippet, query)


@pages.app_template_filter("short")
def _short(text: str | None, limit: int = 160) -> str:
    return shorten(text, limit)


@pages.app_template_filter("localtime")
def _localtime(ts: str | None) -> str:
    """``HH:MM`` of an ISO UTC timestamp in the configured timezone ('' when absent)."""
    if not ts:
        return ""
    return datetime.fromisoformat(ts).astimezone(state().settings.tz).strftime("%H:%M")


@pages.app_template_filter("search_notes")
def _search_notes(result: SearchResult) -> list[str]:
    """How the search read the query's time phrase (echoed back by the search query), if any, and how
    many hits lie inside it when some come from other times."""
    found = result.time
    if not found:
        return []
    notes = [plain(f"Read “{found.phrase}” as {found.label}")]
    if result.outside:
        notes.append(plain(f"{len(result.hits) - result.outside} results in “{found.phrase}”; "
                           f"{result.outside} from other times, marked"))
    return notes


@pages.app_template_filter("hit_marks")
def _hit_marks(hit: Hit) -> list[str]:
    """Why ``hit`` is shown beyond holding the words, as ``tapestryctl search`` says it: next to a match,
    its conversation's title, outside the range, and the summary levels quoting it."""
    extra = hit.extra
    marks = ["next to a match"] if extra.get("next_to_match") else []
    marks += ["its conversation's title matches"] if extra.get("title_match") else []
    marks += ["outside the range"] if extra.get("outside_range") else []
    return marks + ([f"quoted by {', '.join(extra['quoted_by'])}"] if extra.get("quoted_by") else [])


@pages.app_context_processor
def _chrome() -> dict[str, Any]:
    web = state()
    known = _known_agents()
    colors = read_colors(web.settings.config_file)
    return {"all_agents": known, "agent_index": {a: i for i, a in enumerate(known)},
            "agent_colors": {a: color_for(a, colors) for a in known}, "shown": _shown(known),
            "csrf_token": web.csrf_token, "exposed": bind_warning(web.host), "parsers": PARSERS,
            "max_upload_mb": web.settings.web.max_upload_mb, "today": web.today(), "nav": _nav,
            "filter_args": _filter_args()}


def _known_agents() -> list[str]:
    """Agents with data, then configured agents without data yet."""
    with_data = data_agents()
    return with_data + [a.name for a in state().settings.agents if a.name not in with_data]


def _shown(known: list[str]) -> list[str]:
    if request.args.get("filtered"):
        return [a for a in request.args.getlist("agent") if a in known]
    return known


def _filter_args() -> list[tuple[str, str]]:
    if not request.args.get("filtered"):
        return []
    return [("filtered", "1")] + [("agent", a) for a in request.args.getlist("agent")]


def _nav(endpoint: str, **values: Any) -> str:
    """A URL for ``endpoint`` that keeps the current agent filter."""
    query = urlencode(_filter_args() + [(k, str(v)) for k, v in values.pop("_query", {}).items() if v])
    return url_for(endpoint, **values) + (f"?{query}" if query else "")


@pages.route("/")
def index() -> Redirect:
    """The current local month."""
    today = state().today()
    return redirect(_nav("pages.month", ym=f"{today:%Y-%m}"))


@pages.route("/go")
def go() -> Redirect:
    """The date picker's target: the month of ``date`` (YYYY-MM-DD) or ``month`` (YYYY-MM), day open."""
    picked = request.args.get("date", "")
    try:
        day = date.fromisoformat(picked) if picked else None
    except ValueError:
        abort(400, f"not a date: {picked!r}")
    ym = f"{day:%Y-%m}" if day else request.args.get("month", "")
    if not _MONTH.match(ym):
        abort(400, f"not a month: {ym!r}")
    return redirect(_nav("pages.month", ym=ym, _query={"day": day.isoformat() if day else ""}))


@pages.route("/month/<ym>")
def month(ym: str) -> str:
    """The month grid of ``ym`` (YYYY-MM), with the day panel of ``?day=`` when given."""
    year, mon = _parse_month(ym)
    opened, known = reader(), _known_agents()
    shown = _shown(known)
    with_data = set(data_agents())
    grid = month_grid(opened, year, mon, [a for a in shown if a in with_data]) if opened else None
    day = _parse_day(request.args.get("day", ""))
    panel = day_panel(opened, day, shown) if opened and day else []
    prev_m, next_m = _step(year, mon, -1), _step(year, mon, 1)
    return render_template("month.html", year=year, month=mon, grid=grid, day=day, panel=panel,
                           prev_month=prev_m, next_month=next_m, empty=opened is None)


def _parse_month(ym: str) -> tuple[int, int]:
    match = _MONTH.match(ym)
    if not match or not 1 <= int(match.group(2)) <= 12 or int(match.group(1)) < 1:
        abort(404, f"no such month: {ym!r} (expected YYYY-MM)")
    if not SUPPORTED_FROM.year <= int(match.group(1)) <= SUPPORTED_UNTIL.year:
        abort(404, f"no such month: {ym!r} (supported dates: {SUPPORTED_FROM} to {SUPPORTED_UNTIL})")
    return int(match.group(1)), int(match.group(2))


def _parse_day(text: str) -> date | None:
    try:
        day = date.fromisoformat(text) if text else None
    except ValueError:
        abort(400, f"not a date: {text!r} (expected YYYY-MM-DD)")
    if day and not SUPPORTED_FROM <= day <= SUPPORTED_UNTIL:
        abort(404, f"no such day: {text!r} (supported dates: {SUPPORTED_FROM} to {SUPPORTED_UNTIL})")
    return day


def _step(year: int, mon: int, delta: int) -> str:
    index = year * 12 + (mon - 1) + delta
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


@pages.route("/day/<day>")
def day_page(day: str) -> str:
    """One day's panel on its own page."""
    parsed = _parse_day(day)
    opened = reader()
    panel = day_panel(opened, parsed, _shown(_known_agents())) if opened and parsed else []
    return render_template("day.html", day=parsed, panel=panel)


@pages.route("/node")
def node() -> str:
    """One node (``?key=``) rendered, with links up to its parent and down to its sources."""
    key = request.args.get("key", "")
    opened = reader()
    found = node_view(opened, key) if opened else None
    if found is None:
        abort(404, f"no node {key!r}")
    return render_template("node.html", node=found)


@pages.route("/conversation")
def conversation() -> str:
    """A conversation's raw messages on ``?day=`` (all days without it), in order."""
    key = request.args.get("key", "")
    day = _parse_day(request.args.get("day", ""))
    opened = reader()
    found = conversation_day(opened, key, day) if opened else None
    if found is None:
        abort(404, f"no conversation {key!r}")
    return render_template("conversation.html", conv=found, day=day)


@pages.route("/search")
def search() -> str:
    """Search results for ``?q=`` (time phrases understood by the search query), agent-filtered."""
    query, agent = request.args.get("q", "").strip(), request.args.get("in", "")
    result = SearchResult()
    error = ""
    if query and not has_terms(query):
        error = f"nothing to search for in {query!r}: type some words or a time phrase"
    elif query:
        try:
            result = call_result(state().settings, SearchRequest, {"query": query, "agent": agent, "limit": 50,
                                                                  "now": state().clock.now().isoformat()},
                                 dense=state().dense)
        except TapestryError as exc:
            error = exc.message
    return render_template("search.html", query=query, agent=agent, result=result, error=error)


@pages.route("/favicon.ico")
def favicon() -> Response:
    """The tab icon at the address browsers ask for by default (the SVG every page also links)."""
    response = current_app.send_static_file("favicon.svg")
    response.mimetype = "image/svg+xml"
    return response


@pages.route("/agents.css")
def agents_css() -> Response:
    """One CSS custom property per agent (``.ag-N { --agent: #rrggbb }``), so no inline style is needed."""
    known = _known_agents()
    colors = read_colors(state().settings.config_file)
    css = "\n".join(f".ag-{i} {{ --agent: {color_for(a, colors)}; }}" for i, a in enumerate(known))
    return Response(css + "\n", mimetype="text/css")
