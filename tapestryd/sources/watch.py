"""Watching folders with watchdog: native events where possible, polling where not, debounced.

A :class:`FolderWatcher` schedules each root on the native observer (inotify, FSEvents,
...) unless polling was asked for. When the native observer cannot watch a root (the
inotify watch or instance limit is reached, ``ENOSPC``/``EMFILE``), that root falls back to
a :class:`~watchdog.observers.polling.PollingObserver`. A root that does not exist yet is
remembered and scheduled by :meth:`FolderWatcher.refresh` once it appears (the daemon's
sweep calls it). Bursts of events are gathered by watchdog's ``EventDebouncer`` and
delivered as one call ``on_change(files, folders)``: the file paths that passed ``accept``
and the folders that were created or moved in (whose files native events may have missed).
Shape: watchdog's emitter → queue → handler, with its debouncer (``utils/event_debouncer.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

import structlog
from watchdog.events import (
    DirCreatedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver
from watchdog.utils.event_debouncer import EventDebouncer

__all__ = ["FolderWatcher", "OnChange"]

log = structlog.get_logger(__name__)

OnChange = Callable[[set[str], set[str]], None]
ObserverFactory = Callable[[], BaseObserver]
_EVENTS: list[type[FileSystemEvent]] = [FileModifiedEvent, FileCreatedEvent, FileMovedEvent, FileClosedEvent,
                                        DirCreatedEvent, DirMovedEvent]


class _Forward(FileSystemEventHandler):
    def __init__(self, debouncer: EventDebouncer) -> None:
        self.debouncer = debouncer

    def on_any_event(self, event: FileSystemEvent) -> None:
        self.debouncer.handle_event(event)


class FolderWatcher:
    """Watches folders and reports changed files and new folders, debounced (see module docstring).

    ``accept(path)`` selects the files reported; ``recursive`` watches sub-folders too;
    ``debounce`` (seconds) gathers a burst; ``polling`` forces the polling observer, which
    looks every ``poll_interval`` seconds. ``native_factory`` builds the native observer
    (a seam for tests that simulate the inotify limit).
    """

    def __init__(self, on_change: OnChange, *, accept: Callable[[str], bool], recursive: bool = True,
                 debounce: float = 0.05, polling: bool = False, poll_interval: float = 2.0,
                 native_factory: ObserverFactory = Observer) -> None:
        self.on_change, self.accept, self.recursive = on_change, accept, recursive
        self.polling, self.poll_interval, self.native_factory = polling, poll_interval, native_factory
        self._debouncer = EventDebouncer(debounce, self._deliver)
        self._handler = _Forward(self._debouncer)
        self._native: BaseObserver | None = None
        self._poller: BaseObserver | None = None
        self.modes: dict[str, str] = {}
        self.missing: list[str] = []

    def start(self, roots: Iterable[Path]) -> None:
        """Start observing every root that exists; remember the others for :meth:`refresh`."""
        self._debouncer.start()
        self.missing = [os.path.abspath(r) for r in roots]
        self.refresh()

    def refresh(self) -> list[str]:
        """Schedule remembered roots that exist now; returns those newly watched."""
        added = [root for root in self.missing if os.path.isdir(root)]
        for root in added:
            self.modes[root] = self._schedule(root)
        self.missing = [root for root in self.missing if root not in added]
        return added

    @property
    def mode(self) -> str:
        """``native``, ``polling``, ``mixed`` (some roots fell back) or ``idle`` (nothing watched)."""
        kinds = set(self.modes.values())
        return "idle" if not kinds else kinds.pop() if len(kinds) == 1 else "mixed"

    def stop(self) -> None:
        """Stop the observers and the debouncer (pending events are dropped)."""
        for observer in (self._native, self._poller):
            if observer is not None and observer.is_alive():
                observer.stop()
                observer.join(2.0)
        if self._debouncer.is_alive():
            self._debouncer.stop()
            self._debouncer.join(2.0)

    def _schedule(self, root: str) -> str:
        if not self.polling:
            try:
                self._schedule_on(self._native_observer(), root)
                return "native"
            except OSError as exc:
                log.warning("watch.fell_back", root=root, error=str(exc), to="polling")
        self._schedule_on(self._polling_observer(), root)
        return "polling"

    def _schedule_on(self, observer: BaseObserver, root: str) -> None:
        observer.schedule(self._handler, root, recursive=self.recursive, event_filter=_EVENTS)
        if not observer.is_alive():
            observer.start()

    def _native_observer(self) -> BaseObserver:
        if self._native is None:
            self._native = self.native_factory()
        return self._native

    def _polling_observer(self) -> BaseObserver:
        if self._poller is None:
            self._poller = PollingObserver(timeout=self.poll_interval)
        return self._poller

    def _deliver(self, events: list[FileSystemEvent]) -> None:
        files, folders = set(), set()
        for event in events:
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                path = os.fsdecode(raw)
                if not path:
                    continue
                if event.is_directory:
                    if event.event_type in ("created", "moved"):
                        folders.add(path)
                elif self.accept(path):
                    files.add(path)
        if files or folders:
            try:
                self.on_change(files, folders)
            except Exception:  # a failing callback must not kill the debouncer thread
                log.exception("watch.callback_failed")
