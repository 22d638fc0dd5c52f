"""Data-safety operations: forget, compact, backup; and the offline verify and restore.

* ``forget`` (write): one rule (``conversation`` key or unique end of one of 6+ characters, ``before`` an
  ISO time or the start of the local date, month, year or phrase it names ("yesterday",
  "last 3 months"; see :func:`before_instant`), or ``match`` a Python regex, case-insensitive like ``search
  --regex``: kept in the event with an explicit ``(?i)`` prefix, so rules already in a log
  replay unchanged), ``dry_run`` to only count;
  appends a ``Forgotten`` event (the same rule twice is one event), then applies it to the raw
  archive (:func:`~tapestryd.daemon.ops.archive_ops.forget_in_archive`).
* ``compact`` (write): ``dry_run``, or ``confirm`` to drop the pre-compact backup and scrub
  the other backups (:mod:`tapestryd.daemon.compact`).
* ``backup`` (write): one backup of the log, then rotation (:mod:`tapestryd.daemon.backup`).

:func:`verify_offline`, :func:`list_backups_offline` and :func:`restore_offline` are not
socket operations: ``tapestryctl`` runs them in its own process. Verify and the listing
only read; restore refuses while a daemon (or any writer) holds the home.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tapestryd.clock import check_supported
from tapestryd.config import Settings
from tapestryd.daemon import backup as backups
from tapestryd.daemon.compact import compact_log, confirm_compaction
from tapestryd.daemon.lock import WriterLock
from tapestryd.daemon.ops.archive_ops import archive_check, forget_in_archive, preview_in_archive
from tapestryd.daemon.ops.query_ops import now_of
from tapestryd.daemon.ops.registry import write_op
from tapestryd.daemon.runtime import Runtime
from tapestryd.db import connect
from tapestryd.errors import TapestryError
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, NewEvent, format_utc, parse_utc
from tapestryd.paths import paths_for
from tapestryd.privacy import forgotten_id
from tapestryd.projections import Projector, default_projections
from tapestryd.projections.forgetting import ForgetRule, preview
from tapestryd.queries.conversations import ambiguity, find_conversation
from tapestryd.queries.integrity import verify_log
from tapestryd.queries.reader import Reader
from tapestryd.queries.timephrase import parse_when

__all__ = ["MIN_END", "before_instant", "list_backups_offline", "restore_offline", "verify_offline"]

MIN_END = 6
"""Fewest characters of a key's end ``forget --conversation`` accepts (a full key is always accepted).

Stricter than ``search``/``show`` (any unique end): forgetting cannot be undone."""
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d")


@write_op("forget")
def forget(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Forget a conversation, everything before an instant, or messages matching a regex."""
    runtime.projector.catch_up()
    rule = _rule(runtime, args)
    found = preview(runtime.projector.conn, rule)
    result: dict[str, Any] = {"rule": asdict(rule), "dry_run": bool(args.get("dry_run")), **found}
    if rule.before:
        result["before_read"] = _before_line(str(args["before"]).strip(), rule.before, runtime.settings)
    event = Forgotten(conversation=rule.conversation, before=rule.before, match=rule.match,
                      reason=str(args.get("reason") or ""))
    if result["dry_run"]:
        return {**result, "archive": preview_in_archive(runtime.paths, runtime.store, event)}
    new = NewEvent(forgotten_id(rule.conversation, rule.before, rule.match), event,
                   datetime.now(timezone.utc), agent="", source="tapestryctl:forget")
    appended = runtime.store.append([new])
    runtime.projector.catch_up()
    return {**result, "seq": appended.seqs[0], "already_forgotten": appended.known == 1,
            "archive": forget_in_archive(runtime.paths, runtime.store)}


def _rule(runtime: Runtime, args: dict[str, Any]) -> ForgetRule:
    given = {k: str(args.get(k) or "").strip() for k in ("conversation", "before", "match")}
    if sum(1 for v in given.values() if v) != 1:
        raise TapestryError("say what to forget with exactly one of --conversation, --before or --match")
    if given["conversation"]:
        return ForgetRule(conversation=_conversation(runtime, given["conversation"]))
    if given["before"]:
        return ForgetRule(before=before_instant(given["before"], runtime.settings, now_of(args)))
    pattern = given["match"] if given["match"].startswith("(?i)") else "(?i)" + given["match"]
    try:
        re.compile(given["match"])  # the user's own pattern, so an error's position is theirs
    except (re.error, OverflowError) as exc:  # OverflowError: a repetition count too large
        raise TapestryError(f"--match {given['match']!r} is not a valid regular expression: {exc}") from exc
    return ForgetRule(match=pattern)


def _conversation(runtime: Runtime, ref: str) -> str:
    """The key ``ref`` names: the full key, or the unique end of one at least MIN_END characters long.

    Raises TapestryError when ``ref`` is a shorter end, ends several keys (naming a few), or
    names none; a full key not stored yet (``agent:id``) is kept, so it stays out for good.
    """
    reader = Reader(runtime.settings, runtime.paths, runtime.projector.conn)
    found = find_conversation(reader, ref)
    if found is not None and (found["key"] == ref or len(ref) >= MIN_END):
        return str(found["key"])
    if found is None and (several := ambiguity(reader, ref)):
        raise TapestryError(f"{several} (see `tapestryctl conversations`)")
    if found is None and ":" in ref:
        return ref
    if found is not None:
        raise TapestryError(f"--conversation {ref!r} is too short: give the full key or its last {MIN_END} or more"
                            " characters (see `tapestryctl conversations`)")
    raise TapestryError(f"no conversation matches {ref!r} (see `tapestryctl conversations`)")


def before_instant(text: str, settings: Settings, now: datetime) -> str:
    """ISO UTC of ``--before``: an ISO time with a time of day (naive = local), or the start of
    the local date, month, year or phrase the text names (``2024-05-01``, ``2024-06``,
    ``2024``, "yesterday", "last 3 months"), read relative to ``now``.

    Raises TapestryError for a day that does not exist ("February 2025 has 28 days"), a
    text that is no time, or one naming no start ("..2024").
    """
    if _ISO_TIME.match(text):
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError as exc:
            raise TapestryError(f"--before {text!r} is not an ISO 8601 time: {exc}") from exc
        check_supported(moment.date(), f"--before {text!r}")
        return format_utc(moment if moment.tzinfo else moment.replace(tzinfo=settings.tz))
    try:
        found = parse_when(text, now=now, tz=settings.tz, first_day_of_week=settings.first_day_of_week)
    except TapestryError as exc:
        raise TapestryError(f"--before: {exc}") from exc
    if found.since is None:
        raise TapestryError(f"--before {text!r} names no start to forget before; give a date, month or year")
    return format_utc(found.since)


def _before_line(text: str, before: str, settings: Settings) -> str:
    """The line saying how ``--before`` was read, in local time and UTC."""
    moment = parse_utc(before)
    local = moment.astimezone(settings.tz).strftime("%Y-%m-%d %H:%M")
    return (f"reading --before {text!r} as everything before {local} ({settings.timezone}), "
            f"{moment.strftime('%Y-%m-%dT%H:%M:%SZ')}")


@write_op("compact")
def compact(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Rewrite forgotten payloads as tombstones (``dry_run``), or ``confirm`` a compaction."""
    if args.get("confirm"):
        return confirm_compaction(runtime)
    return compact_log(runtime, dry_run=bool(args.get("dry_run")))


@write_op("backup")
def backup(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Back up the event log now and prune old backups (7 daily, 4 weekly)."""
    settings = runtime.settings
    return backups.rotate(runtime.paths.events_db, runtime.paths.backups, tz=settings.tz,
                          first_day_of_week=settings.first_day_of_week)


def list_backups_offline(settings: Settings) -> list[dict[str, object]]:
    """Every backup of the home, oldest first (read-only; no lock)."""
    return [b.to_dict() for b in backups.list_backups(paths_for(settings).backups)]


def verify_offline(settings: Settings) -> dict[str, Any]:
    """The verify report of the home's log, projections and raw archive (read-only; runs beside a daemon)."""
    paths = paths_for(settings)
    if not paths.events_db.exists():
        raise TapestryError(f"no event log at {paths.events_db}: nothing to verify")
    projections = connect(paths.projections_db, readonly=True) if paths.projections_db.exists() else None
    try:
        report = verify_log(paths.events_db, projections)
    finally:
        if projections is not None:
            projections.close()
    report["checks"].append(archive_check(paths))
    report["ok"] = all(check["ok"] for check in report["checks"])
    return report


def restore_offline(settings: Settings, source: Path) -> dict[str, Any]:
    """Replace the home's log by backup ``source`` and rebuild the projections from it.

    Takes the writer lock first, so it refuses (StoreLockedError naming the pid) while a
    daemon or another command writes this home. The replaced log is kept as a
    ``pre-restore-*`` backup. Raises TapestryError, having created nothing, when the home's
    folder does not exist (a mistyped ``--home``; ``tapestryctl init`` starts a new home)
    or ``source`` is not a file.
    """
    paths = paths_for(settings)
    if not paths.data_dir.is_dir():
        init = f"tapestryctl init --home {settings.home}" if settings.home else "tapestryctl init"
        raise TapestryError(f"no tapestry home at {paths.data_dir} (a mistyped --home?); to restore into a new "
                            f"home, create it first with `{init}`")
    if not source.is_file():
        raise TapestryError(f"no such backup: {source}")
    paths.ensure()
    with WriterLock(paths.lock_file, "restore"):
        result = backups.restore_log(source.resolve(), paths.events_db, paths.backups)
        for suffix in ("", "-wal", "-shm"):  # projections are rebuilt from the restored log
            Path(f"{paths.projections_db}{suffix}").unlink(missing_ok=True)
        with EventStore(paths.events_db) as store:
            projector = Projector(store, paths.projections_db,
                                  default_projections(settings.timezone, settings.first_day_of_week))
            try:
                result["replayed"] = projector.catch_up()
            finally:
                projector.close()
    return result
