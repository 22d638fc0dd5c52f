"""Daemon operations: status, pause, resume, reload.

``status`` works everywhere: through the daemon it includes the daemon's own state, run
locally it says the daemon is not running. ``pause``, ``resume`` and ``reload`` steer the
running daemon: they touch no database, so they are registered as read operations and
run at once on a server thread (never behind a long import on the writer). The server
hands them the daemon in ``args["_daemon"]`` (a :class:`DaemonControl`); without it they
raise DaemonNotRunning.
"""

from __future__ import annotations

from typing import Any, Protocol

from tapestryd.daemon.ops.archive_ops import archive_status
from tapestryd.daemon.ops.registry import read_op
from tapestryd.errors import DaemonNotRunning
from tapestryd.queries import sources as _sources  # noqa: F401  (registers the status section "sources")
from tapestryd.queries.reader import Reader
from tapestryd.queries.status import build_status

__all__ = ["DAEMON_ARG", "DaemonControl"]

DAEMON_ARG = "_daemon"


class DaemonControl(Protocol):
    """What the running daemon offers to operations (implemented by the daemon's Service)."""

    def snapshot(self) -> dict[str, Any]:
        """The daemon's own state: pid, uptime, watched roots, paused, last import, last errors."""

    def pause(self) -> dict[str, Any]:
        """Stop tailing, inbox imports and scheduled jobs (queries and explicit ingests go on)."""

    def resume(self) -> dict[str, Any]:
        """Undo :meth:`pause` and catch up with what changed meanwhile."""

    def reload(self) -> dict[str, Any]:
        """Read tapestry.toml again and apply it (as SIGHUP does)."""


def _control(args: dict[str, Any]) -> DaemonControl:
    control = args.get(DAEMON_ARG)
    if control is None:
        raise DaemonNotRunning("tapestryd is not running (start it with `tapestryd`, or `tapestryctl install-service`)")
    return control  # type: ignore[no-any-return]


@read_op("status")
def status(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Counts, projection lag, the daemon's state (see :mod:`tapestryd.queries.status`) and the raw archive."""
    control = args.get(DAEMON_ARG)
    status = build_status(reader, daemon=control.snapshot() if control is not None else None)
    return {**status, "archive": archive_status(reader.settings, reader.paths)}


@read_op("pause")
def pause(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Pause tailing, the inbox and scheduled jobs."""
    return _control(args).pause()


@read_op("resume")
def resume(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Resume after :func:`pause`."""
    return _control(args).resume()


@read_op("reload")
def reload(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Reload tapestry.toml in the running daemon."""
    return _control(args).reload()

