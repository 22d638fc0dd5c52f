"""What the last sync rounds did, kept in ``<data>/sync-state.json`` for ``status`` (standard library only).

The file holds ``last_success`` and ``last_error`` (``{"at", "message"}``), the last round's
report, the hub's head as last seen (``hub_head``: its highest ``hub_seq``) and the total of
hub rows skipped so far. It is written whole, atomically, by whichever process ran the round
(the daemon's job or ``tapestryctl sync``); a missing or damaged file reads as no round yet.
The checkpoints themselves live in the log (``sync.pushed``, ``sync.pulled``, ...), never here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["load_state", "record_error", "record_success"]


def load_state(path: Path) -> dict[str, Any]:
    """The stored state (``{}`` when there is none or it does not parse)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(state, out, indent=1)
    os.replace(tmp, path)


def record_success(path: Path, at: str, report: dict[str, Any], hub_head: int) -> dict[str, Any]:
    """Save a round that finished at ``at`` (ISO UTC) with ``report``; returns the new state."""
    state = load_state(path)
    skipped = sum(int(report.get(part, {}).get("skipped", 0)) for part in ("pull", "forgotten"))
    state.update(last_success=at, last_round=report, hub_head=hub_head,
                 skipped_total=int(state.get("skipped_total", 0)) + skipped)
    _save(path, state)
    return state


def record_error(path: Path, at: str, message: str) -> dict[str, Any]:
    """Save a round that failed at ``at`` with ``message``; returns the new state."""
    state = load_state(path)
    state["last_error"] = {"at": at, "message": message}
    _save(path, state)
    return state
