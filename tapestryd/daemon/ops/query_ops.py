"""Query operations: context, similar, recall and node (one node with its sources).

Every one is a read operation, served by the daemon on a server thread and by the CLI
on a read-only Reader when no daemon runs. Relative times ("yesterday", the anchor day)
count from ``args["now"]`` when given (ISO 8601, for tests and evaluations), else from
the wall clock.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from tapestryd.clock import SystemClock
from tapestryd.config import Settings
from tapestryd.daemon.ops.registry import read_op
from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.queries.contextdoc import ContextRequest, context_answer
from tapestryd.queries.levelnames import level_filter
from tapestryd.queries.reader import Reader
from tapestryd.queries.recall import recall, show_node
from tapestryd.queries.similar import similar
from tapestryd.queries.timephrase import parse_when

__all__ = ["check_agent", "now_of", "positive_int"]


def now_of(args: dict[str, Any]) -> datetime:
    """The instant relative times count from: ``args["now"]`` (ISO 8601) or the wall clock.

    Raises TapestryError for a ``now`` that is not ISO 8601.
    """
    value = args.get("now")
    if not value:
        return SystemClock().now()
    try:
        return parse_utc(str(value))
    except ValueError as exc:
        raise TapestryError(f"now must be an ISO 8601 time, got {value!r}") from exc


def positive_int(args: dict[str, Any], name: str, default: int | None, *, most: int = 1_000_000) -> int | None:
    """``args[name]`` as an integer in 1..``most`` (``default`` when absent).

    Raises TapestryError naming the option when it is not a positive number.
    """
    value = args.get(name)
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"{name.replace('_', '-')} must be a number, got {value!r}") from exc
    if number < 1:
        raise TapestryError(f"{name.replace('_', '-')} must be at least 1, got {number}")
    return min(number, most)


def check_agent(settings: Settings, conn: sqlite3.Connection, agent: Any, *, new_label: bool = False) -> str:
    """``agent`` ('' for every agent) when it is configured (``[agents.*]`` and the defaults) or
    has conversations stored; else raises TapestryError naming the known agents.

    ``new_label`` (ingest) adds how to introduce a new label. One indexed-free lookup that
    stops at the first conversation, run only for a name that is not configured.
    """
    name = str(agent or "")
    if not name or settings.agent(name) is not None or _has_data(conn, name):
        return name
    known = sorted({a.name for a in settings.agents} | set(_data_agents(conn)))
    hint = f"; to use a new label, add [agents.{name}] to {settings.config_file}" if new_label else ""
    raise TapestryError(f"no agent named {name!r}; known: {', '.join(known)}{hint}")


def _has_data(conn: sqlite3.Connection, agent: str) -> bool:
    try:
        return conn.execute("SELECT 1 FROM conversations WHERE agent = ? LIMIT 1", (agent,)).fetchone() is not None
    except sqlite3.OperationalError:  # no projections yet
        return False


def _data_agents(conn: sqlite3.Connection) -> list[str]:
    try:
        return [row[0] for row in conn.execute("SELECT DISTINCT agent FROM conversations")]
    except sqlite3.OperationalError:
        return []


@read_op("context")
def context(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Telescoping context; args: date, agent, project, max_tokens, format (text|markdown|json),
    recent (raw messages), now_only, exclude_session, now. See :func:`context_answer`."""
    now = now_of(args)
    anchor = None
    if args.get("date"):
        anchor = parse_when(str(args["date"]), now=now, tz=reader.tz,
                            first_day_of_week=reader.settings.first_day_of_week).last
    request = ContextRequest(anchor=anchor, agent=check_agent(reader.settings, reader.conn, args.get("agent")),
                             project=str(args.get("project") or ""),
                             max_tokens=positive_int(args, "max_tokens", None),
                             fmt=str(args.get("format") or "text"), recent=positive_int(args, "recent", 30, most=500) or 30,
                             now_only=bool(args.get("now_only")), exclude_session=str(args.get("exclude_session") or ""))
    return context_answer(reader, request, now=now)


@read_op("similar")
def similar_op(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Most similar messages and summaries by TF-IDF cosine; args: query, top, level."""
    query = str(args.get("query") or "").strip()
    if not query:
        raise TapestryError("similar needs some text to compare with")
    return similar(reader, query, top=positive_int(args, "top", 10, most=1000) or 10,
                   level=level_filter(args.get("level")))


@read_op("recall")
def recall_op(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """The best available nodes for a date, period or range; args: when, agent, now, limit
    (most nodes answered, default 50), days (conversation-days listed per node, default 0)."""
    when = str(args.get("when") or "").strip()
    if not when:
        raise TapestryError("recall needs a date, period or range (e.g. 2026-03, 'last week', 2026-03-01..2026-03-15)")
    return recall(reader, when, now=now_of(args), agent=check_agent(reader.settings, reader.conn, args.get("agent")),
                  limit=positive_int(args, "limit", 50, most=10_000) or 50,
                  days=positive_int(args, "days", 0, most=1000) or 0)


@read_op("node")
def node(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """One node with its sources; args: key."""
    return show_node(reader, str(args.get("key") or ""))
