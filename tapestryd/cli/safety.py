"""Safety commands: backup, restore, verify, forget, compact.

``backup``, ``forget`` and ``compact`` run through the daemon when it runs (it is the one
writer), else here under the writer lock. ``verify`` only reads, so it runs here even
beside a daemon. ``restore`` replaces the log and refuses while a daemon runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, settings, warn
from tapestryd.errors import DaemonError, TapestryError
from tapestryd.operations import requests as rq
from tapestryd.paths import paths_for
from tapestryd.plural import counted

if TYPE_CHECKING:
    from tapestryd.operations.results import (BackupResult, BackupsResult, CompactResult, ForgetResult, RestoreResult,
                                              VerifyResult)

__all__: list[str] = []


@app.command()
def backup(ctx: typer.Context,
           list_: bool = typer.Option(False, "--list", help="List the backups instead of taking one."),
           fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Back up the event log into <data>/backups (keeps 7 daily and 4 weekly copies)."""
    if list_:
        emit(call(ctx, rq.BackupsRequest, {}), fmt, _render_backups)
        return
    emit(call(ctx, rq.BackupRequest, {}, timeout=3600), fmt, _render_backup)


def _render_backups(result: BackupsResult) -> str:
    if not result.backups:
        return "no backups yet (`tapestryctl backup` takes one)"
    return "\n".join(f"{r.taken_at[:19]}  {r.label:<12} {r.size / 1e6:8.2f} MB  {r.path}" for r in result.backups)


def _render_backup(result: BackupResult) -> str:
    lines = [f"backed up to {result.backup.path} ({result.backup.size / 1e6:.2f} MB)",
             f"{result.kept} rotation backups kept"]
    lines.extend(f"pruned {p}" for p in result.pruned)
    return "\n".join(lines)


@app.command()
def restore(ctx: typer.Context, file: Path = typer.Argument(..., help="A backup file (see `backup --list`).")) -> None:
    """Replace the event log by a backup and rebuild the projections (the daemon must be stopped)."""
    conf = settings(ctx)
    _refuse_if_daemon(paths_for(conf).socket)
    result: RestoreResult = call(ctx, rq.RestoreRequest, {"file": str(file)})
    typer.echo(f"restored {result.restored} (log at seq {result.last_seq}, {result.replayed} events replayed)")
    if result.previous:
        typer.echo(f"the replaced log is kept as {result.previous}")


def _refuse_if_daemon(sock: Path) -> None:
    from tapestryd.wire.client import request

    if not sock.exists():
        return
    try:
        pong = request(sock, "status", {}, timeout=5)
    except DaemonError:
        return
    pid = (pong.get("daemon") or {}).get("pid", "?") if isinstance(pong, dict) else "?"
    raise TapestryError(f"tapestryd is running (pid {pid}); stop it before restoring "
                        "(`systemctl --user stop tapestryd`, or Ctrl-C in its terminal)")


@app.command()
def verify(ctx: typer.Context,
           fix: bool = typer.Option(False, "--fix", help="Make data/backup/cache folders 0700 and databases, "
                                    "backups and .env 0600 where others could read them."),
           fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Check the event log (integrity, seq order, payloads), projection checkpoints and file modes."""
    report: VerifyResult = call(ctx, rq.VerifyRequest, {"fix": fix})
    emit(report, fmt, _render_verify)
    if not report.ok:
        raise typer.Exit(1)


def _render_verify(report: VerifyResult) -> str:
    lines = [f"{report.events_db}: {report.events} events, last seq {report.last_seq}"]
    for check in report.checks:
        lines.append(f"  {'ok  ' if check.ok else 'FAIL'}  {check.name:<12} {check.detail}")
        lines.extend(f"          {p}" for p in check.problems)
    failed = {c.name for c in report.checks if not c.ok}
    if not failed:
        lines.append("verified: the log is intact")
    elif failed == {"modes"}:
        lines.append("verify FAILED: others can read private files; `tapestryctl verify --fix` makes them private")
    else:
        lines.append("verify FAILED: see above; "
                     "`tapestryctl backup --list` and `tapestryctl restore FILE` recover from a backup")
    return "\n".join(lines)


@app.command()
def forget(ctx: typer.Context,
           conversation: Optional[str] = typer.Option(None, "--conversation",
                                                  help="A conversation key, or its unique end of 6 or more "
                                                       "characters (stricter than search/show's any unique end, as "
                                                       "forgetting cannot be undone)."),
           before: Optional[str] = typer.Option(None, "--before", help="Everything before this: a local date "
                                                "(2024-06-14), month (2024-06), year (2024), ISO time, or a phrase "
                                                "('yesterday', 'last 3 months': before the start of what it names)."),
           match: Optional[str] = typer.Option(
               None, "--match", help="Messages whose text matches this Python regex, case-insensitive like "
                                 "`search --regex` ((?-i:...) for an exact case; the pattern is kept in the log)."),
           reason: str = typer.Option("", "--reason", help="A note kept with the Forgotten event."),
           dry_run: bool = typer.Option(False, "--dry-run", help="Only say what would be forgotten."),
           fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Forget messages: they leave search, context and summaries; `compact` removes them from the log."""
    args = {"conversation": conversation, "before": before, "match": match, "reason": reason, "dry_run": dry_run}
    emit(call(ctx, rq.ForgetRequest, args, timeout=600), fmt, _render_forget)


def _render_forget(result: ForgetResult) -> str:
    head = f"{result.before_read}\n" if result.before_read else ""
    return head + _forget_outcome(result) + _archive_outcome(result.archive, result.dry_run)


def _archive_outcome(done: Mapping[str, int], dry_run: bool) -> str:
    """The raw archive's share of a forget (nothing when it had, or would have, nothing to do)."""
    if not (done.get("dropped") or done.get("lines")):
        return ""
    if dry_run:
        return (f"\nraw archive: would drop {done['dropped']} file versions and remove {done['lines']} lines from "
                f"{done['rewritten']}")
    return (f"\nraw archive: {done['dropped']} file versions dropped, {done['lines']} lines removed from "
            f"{done['rewritten']} (those are no longer byte-exact)")


def _forget_outcome(result: ForgetResult) -> str:
    what = f"{counted(result.messages, 'message')} in {counted(result.conversations, 'conversation')}"
    if result.dry_run:
        sample = "".join(f"\n  {key}" for key in result.sample)
        return f"would forget {what}{sample}"
    if result.already_forgotten:
        return f"already forgotten (nothing more matched: {what})"
    return (f"forgot {what} (event seq {result.seq}); the summaries that held them are blank until "
            "summarized again (the daemon does it, or `tapestryctl iterate`); the log still holds their text until "
            "`tapestryctl compact`")


@app.command()
def compact(ctx: typer.Context,
            dry_run: bool = typer.Option(False, "--dry-run", help="Only count what would be rewritten."),
            confirm: bool = typer.Option(False, "--confirm",
                                         help="Delete the pre-compact backup and scrub the others."),
            fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Rewrite the log without the text of forgotten messages (keeps a backup until --confirm)."""
    if dry_run and confirm:
        raise TapestryError("--dry-run and --confirm cannot go together")
    result = call(ctx, rq.CompactRequest, {"dry_run": dry_run, "confirm": confirm}, timeout=3600)
    emit(result, fmt, _render_confirm if confirm else _render_compact)


def _render_compact(result: CompactResult) -> str:
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted((result.rewritten or {}).items())) or "nothing"
    if result.dry_run:
        return f"would rewrite: {counts}"
    if not result.backup:
        return "nothing to compact"
    before, after = (result.bytes_before or 0) / 1e6, (result.bytes_after or 0) / 1e6
    return (f"rewrote {counts}; {before:.2f} MB → {after:.2f} MB\n"
            f"the log before compaction is kept at {result.backup}\n"
            "check your memory, then `tapestryctl compact --confirm` deletes it and scrubs older backups")


def _render_confirm(result: CompactResult) -> str:
    lines = [f"deleted {p}" for p in result.deleted or ()]
    lines.extend(f"scrubbed {n} events in {p}" for p, n in (result.scrubbed or {}).items())
    if not lines:
        warn("no pre-compact backup found; nothing to confirm")
    return "\n".join(lines) or "nothing to confirm"
