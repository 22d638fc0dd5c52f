"""Data-safety operations: forget, compact, backup (write), and verify, restore and the list of
backups (local: run in the caller's process).

* ``forget``: one rule (``conversation`` key or unique end of one of 6+ characters, ``before`` an
  ISO time or the start of the local date, month, year or phrase it names ("yesterday",
  "last 3 months"; see :func:`before_instant`), or ``match`` a Python regex, case-insensitive like
  ``search --regex``: kept in the event with an explicit ``(?i)`` prefix, so rules already in a
  log replay unchanged), ``dry_run`` to only count; appends a ``Forgotten`` event (the same rule
  twice is one event), then applies it to the raw archive
  (:func:`~tapestryd.operations.archive.forget_in_archive`) and drops the full contexts the Claude
  Code hook cached for when the daemon is down (:func:`~tapestryd.queries.hook.drop_cached_contexts`).
* ``compact``: ``dry_run``, or ``confirm`` to drop the pre-compact backup and scrub the other
  backups (:mod:`tapestryd.operations.compact`).
* ``backup``: one backup of the log, then rotation (:mod:`tapestryd.operations.backup`).
* ``verify`` and ``backups`` only read (``verify`` with ``fix`` makes private files private
  again); ``restore`` refuses while a daemon (or any writer) holds the home.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from tapestryd.clock import check_supported
from tapestryd.config import Settings
from tapestryd.embeddings.model import model_dir
from tapestryd.db import connect
from tapestryd.errors import TapestryError
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, NewEvent, format_utc, parse_utc
from tapestryd.filemodes import mode_check
from tapestryd.operations import backup as backups
from tapestryd.operations.archive import archive_check, forget_in_archive, preview_in_archive
from tapestryd.operations.base import LocalDeps, WriteDeps
from tapestryd.operations.checks import now_of
from tapestryd.operations.compact import compact_log, confirm_compaction
from tapestryd.operations.lock import WriterLock
from tapestryd.operations.requests import (
    BackupRequest,
    BackupsRequest,
    CompactRequest,
    ForgetRequest,
    RestoreRequest,
    VerifyRequest,
)
from tapestryd.operations.results import (
    BackupResult,
    BackupsResult,
    CompactResult,
    ForgetResult,
    RestoreResult,
    VerifyResult,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.privacy import forgotten_id
from tapestryd.projections import Projector, default_projections
from tapestryd.projections.forgetting import ForgetRule, preview
from tapestryd.projections.warmfile import discard, index_file
from tapestryd.queries.conversations import ambiguity, find_conversation
from tapestryd.queries.hook import drop_cached_contexts
from tapestryd.queries.integrity import verify_log
from tapestryd.queries.reader import Reader
from tapestryd.queries.timed_pattern import TimedPattern, check_syntax
from tapestryd.queries.timephrase import parse_when

__all__ = ["MIN_END", "backup", "before_instant", "compact", "forget", "list_backups", "restore", "verify"]

MIN_END = 6
"""Fewest characters of a key's end ``forget --conversation`` accepts (a full key is always accepted).

Stricter than ``search``/``show`` (any unique end): forgetting cannot be undone."""
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d")


def forget(request: ForgetRequest, deps: WriteDeps) -> ForgetResult:
    """Forget a conversation, everything before an instant, or messages matching a regex.

    A pattern is first tried on every stored message within :data:`~tapestryd.queries.timed_pattern.SECONDS`
    in all (nothing is appended when it takes longer). Raises TapestryError unless exactly one rule is given,
    when it names nothing valid, or when its pattern runs out of time.
    """
    runtime = deps.runtime
    runtime.projector.catch_up()
    rule = _rule(request, deps)
    timed = TimedPattern(request.match.strip()) if rule.match else None  # case-insensitive, as the rule
    found = preview(runtime.projector.conn, rule, timed.matches if timed else None)
    if timed:
        timed.check()  # a pattern that backtracks without end would hang the projector applying it
    result: dict[str, Any] = {"rule": asdict(rule), "dry_run": request.dry_run, **found}
    if rule.before:
        result["before_read"] = _before_line(request.before.strip(), rule.before, runtime.settings)
    event = Forgotten(conversation=rule.conversation, before=rule.before, match=rule.match, reason=request.reason)
    if request.dry_run:
        return ForgetResult.from_json({**result, "archive": preview_in_archive(runtime.paths, runtime.store, event)})
    new = NewEvent(forgotten_id(rule.conversation, rule.before, rule.match), event,
                   deps.clock.now(), agent="", source="tapestryctl:forget")
    appended = runtime.store.append([new])
    runtime.projector.catch_up()
    drop_cached_contexts(str(runtime.paths.socket))  # the hook's cached contexts may quote what is forgotten
    return ForgetResult.from_json({**result, "seq": appended.seqs[0], "already_forgotten": appended.known == 1,
                         "archive": forget_in_archive(runtime.paths, runtime.store)})


def _rule(request: ForgetRequest, deps: WriteDeps) -> ForgetRule:
    runtime = deps.runtime
    given = {"conversation": request.conversation.strip(), "before": request.before.strip(),
             "match": request.match.strip()}
    if sum(1 for v in given.values() if v) != 1:
        raise TapestryError("say what to forget with exactly one of --conversation, --before or --match")
    if given["conversation"]:
        return ForgetRule(conversation=_conversation(runtime, given["conversation"]))
    if given["before"]:
        return ForgetRule(before=before_instant(given["before"], runtime.settings,
                                                now_of(request.now, deps.clock, runtime.settings.tz)))
    pattern = given["match"] if given["match"].startswith("(?i)") else "(?i)" + given["match"]
    try:
        check_syntax(given["match"])  # the user's own pattern, so an error's position is theirs
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


def compact(request: CompactRequest, deps: WriteDeps) -> CompactResult:
    """Rewrite forgotten payloads as tombstones (``dry_run``), or ``confirm`` a compaction."""
    if request.confirm:
        return CompactResult.from_json(confirm_compaction(deps.runtime))
    return CompactResult.from_json(compact_log(deps.runtime, dry_run=request.dry_run))


def backup(request: BackupRequest, deps: WriteDeps) -> BackupResult:
    """Back up the event log now and prune old backups (7 daily, 4 weekly)."""
    runtime = deps.runtime
    return BackupResult.from_json(backups.rotate(runtime.paths.events_db, runtime.paths.backups,
                                                 tz=runtime.settings.tz,
                                                 first_day_of_week=runtime.settings.first_day_of_week))


def list_backups(request: BackupsRequest, deps: LocalDeps) -> BackupsResult:
    """Every backup of the home, oldest first (read-only; no lock)."""
    return BackupsResult.from_json([b.to_dict() for b in backups.list_backups(paths_for(deps.settings).backups)])


def verify(request: VerifyRequest, deps: LocalDeps) -> VerifyResult:
    """The verify report of the home's log, projections and raw archive and file modes (runs
    beside a daemon).

    Only reads, except that ``fix`` makes the home's private folders 0700 and files 0600.
    Raises TapestryError when the home has no log.
    """
    paths = paths_for(deps.settings)
    if not paths.events_db.exists():
        raise TapestryError(f"no event log at {paths.events_db}: nothing to verify")
    projections = connect(paths.projections_db, readonly=True) if paths.projections_db.exists() else None
    try:
        report = verify_log(paths.events_db, projections)
    finally:
        if projections is not None:
            projections.close()
    report["checks"].append(archive_check(paths))
    report["checks"].append(mode_check(paths.private_dirs(), paths.private_files(), fix=request.fix))
    report["ok"] = all(c["ok"] for c in report["checks"])
    return VerifyResult.from_json(report)


def restore(request: RestoreRequest, deps: LocalDeps) -> RestoreResult:
    """Replace the home's log by the backup ``request.file`` and rebuild the projections from it.

    Takes the writer lock first, so it refuses (StoreLockedError naming the pid) while a
    daemon or another command writes this home. The replaced log is kept as a
    ``pre-restore-*`` backup. Raises TapestryError, having created nothing, when the home's
    folder does not exist (a mistyped ``--home``; ``tapestryctl init`` starts a new home)
    or ``source`` is not a file.
    """
    settings, source = deps.settings, Path(request.file)
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
        discard(index_file(paths.projections_db))  # and the warm index is fitted from them
        with EventStore(paths.events_db, machine=settings.sync.machine) as store:
            projector = Projector(store, paths.projections_db,
                                  default_projections(settings.timezone, settings.first_day_of_week,
                                                      model_dir(settings.search.embeddings)))
            try:
                result["replayed"] = projector.catch_up()
            finally:
                projector.close()
    return RestoreResult.from_json(result)
