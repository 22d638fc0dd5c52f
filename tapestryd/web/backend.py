"""How the calendar reaches the store: operations through the daemon, or in this process.

When the daemon runs (it may be the very process serving this page), operations go over its
socket, so it stays the one writer; when it does not, they run here through
:func:`~tapestryd.daemon.local.call` (``call_op`` here), which takes the writer lock for a write.
"""

from __future__ import annotations

from typing import Any

from tapestryd.config import Settings
from tapestryd.daemon.client import request
from tapestryd.daemon.local import call as call_op
from tapestryd.errors import DaemonError, DaemonNotRunning
from tapestryd.paths import paths_for

__all__ = ["call_op", "daemon_health"]


def daemon_health(settings: Settings, *, timeout: float = 1.0) -> dict[str, Any]:
    """``{"running": bool, "version": str, "error": str}`` from a ping over the socket (1 s at most)."""
    sock = paths_for(settings).socket
    try:
        pong = request(sock, "ping", {}, timeout=timeout)
    except DaemonNotRunning:
        return {"running": False, "version": "", "error": ""}
    except DaemonError as exc:
        return {"running": True, "version": "", "error": exc.message}
    return {"running": True, "version": str((pong or {}).get("version", "")), "error": ""}
