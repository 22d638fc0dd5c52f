"""The ``sync`` section of ``status``: read from the home's files, apart from the sync operations so
that ``status`` imports neither them nor their request and result types."""

from __future__ import annotations

from typing import Any

from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.events.store import EventStore
from tapestryd.paths import Paths
from tapestryd.sync.state import load_state

__all__ = ["sync_status"]


def sync_status(settings: Settings, paths: Paths) -> dict[str, Any]:
    """The ``sync`` section of ``status``: configured or not, lag, last success and last error.

    ``to_push`` counts this machine's events after the push checkpoint; ``to_pull`` the hub
    rows after the pull checkpoint as of the last contact with the hub. Standard library and
    SQLite only (the fast path's ``status`` answers it).
    """
    conf = settings.sync
    found: dict[str, Any] = {"enabled": conf.enabled, "machine": conf.machine, "key": paths.sync_key.exists()}
    if not conf.enabled:
        return found
    state = load_state(paths.sync_state)
    found.update(hub=conf.safe_url, last_success=state.get("last_success", ""),
                 last_error=state.get("last_error", {}), skipped_total=int(state.get("skipped_total", 0)))
    if paths.events_db.exists():
        try:
            with EventStore(paths.events_db, readonly=True, machine=conf.machine) as store:
                pushed, pulled = store.checkpoint("sync.pushed"), store.checkpoint("sync.pulled")
                found["to_push"] = store.count(after=pushed, origin=conf.machine)
        except TapestryError as exc:
            found["error"] = exc.message
            return found
        found["to_pull"] = max(0, int(state.get("hub_head", 0)) - pulled)
    return found
