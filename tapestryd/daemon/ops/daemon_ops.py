"""Daemon operations: status, pause, resume, reload, and the interim ``context``.

``status`` works everywhere: through the daemon it includes the daemon's own state, run
locally it says the daemon is not running. ``pause``, ``resume`` and ``reload`` steer the
running daemon: they touch no database, so they are registered as read operations and
run at once on a server thread (never behind a long import on the writer). The server
hands them the daemon in ``args["_daemon"]`` (a :class:`DaemonControl`); without it they
raise DaemonNotRunning.

``context`` here is :func:`context_recent_messages`, the most recent raw messages, until
the telescoping context of the queries issue replaces it (delete this function and
register the new one under the same name).
"""

from __future__ import annotations

from typing import Any, Protocol

from tapestryd.daemon.ops.registry import read_op
from tapestryd.db import translate_errors
from tapestryd.errors import DaemonNotRunning, TapestryError
from tapestryd.events.types import parse_utc
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
    """Counts, projection lag and the daemon's state (see :mod:`tapestryd.queries.status`)."""
    control = args.get(DAEMON_ARG)
    return build_status(reader, daemon=control.snapshot() if control is not None else None)


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


@read_op("context")
def context_recent_messages(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """The most recent raw messages, oldest first; args: agent, limit (default 20).

    Interim answer of ``context`` until the telescoping context lands. Returns
    ``{"kind": "recent", "messages": [{conversation, title, agent, role, ts, local_time, text}]}``.
    """
    limit = _limit(args.get("limit"), 20)
    agent = str(args.get("agent") or "")
    where, params = (" WHERE m.agent = ?", [agent]) if agent else ("", [])
    with translate_errors(reader.conn):
        rows = reader.conn.execute(
            "SELECT m.conversation, c.title, m.agent, m.role, m.ts, m.text FROM messages m"
            f" JOIN conversations c ON c.key = m.conversation{where} ORDER BY m.ts DESC, m.id DESC LIMIT ?",
            (*params, limit)).fetchall()
    messages = [
        {"conversation": conv, "title": title, "agent": ag, "role": role, "ts": ts,
         "local_time": parse_utc(ts).astimezone(reader.tz).isoformat(timespec="seconds"), "text": text}
        for conv, title, ag, role, ts, text in reversed(rows)
    ]
    return {"kind": "recent", "agent": agent, "messages": messages}


def _limit(value: Any, default: int) -> int:
    try:
        return max(1, min(int(value or default), 1000))
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"limit must be a number, got {value!r}") from exc
