"""Daemon commands: status, pause, resume, reload, logs, install-service.

``status`` is usually answered by :mod:`tapestryd.cli.fast` before this
module is even imported; these typer commands answer the same when the fast path
declines (the daemon is down: they say so on stderr and read the database read-only).
"""

from __future__ import annotations

import shutil
import subprocess
from collections import deque
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, settings
from tapestryd.cli.fast import render_control, render_status
from tapestryd.operations import requests as rq
from tapestryd.paths import paths_for
from tapestryd.wire.client import request

if TYPE_CHECKING:
    from tapestryd.operations.results import StatusResult

__all__: list[str] = []


@app.command()
def status(ctx: typer.Context, fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Counts, projection lag, and the daemon's state (watched roots, inbox, last errors)."""
    shown = settings(ctx).warnings
    result: StatusResult = call(ctx, rq.StatusRequest, {}, timeout=10)
    emit(result, fmt, lambda data: render_status(_unshown(data, shown).to_json()))


def _unshown(data: StatusResult, shown: tuple[str, ...]) -> StatusResult:
    """``data`` without the daemon's config warnings that loading the settings already printed."""
    if not data.daemon.get("config_warnings"):
        return data
    rest = [line for line in data.daemon["config_warnings"] if line not in shown]
    return replace(data, daemon={**data.daemon, "config_warnings": rest})


def _control(ctx: typer.Context, op: str) -> None:
    shown = settings(ctx).warnings
    result = request(paths_for(settings(ctx)).socket, op, {}, timeout=10)
    result = result if isinstance(result, dict) else {}
    typer.echo(render_control(op, {**result, "warnings": [w for w in result.get("warnings") or [] if w not in shown]}))


@app.command()
def pause(ctx: typer.Context) -> None:
    """Pause tailing, inbox imports and scheduled jobs (queries keep working)."""
    _control(ctx, "pause")


@app.command()
def resume(ctx: typer.Context) -> None:
    """Resume after pause, catching up with every change made meanwhile."""
    _control(ctx, "resume")


@app.command()
def reload(ctx: typer.Context) -> None:
    """Make the running daemon read tapestry.toml again (as SIGHUP does)."""
    _control(ctx, "reload")


@app.command()
def logs(ctx: typer.Context,
         lines: int = typer.Option(20, "--lines", "-n", help="Also print the last N lines of the log (0: none)."),
         platform: Optional[str] = typer.Option(None, "--platform",
                                                help="systemd or launchd (default: this OS).")) -> None:
    """Say where the daemon's logs go, and print their last lines."""
    from tapestryd.daemon.install import LOG_FILE, log_destinations, service_kind

    conf = settings(ctx)
    kind = platform or service_kind()
    logs_dir = paths_for(conf).logs
    typer.echo("in a terminal: tapestryd logs to stderr")
    for where in log_destinations(kind, logs_dir):
        typer.echo(f"as a {kind} service: {where}")
    if lines > 0:
        _show_tail(kind, logs_dir / LOG_FILE, lines)


def _show_tail(kind: str, log_file: Path, lines: int) -> None:
    if log_file.is_file():
        with log_file.open(encoding="utf-8", errors="replace") as fh:
            typer.echo("".join(deque(fh, maxlen=lines)).rstrip("\n"))
    elif kind == "systemd" and shutil.which("journalctl"):
        from tapestryd.daemon.install import UNIT

        subprocess.run(["journalctl", "--user", "-u", UNIT, "-n", str(lines), "--no-pager"], check=False)


@app.command("install-service")
def install_service(ctx: typer.Context,
                    dry_run: bool = typer.Option(False, "--dry-run",
                                                 help="Print the unit and commands; write nothing."),
                    platform: Optional[str] = typer.Option(None, "--platform",
                                                           help="systemd or launchd (default: this OS).")) -> None:
    """Write the systemd user unit (Linux) or launchd agent (macOS) and print how to enable it."""
    from tapestryd.daemon.install import plan_service, service_kind, write_service

    conf = settings(ctx)
    logs_dir = paths_for(conf).logs
    plan = plan_service(kind=platform or service_kind(), home=conf.home, logs_dir=logs_dir)
    if dry_run:
        typer.echo(f"# would write {plan.target}\n{plan.content}")
    else:
        replaced = write_service(plan, logs_dir=logs_dir)
        typer.echo(f"{'replaced' if replaced else 'wrote'} {plan.target}")
    typer.echo("enable it with:\n" + "\n".join(f"  {c}" for c in plan.commands))
    typer.echo("logs: " + ", ".join(plan.logs))
