"""Core operations: ping, search, conversations, show, messages, stats, ingest, rebuild, catch_up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tapestryd import __version__
from tapestryd.clock import check_supported
from tapestryd.daemon.ops.query_ops import check_agent, now_of
from tapestryd.daemon.ops.registry import read_op, write_op
from tapestryd.daemon.runtime import Runtime
from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.queries.context import project_conversations
from tapestryd.queries.conversations import (ambiguity, list_conversations, messages_around, resolve_conversation,
                                             show_conversation, stats)
from tapestryd.queries.hybrid import hybrid_search
from tapestryd.queries.levelnames import level_filter
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters
from tapestryd.queries.search import search as run_search
from tapestryd.queries.timephrase import parse_when

__all__: list[str] = []

ROLES = ("user", "assistant", "system", "tool")
PROJECT_OVERFETCH = 20
"""With ``project``, search ranks this many times ``limit`` hits, then keeps the project's."""


@read_op("ping")
def ping(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Liveness: the version and the home's data dir."""
    return {"pong": True, "version": __version__, "data_dir": str(reader.paths.data_dir)}


@read_op("search")
def search(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Full-text search over messages and summaries, time phrases read relative to ``now``.

    args: query, agent, role, conversation, project (a path: only conversations whose cwd
    is inside it), level (all|messages|summaries|L0…L4), since and until (ISO 8601 or a
    phrase such as "last week"), sort (relevance|time), regex (bool), mode (fts|hybrid),
    widen (bool: fill from other times, marked), limit, now (ISO 8601). See
    :func:`tapestryd.queries.search.search`. Raises TapestryError for an unknown role or a
    range that ends before it starts.
    """
    now = now_of(args)
    if args.get("role") and args["role"] not in ROLES:
        raise TapestryError(f"role must be one of {', '.join(ROLES)}, got {args['role']!r}")
    filters = SearchFilters(
        agent=check_agent(reader.settings, reader.conn, args.get("agent")), role=str(args.get("role") or ""),
        conversation=("" if args.get("conversation") is None
                      else resolve_conversation(reader, str(args["conversation"]))),
        level=level_filter(args.get("level")),
        since=_when(reader, args.get("since"), now, "since"), until=_when(reader, args.get("until"), now, "until"),
        subagents=not args.get("no_subagents"),
    )
    if filters.since and filters.until and filters.until <= filters.since:
        raise TapestryError(f"--until ({args.get('until')}) must come after --since ({args.get('since')})")
    query, limit = str(args.get("query", "")), _limit(args, 20)
    inside = project_conversations(reader.conn, str(args["project"])) if args.get("project") else None
    wanted = limit if inside is None else min(10_000, limit * PROJECT_OVERFETCH)
    if args.get("mode") == "hybrid" and not args.get("regex"):
        result = hybrid_search(reader, query, filters, now=now, limit=wanted, widen=bool(args.get("widen")))
    else:
        result = run_search(reader, query, filters, now=now, limit=wanted, sort=str(args.get("sort") or "relevance"),
                            regex=bool(args.get("regex")), widen=bool(args.get("widen")))
    if inside is not None:
        result["hits"] = [h for h in result["hits"] if h["conversation"] in inside][:limit]
        result["project"] = str(args["project"])
    if filters.conversation and filters.conversation != args.get("conversation"):  # a short form: say which one
        result["conversation"] = filters.conversation
    return result


def _when(reader: Reader, value: Any, now: Any, end: str) -> Any:
    """An ISO instant, or the start (``since``) / end (``until``) of a phrase's range; None if empty."""
    if not value:
        return None
    try:
        instant = parse_utc(str(value))
    except ValueError:
        found = parse_when(str(value), now=now, tz=reader.tz, first_day_of_week=reader.settings.first_day_of_week)
        return found.since if end == "since" else found.until
    check_supported(instant, f"--{end} {value!r}")
    return instant


@read_op("conversations")
def conversations(reader: Reader, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Recent conversations; args: agent, limit."""
    return list_conversations(reader, agent=check_agent(reader.settings, reader.conn, args.get("agent")),
                              limit=_limit(args, 50))


@read_op("show")
def show(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """One conversation in full; args: conversation (key or unique key suffix)."""
    ref = str(args.get("conversation", ""))
    found = show_conversation(reader, ref)
    if found is None:
        raise TapestryError(ambiguity(reader, ref) or f"no conversation matches {ref!r}")
    return found


@read_op("messages")
def messages(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Messages by id with neighbours; args: ids (list of message ids, 1 to 100), before and after
    (neighbours on each side, 0 to 50, default 0). See :func:`messages_around`.

    Raises TapestryError when ``ids`` is empty or not a list of whole numbers.
    """
    ids = args.get("ids")
    if not isinstance(ids, list) or not ids or len(ids) > 100:
        raise TapestryError(f"ids must be a list of 1 to 100 message ids, got {ids!r}")
    try:
        wanted = [int(i) for i in ids]
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"ids must be whole numbers (message ids from search), got {ids!r}") from exc
    return messages_around(reader, wanted, before=_window_arg(args, "before"), after=_window_arg(args, "after"))


def _window_arg(args: dict[str, Any], name: str) -> int:
    """``args[name]`` as a whole number from 0 to 50 (0 when absent); raises TapestryError naming it."""
    value = args.get(name) or 0
    try:
        number = int(value)
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"{name} must be a number from 0 to 50, got {value!r}") from exc
    if not 0 <= number <= 50:
        raise TapestryError(f"{name} must be a number from 0 to 50, got {number}")
    return number


@read_op("stats")
def stats_op(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Counts per agent and role."""
    return stats(reader)


@write_op("ingest")
def ingest(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Import files, folders or ZIPs; args: paths, agent, parser. Returns the receipt.

    The projections are caught up before it returns; an import that runs longer than
    :data:`~tapestryd.projections.runner.FOLLOW_AFTER` seconds has them applied alongside
    by a child process (:meth:`~tapestryd.projections.runner.Projector.alongside`).
    """
    from tapestryd.daemon.peer import PEER_ARG, check_readable
    from tapestryd.sources.ingest import ingest_paths

    agent = check_agent(runtime.settings, runtime.projector.conn, args.get("agent"), new_label=True)
    paths = [Path(p) for p in args.get("paths", [])]
    check_readable(paths, args.get(PEER_ARG))  # over the socket: only what the requesting uid can read
    receipt = runtime.projector.alongside(lambda: ingest_paths(
        runtime.store, paths, settings=runtime.settings, agent=agent or None,
        parser=str(args.get("parser") or "auto"), progress=args.get("_progress")))
    return receipt.to_dict()


@write_op("rebuild")
def rebuild(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Drop every projection and replay the log; ``set_aside`` names an unreadable file moved aside first."""
    return {"replayed": runtime.projector.rebuild(), "last_seq": runtime.store.last_seq(),
            "set_aside": str(args.get("_set_aside") or "")}


@write_op("catch_up")
def catch_up(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Apply events the projections have not seen yet."""
    return {"applied": runtime.projector.catch_up(), "lag": runtime.projector.lag()}


def _limit(args: dict[str, Any], default: int) -> int:
    """The ``limit`` arg (default when absent), 1 to 10,000; raises TapestryError otherwise."""
    value = args.get("limit")
    try:
        limit = default if value is None else int(value)
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"limit must be a number, got {value!r}") from exc
    if not 1 <= limit <= 10_000:
        raise TapestryError(f"limit must be between 1 and 10000, got {limit}")
    return limit
