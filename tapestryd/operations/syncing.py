"""Sync operations: ``sync`` (one round now), ``sync_round`` (the daemon's half), ``sync_init``,
``sync_status``, and the ``sync`` section of ``status`` (:mod:`~tapestryd.operations.sync_section`,
which ``status`` imports alone).

A round (:func:`run_round`) is the same wherever it runs: the hub is asked on the calling
thread, the log is read through ``store`` and written only through ``write``. The CLI without
a daemon runs it with the writer lock held and ``write`` calling straight into its store; the
daemon runs it on its sync thread (the scheduled job, or ``sync_round`` from the socket) with
``write`` queueing onto the writer thread, so a slow or unreachable hub never holds up
capture, search or summaries (every hub call has a timeout; see :mod:`tapestryd.sync.hub`).

After the pull, a Forgotten event that came from another machine is applied to the raw
archive here too (:func:`~tapestryd.operations.archive.forget_in_archive`); tombstones that
came in leave the file through ``VACUUM``. SQLAlchemy, psycopg and cryptography are imported
only inside these functions.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any, Callable

from tapestryd.config import Settings
from tapestryd.errors import DaemonNotRunning, SyncError, TapestryError
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, format_utc
from tapestryd.operations.base import LocalDeps, ReadDeps
from tapestryd.operations.requests import SyncInitRequest, SyncRequest, SyncRoundRequest, SyncStatusRequest
from tapestryd.operations.results import SyncInitResult, SyncResult, SyncStatusResult
from tapestryd.operations.sync_section import sync_status
from tapestryd.paths import Paths, paths_for
from tapestryd.sync.state import record_error, record_success

__all__ = ["ROUND_TIMEOUT", "run_round", "sync", "sync_init", "sync_round", "sync_status", "sync_status_op"]

ROUND_TIMEOUT = 6 * 3600.0
"""Seconds ``tapestryctl sync`` waits for the daemon's round (joining a big hub takes minutes)."""
_HUB_CHECKPOINT = "sync.hub"


def _now() -> str:
    return format_utc(datetime.now(timezone.utc))


def run_round(settings: Settings, store: EventStore, write: Callable[[Callable[[EventStore], Any]], Any], *,
              from_start: bool = False, batch: int = 2000,
              stop: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    """Push, push tombstones, pull, pull tombstones; record the outcome in ``sync-state.json``.

    Returns the round's report (see :class:`~tapestryd.operations.results.SyncResult`). Raises
    SyncError (recorded as ``last_error``) when no hub or key is set up or the hub fails; what
    committed before stays, covered by its checkpoints. ``batch``: events per hub transaction
    and per local append. Raises TapestryError for a batch outside 1 to 50,000.
    """
    if not 1 <= batch <= 50_000:
        raise TapestryError(f"--batch must be between 1 and 50000, got {batch}")
    paths = paths_for(settings)
    try:
        report = _round(settings, paths, store, write, from_start, batch, stop)
    except SyncError as exc:
        record_error(paths.sync_state, _now(), exc.message)
        raise
    record_success(paths.sync_state, _now(), report, report.pop("hub_head"))
    return report


def _round(settings: Settings, paths: Paths, store: EventStore, write: Callable[[Callable[[EventStore], Any]], Any],
           from_start: bool, batch: int, stop: Callable[[], bool]) -> dict[str, Any]:
    from tapestryd.operations.archive import forget_in_archive
    from tapestryd.operations.compact import COMPACTIONS, is_tombstone, squeeze, tombstones
    from tapestryd.sync import engine
    from tapestryd.sync.crypto import Sealer, load_key
    from tapestryd.sync.hub import Hub

    conf = settings.sync
    if not conf.enabled:
        raise SyncError("no sync hub is configured: set [sync] url in tapestry.toml (the password in"
                        " TAPESTRY_SYNC_PASSWORD), or the whole URL in TAPESTRY_SYNC_URL")
    sealer = Sealer(load_key(paths.sync_key))
    started = time.monotonic()
    with Hub(conf.url) as hub:
        hub.claim_key(sealer.key_id)
        if store.checkpoint(_HUB_CHECKPOINT) != hub.identity:
            # another hub than last time: every position starts over (both directions are idempotent)
            write(lambda s: s.append((), checkpoints={_HUB_CHECKPOINT: hub.identity, engine.PUSHED: 0,
                                                     engine.PULLED: 0, engine.FORGOTTEN: 0,
                                                     engine.FORGOTTEN_PUSHED: 0}))
        elif from_start:
            write(lambda s: s.append((), checkpoints={engine.PULLED: 0, engine.FORGOTTEN: 0}))
        pushed = engine.push(hub, sealer, store, conf.machine, write, batch=batch, stop=stop)
        forgotten_pushed = 0
        compactions = store.checkpoint(COMPACTIONS)
        if compactions > store.checkpoint(engine.FORGOTTEN_PUSHED):
            local = tombstones(store.conn)
            forgotten_pushed = engine.push_forgotten(hub, sealer, conf.machine,
                                                     store.at(sorted(seq for seq, _ in local.values())),
                                                     compactions, write)
        pulled = engine.pull(hub, sealer, store, conf.machine, write, batch=batch, stop=stop)
        forgotten = engine.pull_forgotten(hub, sealer, store, write, is_tombstone, batch=batch)
        head = hub.head()
    if pulled.new_types.get(Forgotten.type):
        write(lambda s: forget_in_archive(paths, s))
    if forgotten.new:
        write(lambda s: squeeze(s.conn))
    return {"machine": conf.machine, "hub": conf.safe_url, "push": pushed.to_json(), "pull": pulled.to_json(),
            "forgotten_pushed": forgotten_pushed, "forgotten": forgotten.to_json(),
            "seconds": round(time.monotonic() - started, 3), "hub_head": head}


def sync(request: SyncRequest, deps: LocalDeps) -> SyncResult:
    """One round now: by the running daemon when it listens, else here with the writer lock held.

    Raises SyncError when sync is not set up or the hub fails, StoreLockedError when another
    process (not a daemon) writes the home.
    """
    from tapestryd.operations.codec import encode
    from tapestryd.operations.runtime import Runtime
    from tapestryd.wire.client import request as ask

    settings = deps.settings
    paths = paths_for(settings)
    if paths.socket.exists():
        try:
            return SyncResult.from_json(ask(paths.socket, "sync_round",
                                  encode(SyncRoundRequest(request.from_start, request.batch)), timeout=ROUND_TIMEOUT))
        except DaemonNotRunning:
            pass
    with Runtime.open(settings, role="cli") as runtime:
        report = run_round(settings, runtime.store, lambda fn: fn(runtime.store), from_start=request.from_start,
                           batch=request.batch)
        runtime.projector.catch_up()
        runtime.projector.upgrade()  # as every write run in this process (operations.dispatch)
    return SyncResult.from_json(report)


def sync_round(request: SyncRoundRequest, deps: ReadDeps) -> SyncResult:
    """The daemon runs one round now (after the one in progress, if any); DaemonNotRunning without a daemon."""
    if deps.control is None:
        raise DaemonNotRunning("tapestryd is not running; `tapestryctl sync` runs the round itself")
    return SyncResult.from_json(deps.control.sync_now(request.from_start, request.batch))


def sync_init(request: SyncInitRequest, deps: LocalDeps) -> SyncInitResult:
    """Create (or take from ``request.key``) this machine's sync key, stored 0600 as ``<data>/sync.key``.

    A new key's passphrase is in the result, once: copy it to the other machines. Raises
    SyncError for a mistyped passphrase, or when a different key is already here (``force``
    replaces it).
    """
    from tapestryd.sync.crypto import key_from_passphrase, key_id, load_key, new_key, passphrase, save_key

    settings = deps.settings
    paths = paths_for(settings)
    key = key_from_passphrase(request.key) if request.key.strip() else None
    if paths.sync_key.exists():
        held = load_key(paths.sync_key)
        if key is None or key == held:
            return SyncInitResult.from_json(_described(settings, paths, held, key_id, created=False))
        if not request.force:
            raise SyncError(f"{paths.sync_key} holds another key (id {key_id(held)}); add --force to replace it"
                            " (events this machine sealed with it will no longer open elsewhere)")
    created = key is None
    key = key or new_key()
    paths.ensure()
    save_key(paths.sync_key, key)
    found = _described(settings, paths, key, key_id, created=created)
    return SyncInitResult.from_json({**found, "passphrase": passphrase(key)} if created else found)


def _described(settings: Settings, paths: Paths, key: bytes, key_id: Callable[[bytes], str], *,
               created: bool) -> dict[str, Any]:
    return {"created": created, "key_id": key_id(key), "path": str(paths.sync_key), "machine": settings.sync.machine,
            "hub": settings.sync.safe_url}


def sync_status_op(request: SyncStatusRequest, deps: LocalDeps) -> SyncStatusResult:
    """:func:`sync_status` of the caller's home (no daemon needed: it reads files only)."""
    return SyncStatusResult.from_json(sync_status(deps.settings, paths_for(deps.settings)))
