"""Sync commands: ``sync`` (one round now), ``sync init`` (the key), ``sync status`` (the lag).

``sync`` runs through the daemon when it listens (the round runs on its sync thread), else
here with the writer lock held (:mod:`tapestryd.operations.syncing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit
from tapestryd.errors import SyncError
from tapestryd.operations import requests as rq

if TYPE_CHECKING:
    from tapestryd.operations.results import SyncInitResult, SyncResult, SyncStatusResult

__all__ = ["sync_app"]

sync_app = typer.Typer(help="Several machines, one memory: sync the event log through a PostgreSQL hub.",
                       invoke_without_command=True)
app.add_typer(sync_app, name="sync")


@sync_app.callback()
def sync(ctx: typer.Context,
         from_start: bool = typer.Option(False, "--from-start",
                                         help="Pull the whole hub again (what was skipped before comes in)."),
         batch: int = typer.Option(2000, "--batch", min=1, max=50_000,
                                   help="Events per hub transaction and per local append."),
         fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Push this machine's events to the hub and pull the others' now (without a subcommand)."""
    from tapestryd.operations.syncing import ROUND_TIMEOUT

    if ctx.invoked_subcommand is not None:
        return
    emit(call(ctx, rq.SyncRequest, {"from_start": from_start, "batch": batch}, timeout=ROUND_TIMEOUT), fmt,
         render_round)


@sync_app.command("init")
def init(ctx: typer.Context,
         key: Optional[str] = typer.Option(None, "--key",
                                           help="The passphrase `sync init` showed on the first machine."),
         force: bool = typer.Option(False, "--force", help="Replace a different key already on this machine."),
         fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Create this machine's sync key (shown once), or take the first machine's with --key."""
    if key is not None and not key.strip():  # `--key "$KEY"` with KEY unset: not a request for a new key
        raise SyncError("--key is empty: paste the passphrase `tapestryctl sync init` showed on the first machine")
    emit(call(ctx, rq.SyncInitRequest, {"key": key or "", "force": force}), fmt, render_init)


@sync_app.command("status")
def status(ctx: typer.Context, fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """The sync lag: events to push and to pull, the last success and the last error."""
    emit(call(ctx, rq.SyncStatusRequest, {}), fmt, render_status)


def render_round(data: SyncResult) -> str:
    """One round as text: what moved each way, and each skipped hub row with its reason."""
    push, pull, gone = data.push, data.pull, data.forgotten
    lines = [f"sync {data.machine} ⇄ {data.hub} in {data.seconds:.1f} s",
             f"pushed: {push.new} new of {push.seen} events",
             f"pulled: {pull.new} new of {pull.seen} hub rows",
             f"forgotten: {data.forgotten_pushed} tombstones sent, {gone.new} events blanked here"]
    for part in (pull, gone):
        if part.skipped:
            lines.append(f"skipped {part.skipped} hub rows:")
            lines.extend(f"  hub row {row.seq} (event {row.event_id}): {row.reason}" for row in part.skipped_rows)
    return "\n".join(lines)


def render_init(data: SyncInitResult) -> str:
    """The key's id and path; a new key's passphrase, once, with what to do with it."""
    if not data.created:
        return f"sync key {data.key_id} at {data.path} (machine {data.machine})"
    return "\n".join([
        f"created sync key {data.key_id} at {data.path} (mode 0600; machine {data.machine})",
        "",
        f"  {data.passphrase}",
        "",
        "This passphrase is shown once. On each other machine run:",
        "  tapestryctl sync init --key <passphrase>",
        "Without it, what this machine sends to the hub cannot be read anywhere else.",
    ])


def render_status(data: SyncStatusResult) -> str:
    """The ``sync`` section of status as a few lines."""
    if not data.enabled:
        return f"sync: off (machine {data.machine}; set [sync] url in tapestry.toml)"
    error = data.last_error or {}
    lines = [f"sync: machine {data.machine} ⇄ {data.hub}" + ("" if data.key else " (no key: run"
                                                              " `tapestryctl sync init`)"),
             f"to push: {data.to_push or 0} events; to pull: {data.to_pull or 0} hub rows (at the last contact)",
             f"last success: {data.last_success or 'never'}",
             f"last error: {error['at']} {error['message']}" if error else "last error: none"]
    if data.skipped_total:
        lines.append(f"hub rows skipped so far: {data.skipped_total} (see `tapestryctl sync`)")
    return "\n".join(lines)
