"""``tapestryctl verify``: is the event log intact, and do the projections agree with it?

Checks, each reported with ``ok`` and a readable ``detail``:

* ``integrity``: SQLite's ``PRAGMA integrity_check`` on ``events.db`` (pages, indexes,
  the unique ``event_id`` index);
* ``seq``: seqs strictly increase in storage order, and ``sqlite_sequence`` is at or
  above the highest seq, so a seq is never handed out twice;
* ``payloads``: every payload is a JSON object that decodes into its event type (types
  this version does not know are counted, not failed);
* ``checkpoints``: no projection checkpoint is beyond the log's last seq (which happens
  when a log is restored under newer projections: ``tapestryctl rebuild`` fixes it).

Everything is read-only (``mode=ro``), so it runs beside a working daemon.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterator

from tapestryd.events.codec import decode
from tapestryd.events.types import UnknownEvent
from tapestryd.projections import checkpoints

__all__ = ["verify_log"]

MAX_LISTED = 20  # problems listed per check; the rest are counted


def verify_log(events_db: Path, projections: sqlite3.Connection | None) -> dict[str, Any]:
    """The verify report: ``{"ok", "events_db", "events", "last_seq", "checks": [...]}``.

    ``projections`` is a connection to ``projections.db`` (None when it does not exist).
    A missing or unreadable log is reported as a failed check, never raised.
    """
    report: dict[str, Any] = {"events_db": str(events_db), "events": 0, "last_seq": 0, "checks": []}
    try:
        conn = sqlite3.connect(f"{events_db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return _finish(report, [_check("integrity", False, f"cannot open {events_db}: {exc}")])
    try:
        checks = _run_checks(conn, report, projections)
    except sqlite3.Error as exc:
        checks = [_check("integrity", False, f"{events_db} cannot be read: {exc}")]
    finally:
        conn.close()
    return _finish(report, checks)


def _run_checks(conn: sqlite3.Connection, report: dict[str, Any],
                projections: sqlite3.Connection | None) -> list[dict[str, Any]]:
    integrity = _integrity(conn)
    if not integrity["ok"]:
        return [integrity]
    report["events"], report["last_seq"] = conn.execute("SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM events").fetchone()
    return [integrity, _seq_order(conn, report["last_seq"]), _payloads(conn),
            _checkpoints(projections, report["last_seq"])]


def _finish(report: dict[str, Any], checks: list[dict[str, Any]]) -> dict[str, Any]:
    report["checks"] = checks
    report["ok"] = all(c["ok"] for c in checks)
    return report


def _check(name: str, ok: bool, detail: str, problems: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail, "problems": (problems or [])[:MAX_LISTED]}


def _integrity(conn: sqlite3.Connection) -> dict[str, Any]:
    try:
        rows = [r[0] for r in conn.execute("PRAGMA integrity_check(100)")]
        has_events = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
    except sqlite3.DatabaseError as exc:
        return _check("integrity", False, f"not a readable SQLite database: {exc}")
    if rows != ["ok"]:
        return _check("integrity", False, f"integrity_check found {len(rows)} problem(s)", rows)
    if not has_events:
        return _check("integrity", False, "the database has no events table: not a tapestry event log")
    return _check("integrity", True, "integrity_check: ok")


def _seq_order(conn: sqlite3.Connection, last: int) -> dict[str, Any]:
    problems, previous = [], 0
    for (seq,) in conn.execute("SELECT seq FROM events ORDER BY rowid"):
        if seq <= previous:
            problems.append(f"seq {seq} follows seq {previous}")
        previous = seq
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
    if last and (row is None or row[0] < last):
        problems.append(f"sqlite_sequence is {row[0] if row else 'missing'}, below the last seq {last}")
    detail = "seqs strictly increase" if not problems else f"{len(problems)} seq problem(s)"
    return _check("seq", not problems, detail, problems)


def _payloads(conn: sqlite3.Connection) -> dict[str, Any]:
    problems, unknown, total = [], 0, 0
    for seq, type_name, schema, payload in _rows(conn):
        total += 1
        try:
            unknown += isinstance(decode(type_name, schema, payload), UnknownEvent)
        except (ValueError, TypeError, KeyError) as exc:
            problems.append(f"seq {seq} ({type_name}): {exc}")
    detail = f"{total - len(problems)} of {total} payloads decode"
    if unknown:
        detail += f" ({unknown} of a type this version does not know, kept as is)"
    return _check("payloads", not problems, detail, problems)


def _rows(conn: sqlite3.Connection) -> Iterator[tuple[int, str, int, str]]:
    after = 0
    while True:
        rows = conn.execute("SELECT seq, type, schema, payload FROM events WHERE seq > ? ORDER BY seq LIMIT 2000",
                            (after,)).fetchall()
        yield from rows
        if len(rows) < 2000:
            return
        after = rows[-1][0]


def _checkpoints(projections: sqlite3.Connection | None, last: int) -> dict[str, Any]:
    if projections is None:
        return _check("checkpoints", True, "no projections yet (they are built on the next start or rebuild)")
    marks = checkpoints(projections)
    ahead = [f"{name} is at seq {seq}, beyond the log's last seq {last}" for name, seq in sorted(marks.items())
             if seq > last]
    if ahead:
        return _check("checkpoints", False, "projections are ahead of the log: run `tapestryctl rebuild`", ahead)
    lag = ", ".join(f"{name} {last - seq} behind" for name, seq in sorted(marks.items()) if seq < last)
    return _check("checkpoints", True,
                  f"{len(marks)} checkpoint(s) at or below seq {last}" + (f" ({lag})" if lag else ""))
