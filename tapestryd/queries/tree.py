"""The summary tree, the hierarchy's part of ``status``, and finding nodes by period.

``hierarchy_status(reader)`` is the section the daemon's ``status`` shows: node counts
per level and state, closed nodes waiting, provider usage, the last runs and errors the
summarizer recorded in ``<data>/cache/hierarchy.json``, the structural checks and the
health grade (:mod:`tapestryd.projections.hierarchy_checks`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tapestryd.clock import UnsupportedDateError, parse_period_key, period_of
from tapestryd.db import translate_errors
from tapestryd.errors import TapestryError
from tapestryd.paths import Paths
from tapestryd.projections.hierarchy_calendar import (level_state_counts, period_keys, summarizer_usage, tree_rows,
                                                      waiting_count)
from tapestryd.projections.hierarchy_checks import Check, grade, run_checks
from tapestryd.projections.hierarchy_read import NodeRow, get_nodes
from tapestryd.projections.hierarchy_views import has_nodes
from tapestryd.queries.reader import Reader
from tapestryd.queries.status import status_section

__all__ = ["hierarchy_status", "read_record", "record_file", "resolve_nodes", "status_view", "tree"]

def record_file(paths: Paths) -> Path:
    """Where the summarizer records its last runs, errors and checks (JSON)."""
    return paths.cache / "hierarchy.json"


def read_record(paths: Paths) -> dict[str, Any]:
    """The summarizer's record (``{"runs": {…}, "errors": {…}, "checks": {…}}``), empty when none."""
    try:
        data = json.loads(record_file(paths).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def hierarchy_status(reader: Reader, *, checks: bool = True) -> dict[str, Any]:
    """Counts per level and state, waiting nodes, usage, recorded runs and errors, checks and grade.

    ``checks`` runs the structural checks now (linear in nodes and sources: about 0.3 s at
    90,000 messages); otherwise the ones recorded by the last completed summarizer run or
    repair are shown (``checks_at`` says when), and the grade uses them with today's
    waiting count.
    """
    conn = reader.conn
    if not has_nodes(conn):
        return {"levels": {}, "waiting": 0, "usage": [], "runs": {}, "errors": {}, "checks": [], "grade": "A"}
    levels, waiting, usage = _level_counts(conn), waiting_count(conn), summarizer_usage(conn)
    with translate_errors(conn):
        results = run_checks(conn) if checks else None
    record = read_record(reader.paths)
    recorded = record.get("checks", {})
    if results is None:
        results = [Check(c["name"], int(c["failures"]), tuple(c["examples"])) for c in recorded.get("results", [])]
    return {
        "levels": levels, "waiting": waiting, "usage": usage,
        "runs": record.get("runs", {}), "errors": record.get("errors", {}),
        "checks": [c.to_dict() for c in results], "checks_at": "now" if checks else recorded.get("at", ""),
        "grade": grade(results, waiting) if results else ("B" if waiting else "A"),
    }


@status_section("hierarchy")
def status_view(reader: Reader) -> dict[str, Any]:
    """The ``hierarchy`` section of ``status``: :func:`hierarchy_status` (recorded checks) as short lines."""
    data = hierarchy_status(reader, checks=False)
    checks: dict[str, str] | str = {
        c["name"]: "ok" if c["ok"] else f"{c['failures']} failing (e.g. {', '.join(c['examples'][:2])})"
        for c in data["checks"]} or "not run yet (a completed iterate or `tapestryctl repair` runs them)"
    usage = {f"{u['provider']}/{u['model']}": f"{u['summaries']} summaries, {u['calls']} calls, "
             f"{u['tokens_in']} tokens in, {u['tokens_out']} out" for u in data["usage"]}
    levels = {name: f"{c['total']} nodes: {c['clean']} clean, {c['dirty']} dirty, {c['context_stale']} stale, "
              f"{c['open']} open" for name, c in data["levels"].items()}
    errors = {key: f"{e.get('error', '')} (at {e.get('at', '?')})" for key, e in list(data["errors"].items())[-5:]}
    return {"grade": data["grade"], "waiting": data["waiting"], "nodes": levels or "none yet",
            "checks": checks, "checks_at": data["checks_at"] or "never",
            "usage": usage or "none yet", "runs": {kind: _run_line(run) for kind, run in data["runs"].items()},
            "errors": errors or "none"}


def _run_line(run: dict[str, Any]) -> str:
    if "error" in run:
        return f"{run.get('at', '?')}: failed: {run['error']}"
    if "grade" in run:
        return f"{run.get('at', '?')}: grade {run['grade']}, {run.get('waiting', 0)} waiting"
    stopped = f", stopped: {run['stopped']}" if run.get("stopped") else ""
    stopped += f" ({run['reason']})" if stopped and run.get("reason") else ""
    return (f"{run.get('at', '?')}: {run.get('summarized', 0)} summarized, {len(run.get('failed') or {})} failed, "
            f"{run.get('remaining', 0)} remaining{stopped}")


def _level_counts(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    levels: dict[str, dict[str, int]] = {}
    for level, state, closed, count in level_state_counts(conn):
        row = levels.setdefault(f"L{level}", {"total": 0, "clean": 0, "dirty": 0, "context_stale": 0, "open": 0})
        row["total"] += count
        row[state] = row.get(state, 0) + count
        row["open"] += 0 if closed else count
    return dict(sorted(levels.items()))


def tree(reader: Reader, *, agent: str = "", start: str = "", end: str = "",
         min_level: int = 1) -> list[dict[str, Any]]:
    """Nodes of levels ``min_level``..4 overlapping local ISO dates ``start``..``end``, nested by parent.

    Each node is a dict of key, level, agent, period, title, state, closed, message_count,
    mode, provider and ``children`` (chronological). Roots are the years, per agent.
    """
    return _nest(tree_rows(reader.conn, min_level=min_level, agent=agent, start=start, end=end))


def _nest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_key = {r["key"]: {**r, "closed": bool(r["closed"]), "children": []} for r in rows}
    roots: list[dict[str, Any]] = []
    for node in by_key.values():
        parent = by_key.get(node["parent"])
        (parent["children"] if parent else roots).append(node)
    return roots


def resolve_nodes(conn: sqlite3.Connection, level: int, when: str, *, first_day_of_week: int, agent: str = "",
                  conversation: str = "") -> list[NodeRow]:
    """The existing nodes of ``level`` for the period holding ``when`` (``2026``, ``2026-03``, a date).

    Raises TapestryError for a ``when`` that names no period.
    """
    try:
        day = parse_period_key(when.strip(), first_day_of_week).start
    except UnsupportedDateError:
        raise
    except ValueError as exc:
        raise TapestryError(f"not a date, month or year: {when!r} (expected 2026-03-04, 2026-03 or 2026)") from exc
    start = period_of(max(level, 1), day, first_day_of_week).start.isoformat()
    keys = period_keys(conn, level, start, agent=agent, conversation=conversation)
    with translate_errors(conn):
        return get_nodes(conn, keys)
