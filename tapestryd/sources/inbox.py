"""The import inbox: a file or folder dropped into the inbox folder is imported once complete, then filed away.

* A file is complete when its size and modification time have not changed for
  ``settle`` seconds (:class:`SettleTracker`); names a browser or editor uses while still
  writing (``*.part``, ``*.crdownload``, ``*.tmp``, dot-files) are never picked up. A
  folder (other than ``processed/`` and ``failed/``) is complete when the total size, the
  number and the newest modification time of everything under it have not changed for
  ``settle`` seconds (:func:`folder_stamp`), so a folder still being copied waits.
* :func:`import_inbox_file` imports it with :func:`tapestryd.sources.ingest.ingest_file`
  (format detected from content; a folder's files as ``ingest FOLDER`` would), then moves
  it to ``inbox/processed/YYYY-MM-DD/`` (the local date); a file or folder that cannot be
  imported (nothing imported and some error) moves to ``inbox/failed/`` beside
  ``<name>.error.txt`` saying what was wrong; one that imported with some errors (a bad ZIP
  beside a good export in a folder) goes to processed/ and its errors are in the receipt, the
  outcome's ``error`` and the ``inbox.imported`` log line. A name already taken gets ``-2``, ``-3``, ...
  Dropping the same export twice adds nothing: event ids make the import idempotent.
* :class:`InboxWatcher` runs a thread that watches the folder (native events, a rescan
  every ``rescan`` seconds as a safety net) and hands each complete file to
  ``on_ready(path)``, one at a time.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

import structlog

from tapestryd.config import Settings
from tapestryd.errors import StoreError, TapestryError
from tapestryd.events.store import EventStore
from tapestryd.sources.ingest import ingest_file
from tapestryd.sources.watch import FolderWatcher

__all__ = ["ImportInterrupted", "InboxOutcome", "InboxWatcher", "SettleTracker", "file_away", "folder_stamp",
           "import_inbox_file", "is_candidate", "list_inbox"]

log = structlog.get_logger(__name__)

PARTIAL_SUFFIXES = (".part", ".partial", ".crdownload", ".download", ".tmp", ".swp", ".error.txt")
SUBFOLDERS = ("processed", "failed")


class ImportInterrupted(Exception):
    """Shutdown began during an import; the file stays in the inbox and is imported next time."""


def is_candidate(path: str) -> bool:
    """Whether a file name in the inbox is one to import (not hidden, not a partial download)."""
    name = os.path.basename(path)
    return not name.startswith(".") and not name.lower().endswith(PARTIAL_SUFFIXES)


class SettleTracker:
    """Tells which files stopped changing: unchanged ``(size, mtime)`` for ``settle`` seconds."""

    def __init__(self, settle: float = 1.0) -> None:
        self.settle = settle
        self._seen: dict[str, tuple[tuple[int, int], float]] = {}

    def observe(self, files: Mapping[str, tuple[int, int]], now: float) -> list[str]:
        """Record a listing ``path → (size, mtime_ns)`` taken at ``now`` (s); return the settled paths.

        A returned path is forgotten, so it is handed out once per change.
        """
        ready = []
        for path, stamp in files.items():
            previous = self._seen.get(path)
            if previous is None or previous[0] != stamp:
                self._seen[path] = (stamp, now)
            elif now - previous[1] >= self.settle:
                ready.append(path)
        for path in [p for p in self._seen if p not in files or p in ready]:
            del self._seen[path]
        return sorted(ready)

    @property
    def waiting(self) -> bool:
        """Whether some file is still settling."""
        return bool(self._seen)


def list_inbox(inbox: Path) -> dict[str, tuple[int, int]]:
    """Candidate regular files and folders directly in ``inbox`` (not processed/, failed/):
    path → (size, mtime_ns), a folder's from :func:`folder_stamp`; an empty folder is not one yet."""
    found = {}
    try:
        entries = list(os.scandir(inbox))
    except OSError:
        return {}
    for entry in entries:
        if not is_candidate(entry.path):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                info = entry.stat(follow_symlinks=False)
                found[entry.path] = (info.st_size, info.st_mtime_ns)
            elif entry.is_dir(follow_symlinks=False) and entry.name not in SUBFOLDERS:
                stamp = folder_stamp(Path(entry.path))
                if stamp[0]:  # an empty folder waits until something is copied into it
                    found[entry.path] = stamp
        except OSError:
            continue
    return found


def folder_stamp(folder: Path) -> tuple[int, int]:
    """``(bytes + entries, newest mtime_ns)`` of everything under ``folder`` (itself included):
    changes whenever a file under it is added, removed, grown or rewritten."""
    newest = folder.stat().st_mtime_ns
    total = 0
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            total += 1 + (info.st_size if stat.S_ISREG(info.st_mode) else 0)
            newest = max(newest, info.st_mtime_ns)
    return total, newest


@dataclass(frozen=True)
class InboxOutcome:
    """One inbox file's fate: where it went, whether it imported, its receipt and error text
    (why it failed, or the errors of an import that still went through; '' when none)."""

    source: str
    moved_to: str
    ok: bool
    receipt: dict[str, Any] | None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for ``status``)."""
        return {"source": self.source, "moved_to": self.moved_to, "ok": self.ok, "error": self.error,
                "receipt": self.receipt}


def import_inbox_file(store: EventStore, path: Path, *, settings: Settings, today: date | None = None,
                      should_stop: Callable[[], bool] = lambda: False) -> InboxOutcome:
    """Import ``path`` (a file or folder) and file it under processed/ or failed/ (see the module docstring).

    Raises ImportInterrupted (leaving the file where it is) when ``should_stop()`` turns
    true during the import; StoreError when the log cannot be written (file left too).
    """
    inbox = path.parent
    day = today or datetime.now(settings.tz).date()
    try:
        receipt = ingest_file(store, path, settings=settings, agent=None, parser="auto",
                              progress=_interrupter(should_stop)).to_dict()
    except StoreError:
        raise
    except TapestryError as exc:
        return _failed(path, inbox, exc.message, None)
    except (ValueError, ArithmeticError, LookupError, TypeError, RecursionError) as exc:
        # a defect met on this file's content: file it as failed with the reason rather than
        # retry it on every sweep for good
        log.exception("inbox.import_crashed", file=path.name)
        return _failed(path, inbox, f"internal error while importing: {type(exc).__name__}: {exc}", None)
    problem = _receipt_failure(receipt)
    if problem:
        return _failed(path, inbox, problem, receipt)
    moved = file_away(path, inbox / "processed" / day.isoformat())
    errors = [str(e) for e in receipt.get("errors", [])]
    (log.warning if errors else log.info)("inbox.imported", file=path.name, moved_to=str(moved),
                                          messages=receipt.get("messages"), errors=errors)
    return InboxOutcome(str(path), str(moved), True, receipt, "\n".join(errors))


def _interrupter(should_stop: Callable[[], bool]) -> Callable[[int, int, str], None]:
    def progress(done: int, total: int, name: str) -> None:
        if should_stop():
            raise ImportInterrupted(f"shutdown during the import of {name}")

    return progress


def _receipt_failure(receipt: dict[str, Any]) -> str:
    """Why a receipt counts as a failed import ('' when it does not): nothing imported, errors."""
    if not receipt.get("failed"):
        return ""
    return "\n".join(str(e) for e in receipt.get("errors", [])) or "nothing could be imported"


def _failed(path: Path, inbox: Path, message: str, receipt: dict[str, Any] | None) -> InboxOutcome:
    moved = file_away(path, inbox / "failed")
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    moved.with_name(moved.name + ".error.txt").write_text(
        f"tapestryd could not import {path.name} ({stamp}):\n{message}\n", encoding="utf-8")
    log.warning("inbox.failed", file=path.name, moved_to=str(moved), error=message.splitlines()[0] if message else "")
    return InboxOutcome(str(path), str(moved), False, receipt, message)


def file_away(path: Path, folder: Path) -> Path:
    """Move ``path`` (a file or folder) into ``folder`` (created), never over an existing entry.

    Returns where it went.
    """
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    counter = 2
    while target.exists():
        target = folder / f"{path.stem}-{counter}{path.suffix}"
        counter += 1
    shutil.move(str(path), target)
    return target


class InboxWatcher:
    """Watches ``inbox`` and calls ``on_ready(path)`` for each complete file or folder, one at a time.

    ``settle`` seconds without change make a file complete; ``rescan`` seconds is the
    longest the folder goes unlisted when no event arrives. ``polling`` and
    ``debounce`` are passed to the :class:`~tapestryd.sources.watch.FolderWatcher`.
    """

    def __init__(self, inbox: Path, on_ready: Callable[[Path], None], *, settle: float = 1.0,
                 rescan: float = 30.0, polling: bool = False, debounce: float = 0.05) -> None:
        self.inbox, self.on_ready, self.rescan = inbox, on_ready, rescan
        self.tracker = SettleTracker(settle)
        self._wake, self._stop = threading.Event(), threading.Event()
        self._watcher = FolderWatcher(lambda files, folders: self._wake.set(), accept=is_candidate,
                                      recursive=False, debounce=debounce, polling=polling)
        self._thread = threading.Thread(target=self._run, name="tapestryd-inbox", daemon=True)

    def start(self) -> None:
        """Create the inbox folder, start watching it and the import thread (which looks at once)."""
        self.inbox.mkdir(parents=True, exist_ok=True)
        self._watcher.start([self.inbox])
        self._wake.set()
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop watching; an import in hand is left to the caller's shutdown."""
        self._stop.set()
        self._wake.set()
        self._watcher.stop()
        self._thread.join(timeout)

    def poke(self) -> None:
        """Look at the folder now (after resume, for instance)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.tracker.settle / 4 if self.tracker.waiting else self.rescan)
            self._wake.clear()
            if self._stop.is_set():
                return
            for path in self.tracker.observe(list_inbox(self.inbox), time.monotonic()):
                if self._stop.is_set():
                    return
                self._hand_over(Path(path))

    def _hand_over(self, path: Path) -> None:
        try:
            self.on_ready(path)
        except Exception:  # one bad file must not stop the inbox
            log.exception("inbox.handler_failed", file=str(path))
