"""Core operations: ping, search, conversations, show, stats, ingest, rebuild, catch_up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tapestryd import __version__
from tapestryd.daemon.ops.registry import read_op, write_op
from tapestryd.daemon.runtime import Runtime
from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.queries.conversations import list_conversations, show_conversation, stats
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search_messages

__all__: list[str] = []


@read_op("ping")
def ping(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Liveness: the version and the home's data dir."""
    return {"pong": True, "version": __version__, "data_dir": str(reader.paths.data_dir)}


@read_op("search")
def search(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Full-text search; args: query, agent, role, conversation, since, until (ISO UTC), limit."""
    filters = SearchFilters(
        agent=str(args.get("agent") or ""), role=str(args.get("role") or ""),
        conversation=str(args.get("conversation") or ""),
        since=_instant(args.get("since")), until=_instant(args.get("until")),
    )
    hits = search_messages(reader, str(args.get("query", "")), filters, limit=_limit(args, 20))
    return {"query": args.get("query", ""), "hits": [h.to_dict() for h in hits]}


@read_op("conversations")
def conversations(reader: Reader, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Recent conversations; args: agent, limit."""
    return list_conversations(reader, agent=str(args.get("agent") or ""), limit=_limit(args, 50))


@read_op("show")
def show(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """One conversation in full; args: conversation (key or unique key suffix)."""
    ref = str(args.get("conversation", ""))
    found = show_conversation(reader, ref)
    if found is None:
        raise TapestryError(f"no conversation matches {ref!r}")
    return found


@read_op("stats")
def stats_op(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Counts per agent and role."""
    return stats(reader)


@write_op("ingest")
def ingest(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Import files, folders or ZIPs; args: paths, agent, parser. Returns the receipt."""
    from tapestryd.sources.ingest import ingest_paths

    receipt = ingest_paths(runtime.store, [Path(p) for p in args.get("paths", [])], settings=runtime.settings,
                           agent=args.get("agent") or None, parser=str(args.get("parser") or "auto"),
                           progress=args.get("_progress"))
    runtime.projector.catch_up()
    return receipt.to_dict()


@write_op("rebuild")
def rebuild(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Drop every projection and replay the log."""
    return {"replayed": runtime.projector.rebuild(), "last_seq": runtime.store.last_seq()}


@write_op("catch_up")
def catch_up(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Apply events the projections have not seen yet."""
    return {"applied": runtime.projector.catch_up(), "lag": runtime.projector.lag()}


def _instant(value: Any) -> Any:
    try:
        return parse_utc(str(value)) if value else None
    except ValueError as exc:
        raise TapestryError(f"not an ISO 8601 time: {value!r}") from exc


def _limit(args: dict[str, Any], default: int) -> int:
    try:
        return max(1, min(int(args.get("limit") or default), 10_000))
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"limit must be a number, got {args.get('limit')!r}") from exc
