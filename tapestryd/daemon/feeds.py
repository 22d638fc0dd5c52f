"""The daemon's feeds: the tailer over the watched roots and the import inbox, wired to the writer.

* File events from the :class:`~tapestryd.sources.watch.FolderWatcher` (debounced) add
  paths to a pending set; one writer task at a time drains it, so a burst of appends
  costs one task, not one per event. A new folder is scanned at once, because native
  events can miss files created in it before its watch was added.
* :meth:`Feeds.sweep` (at start, every ``sweep_interval`` seconds, after resume) walks
  the roots off the writer thread and hands the scan to the writer, which tails every
  file whose size or inode differs from its stored offset.
* Older Gemini CLI chats (``chats/session-*.json``, rewritten whole) are read whole on the
  writer when they change (:class:`~tapestryd.sources.wholefile.WholeFileReader`).
* OpenCode databases are polled on the writer (:class:`~tapestryd.sources.opencode_poll.OpenCodePoller`)
  when the database or its WAL changes, and at every sweep.
* A complete inbox file is imported on the writer by
  :func:`~tapestryd.sources.inbox.import_inbox_file`; a file is never queued twice.
* After an inbox import, or a tail pass that appended messages, the days closed by the
  clock that the hierarchy has not seen closed are closed at once
  (:func:`~tapestryd.operations.dayclose.close_days`), so ``status`` shows the work waiting.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import structlog

from tapestryd.clock import SystemClock
from tapestryd.config import Settings
from tapestryd.daemon.state import DaemonState
from tapestryd.daemon.writer import Writer
from tapestryd.errors import StoreError
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.runtime import Runtime
from tapestryd.privacy.exclusions import Exclusions
from tapestryd.sources.archive import archive_for
from tapestryd.sources.inbox import ImportInterrupted, InboxWatcher, import_inbox_file
from tapestryd.sources.opencode_poll import OPENCODE_FILES, OpenCodePoller, database_of
from tapestryd.sources.tailer import SESSION_SUFFIX, TailReport, Tailer, scan_sessions
from tapestryd.sources.screen import Screen
from tapestryd.sources.watch import FolderWatcher
from tapestryd.sources.wholefile import WholeFileReader, is_whole_chat, scan_whole_chats

__all__ = ["Feeds"]

log = structlog.get_logger(__name__)

SHOWN_PROBLEMS = 3  # problems of one tail pass copied into the daemon's last errors


def _is_watched(path: str) -> bool:
    return path.endswith(SESSION_SUFFIX) or os.path.basename(path) in OPENCODE_FILES or is_whole_chat(path)


class Feeds:
    """Tailer and inbox of one settings generation (a reload builds new Feeds)."""

    def __init__(self, settings: Settings, writer: Writer, state: DaemonState) -> None:
        self.settings, self.writer, self.state = settings, writer, state
        sources = settings.sources
        self.roots = [os.path.abspath(r) for r in (*sources.watched_roots, *sources.codex_roots)]
        self.gemini_roots = [os.path.abspath(r) for r in sources.gemini_roots]
        self.databases = [os.path.abspath(db) for db in sources.opencode_dbs]
        self.exclusions = Exclusions.from_settings(settings.privacy)
        screen = Screen(writer.runtime.store, settings.privacy)
        self.tailer = Tailer(writer.runtime.store, agent=settings.agent_for_parser("claude-code"), screen=screen,
                             archive=archive_for(settings),
                             agents={p: settings.agent_for_parser(p) for p in ("codex", "gemini")})
        self.poller = OpenCodePoller(writer.runtime.store, agent=settings.agent_for_parser("opencode"), screen=screen)
        self.whole = WholeFileReader(writer.runtime.store, agent=settings.agent_for_parser("gemini"), screen=screen)
        self.watcher = FolderWatcher(self._changed, accept=_is_watched, debounce=sources.debounce,
                                     polling=sources.polling)
        self.inbox = InboxWatcher(sources.inbox, self._inbox_ready, polling=sources.polling,
                                  debounce=sources.debounce, settle=sources.inbox_settle)
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._queued = False
        self._known: set[str] = set()  # session files seen by the last sweep or since, for status
        self._inflight: set[str] = set()

    def start(self) -> None:
        """Watch the roots and the inbox, then sweep (the catch-up after downtime)."""
        folders = dict.fromkeys([*self.roots, *self.gemini_roots, *(os.path.dirname(db) for db in self.databases)])
        self.watcher.start([Path(r) for r in folders])
        self.inbox.start()
        self.sweep()

    def stop(self) -> None:
        """Stop watching (tasks already queued on the writer stay queued; the archive closes after them)."""
        self.watcher.stop()
        self.inbox.stop()
        archive = self.tailer.archive
        if archive is not None:  # on the writer, which alone uses it (when shutting down, the exit closes it)
            self.writer.submit(lambda runtime: archive.close(), name="archive-close")

    @property
    def mode(self) -> str:
        """How the roots are watched: ``native``, ``polling``, ``mixed`` or ``idle``."""
        return self.watcher.mode

    def describe(self) -> dict[str, Any]:
        """Claude Code's watched roots and how each is watched, for ``status`` (its ``sources`` section lists
        every source's roots, files and messages)."""
        claude = [os.path.abspath(r) for r in self.settings.sources.watched_roots]
        return {"mode": self.mode, "polling": self.settings.sources.polling, "inbox": str(self.settings.sources.inbox),
                "roots": [{"path": r, "watch": self.watcher.modes.get(r, "missing")} for r in claude]}

    def sweep(self) -> None:
        """Scan the roots here; tail on the writer every file that differs from its offset."""
        self.watcher.refresh()
        found = {**scan_sessions(Path(r) for r in (*self.roots, *self.gemini_roots)),
                 **scan_whole_chats(self.gemini_roots)}
        scan = {p: v for p, v in found.items() if self._tailed(p) and not self._excluded(p)}
        with self._lock:
            self._known = set(scan)
        self.state.record_sweep(len(scan))
        self.writer.submit(lambda runtime: self._tail_all([*self.tailer.changed(scan), *self.databases]),
                           name="sweep")

    def catch_up(self) -> None:
        """Sweep and look at the inbox now (after resume)."""
        self.sweep()
        self.inbox.poke()

    def _changed(self, files: set[str], folders: set[str]) -> None:
        for folder in folders:
            files |= set(scan_sessions([Path(folder)]))
        files = {database_of(f) if os.path.basename(f) in OPENCODE_FILES else f for f in files}
        files = {f for f in files if (f in self.databases or self._tailed(f)) and not self._excluded(f)}
        self._count_new(files)
        if self.state.paused or self.state.storage.tripped or not files:
            return  # a sweep after resume (or after storage returns) catches up from the offsets
        with self._lock:
            self._pending |= files
            if self._queued:
                return
            self._queued = True
        self.writer.submit(self._tail_pending, name="tail")

    def _count_new(self, files: set[str]) -> None:
        """Count session files created since the last sweep, so ``status`` need not wait for the next one."""
        with self._lock:
            new = {f for f in files - self._known if os.path.isfile(f)}
            self._known |= new
            count = len(self._known)
        if new:
            self.state.record_files(count)

    def _tailed(self, path: str) -> bool:
        """Whether a ``.jsonl`` file is one to tail: under a Claude Code or Codex root, or a Gemini CLI chat."""
        if any(path.startswith(root + os.sep) for root in self.roots):
            return True
        return f"{os.sep}chats{os.sep}" in path and any(path.startswith(r + os.sep) for r in self.gemini_roots)

    def _excluded(self, path: str) -> bool:
        """Whether a session file lies in a project folder that ``exclude_projects`` names.

        Such files are never opened: their folder name is matched, not their lines.
        """
        for root in self.roots:
            if path.startswith(root + os.sep):
                return self.exclusions.excludes_project_dir(path[len(root) + 1:].split(os.sep, 1)[0])
        return False

    def _tail_pending(self, runtime: Runtime) -> None:
        with self._lock:
            paths, self._pending, self._queued = self._pending, set(), False
        self._tail_all(sorted(paths))

    def _tail_all(self, paths: list[str]) -> None:
        try:
            reports = self._read(paths)
        except StoreError as exc:
            self.state.record_error("tail", exc.message)
            self.state.storage.trip("tail", exc.message)
            return
        for report in reports:
            self.state.record_tail(lines=report.lines, new=report.new, known=report.known,
                                   problems=len(report.problems), restarted=report.restarted)
            for problem in report.problems[:SHOWN_PROBLEMS]:
                self.state.record_error("tail", problem)
        if any(report.new for report in reports):
            close_days(self.writer.runtime, SystemClock())

    def _read(self, paths: list[str]) -> list[TailReport]:
        """Tail the session files of ``paths``, poll its OpenCode databases, read its whole-object chats."""
        polled = [self.poller.poll(db) for db in paths if db in self.databases and not self._held()]
        whole = [self.whole.read(p) for p in paths if is_whole_chat(p) and not self._held()]
        lines = [p for p in paths if p not in self.databases and not is_whole_chat(p)]
        return [*self.tailer.tail_many(lines, should_stop=self._held), *polled, *whole]

    def _held(self) -> bool:
        """Whether tailing must stop now: shutdown, pause, or storage that failed."""
        return self.writer.stopping or self.state.paused or self.state.storage.tripped

    def _inbox_ready(self, path: Path) -> None:
        if self.state.paused or self.state.storage.tripped:
            return
        with self._lock:
            if str(path) in self._inflight:
                return
            self._inflight.add(str(path))
        self.writer.submit(lambda runtime: self._import(runtime, path), name="inbox")

    def _import(self, runtime: Runtime, path: Path) -> None:
        try:
            outcome = import_inbox_file(runtime.store, path, settings=self.settings,
                                        should_stop=lambda: self.writer.stopping)
        except ImportInterrupted:
            log.info("inbox.interrupted", file=path.name)
            return
        except StoreError as exc:  # the file stays in the inbox and is imported once storage returns
            self.state.record_error("inbox", f"{path.name}: {exc.message}")
            self.state.storage.trip("inbox", exc.message)
            return
        finally:
            with self._lock:
                self._inflight.discard(str(path))
        if outcome.error or not outcome.ok:  # failed (its reason), or went through with some files in error (each)
            lines = outcome.error.splitlines() or [""]
            for line in lines if outcome.ok else lines[:1]:
                self.state.record_error("inbox", f"{path.name}: {line}")
        self.state.record_import({k: v for k, v in outcome.to_dict().items() if k != "receipt"})
        if outcome.ok:
            close_days(runtime, SystemClock())
