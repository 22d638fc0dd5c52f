"""How the calendar reaches the store: operations through the daemon, or in this process.

When the daemon runs (it may be the very process serving this page), operations go over its
socket, so it stays the one writer; when it does not, they run here through
:func:`~tapestryd.operations.dispatch.call_with` (``call_result`` here: the typed result), which
takes the writer lock for a write. Requests are named by their types in the table of operations.
"""

from __future__ import annotations

from typing import Any

from tapestryd.config import Settings
from tapestryd.errors import DaemonError, DaemonNotRunning
from tapestryd.operations.dispatch import call_with as call_result
from tapestryd.operations.registry import OPERATIONS
from tapestryd.paths import paths_for
from tapestryd.wire.client import request

__all__ = ["call_result", "daemon_health"]


def daemon_health(settings: Settings, *, timeout: float = 1.0) -> dict[str, Any]:
    """``{"running": bool, "version": str, "error": str}`` from a ping over the socket (1 s at most)."""
    sock = paths_for(settings).socket
    try:
        pong = request(sock, OPERATIONS["ping"].name, {}, timeout=timeout)
    except DaemonNotRunning:
        return {"running": False, "version": "", "error": ""}
    except DaemonError as exc:
        return {"running": True, "version": "", "error": exc.message}
    return {"running": True, "version": str((pong or {}).get("version", "")), "error": ""}
