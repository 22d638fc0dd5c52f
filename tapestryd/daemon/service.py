"""The daemon's service: its components, started in order and stopped in reverse.

Start: the :class:`~tapestryd.operations.runtime.Runtime` (writer lock, event log,
projector; a second instance fails here with StoreLockedError naming the holder), the
warm similarity index (:class:`~tapestryd.projections.tfidf.SimilarityIndex`, loaded from the file
its last fit saved in the cache folder, or else fitted, in the background, and registered for the
``similar`` query), the
:class:`~tapestryd.daemon.writer.Writer` thread, the scheduler, the sources
(:class:`~tapestryd.daemon.feeds.Feeds`: tailer over the watched roots and the inbox),
whose first sweep catches up with every session file that changed while the daemon was
down, the socket server (a client that gets an answer talks to a daemon that is fully up;
until then the CLI answers read-only from the database), the upgrade of a home made by an older version
(its missing windows, blocks and speaker names written in the background, a writer task per chunk, while
the socket answers), and last the calendar web page
when ``[web] enabled`` (a taken port is logged and recorded as ``calendar: port N is in use
on HOST``, the daemon goes on).

Stop (SIGTERM): a running summarizer job ends after (or abandons) the node in hand, the
calendar and sources stop, the scheduler waits up to :data:`JOB_GRACE` seconds for its
jobs (so a summarizer child process is gone before exit), then the socket (removed), then
the writer finishes the task in hand, then the databases close.

``pause`` halts the summarizer the same way; ``resume`` starts it again at once.
``sync_now`` runs a sync round (the scheduled job every ``[sync] interval`` seconds, and
``tapestryctl sync``) off the writer thread, so a slow hub never holds up capture.
``reload`` refuses a ``[summarize]`` section naming no usable provider (the error
``iterate`` gives; old settings kept) and restarts the calendar when ``[web]`` changed; a
new port that is in use keeps the calendar on its old address and says so (reply and ``status``).

Requests from the socket are dispatched here through the table of operations
(:data:`tapestryd.operations.registry.OPERATIONS`): read and control operations run on the
server thread with a pooled :class:`~tapestryd.queries.reader.Reader` and this service as
their :class:`~tapestryd.operations.base.DaemonControl`, write operations are queued to the
writer with a summarizer in a child process and the socket peer's uid. A request's ``args``
are its fields only: anything else a client sends is ignored.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Callable, Iterator

import structlog
from apscheduler.schedulers.background import BackgroundScheduler

from tapestryd import __version__
from tapestryd.clock import Clock, SystemClock
from tapestryd.config import Settings, WebSettings, load_settings
from tapestryd.daemon.feeds import Feeds
from tapestryd.daemon.jobs import register_jobs
from tapestryd.daemon.logs import set_secrets
from tapestryd.daemon.notify import Notifier
from tapestryd.daemon.peer import peer_uid_now
from tapestryd.daemon.schedule import build_scheduler
from tapestryd.daemon.server import SocketServer
from tapestryd.daemon.state import DaemonState
from tapestryd.daemon.summary_worker import isolated
from tapestryd.daemon.writer import Writer
from tapestryd.errors import (
    ConfigError,
    DaemonError,
    ProviderError,
    StoreError,
    TapestryError,
)
from tapestryd.events.store import EventStore
from tapestryd.operations.base import CONTROL, LOCAL, READ, ReadDeps, WriteDeps
from tapestryd.operations.codec import decode
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.syncing import run_round
from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import SimilarityIndex
from tapestryd.projections.warmfile import index_file
from tapestryd.queries.dense import DenseKeeper
from tapestryd.queries.reader import Reader
from tapestryd.queries.timephrase import warm_up
from tapestryd.summarize import make_summarizer
from tapestryd.web.server import WebServer, check_port
from tapestryd.wire.protocol import ProtocolError

__all__ = ["Service", "check_summarizer", "log_config_warnings"]

log = structlog.get_logger(__name__)

POOLED_READERS = 16
JOB_GRACE = 2.0  # seconds stop waits for running jobs (a halted summarizer needs well under one)
STOP_BUDGET = 4.5  # seconds for the whole stop (systemd is told "exits within 5 s"); the writer gets what is left
RESTART_FIELDS = ("data_dir", "timezone", "first_day_of_week", "socket_override")


class Service:
    """One daemon: settings, state and components (see the module docstring)."""

    def __init__(self, settings: Settings, *, notifier: Notifier | None = None) -> None:
        self.settings = settings
        self.clock: Clock = SystemClock()
        self.paths = paths_for(settings)
        self.notifier = notifier or Notifier({})
        self.state = DaemonState()
        self.runtime: Runtime | None = None
        self.writer: Writer | None = None
        self.server: SocketServer | None = None
        self.scheduler: BackgroundScheduler | None = None
        self.feeds: Feeds | None = None
        self.similarity: SimilarityIndex | None = None
        self.dense = DenseKeeper()
        self.web: WebServer | None = None
        self._served_web: WebSettings | None = None  # the [web] the running calendar was started with
        self._readers: queue.LifoQueue[Reader] = queue.LifoQueue()
        self._control = threading.RLock()
        self._sync = threading.Lock()  # one sync round at a time (the scheduled job, or sync_round from the socket)
        self._stopping = threading.Event()
        self.halt = threading.Event()  # set while paused or stopping: a remote provider's retries end at once

    def start(self) -> None:
        """Start every component; on failure stop what started and re-raise.

        Raises StoreLockedError when another process writes this home, DaemonError when
        the socket cannot be created, StoreError when a database cannot be opened.
        """
        self.runtime = Runtime.open(self.settings, role="daemon")
        try:
            self.similarity = SimilarityIndex(self.paths.projections_db, saved=index_file(self.paths.projections_db))
            self.similarity.start()
            self.writer = Writer(self.runtime, on_error=self._task_failed)
            self.writer.start()
            self.scheduler = build_scheduler(self.settings)
            register_jobs(self.scheduler, self)
            self.scheduler.start()
            self.feeds = Feeds(self.settings, self.writer, self.state)
            self.feeds.start()
            self._serve_web()  # before the socket: once a client can ask, status already says how the calendar went
            self.server = SocketServer(self.paths.socket, self.dispatch)
            self.server.start()
            self._upgrade_in_background()
            _warm_in_background("time_phrases", self._load_time_phrases)
            _warm_in_background("dense", self._load_dense)
        except BaseException:
            self.stop()
            raise
        log.info("daemon.started", pid=self.state.pid, version=__version__, socket=str(self.paths.socket),
                 data_dir=str(self.paths.data_dir), roots=[str(r) for r in self.settings.sources.watched_roots],
                 inbox=str(self.settings.sources.inbox), watch_mode=self.feeds.mode)

    def _upgrade_in_background(self) -> None:
        """Fill what a home made by an older version lacks (windows, blocks, speaker names:
        :mod:`tapestryd.projections.backfill`) on a thread that queues one writer task per chunk, so the
        socket answers meanwhile and capture goes between chunks. Logs ``projection.upgraded`` when done;
        stopping (logged as ``projection.upgrade_interrupted``) or a failure (recorded) leaves the rest to the
        next start, which resumes there."""
        writer = self.writer
        assert writer is not None

        def run() -> None:
            started, steps, more = time.monotonic(), 0, True
            try:
                while more and not self._stopping.is_set():
                    more = writer.run(lambda rt: rt.projector.upgrade_step(), name="upgrade")
                    steps += more
            except Exception as exc:  # shutting down, or a failed chunk (the writer recorded it)
                if not self._stopping.is_set():
                    log.warning("projection.upgrade_stopped", error=str(exc))
                return
            if more:
                log.info("projection.upgrade_interrupted", steps=steps)  # the next start resumes there
            elif steps:
                log.info("projection.upgraded", steps=steps, seconds=round(time.monotonic() - started, 3))

        threading.Thread(target=run, name="upgrade", daemon=True).start()

    def _load_time_phrases(self) -> dict[str, Any]:
        """Load the time-phrase reader (dateparser) now, not on the first query that holds a phrase."""
        warm_up(self.settings.tz)
        return {}

    def _load_dense(self) -> dict[str, Any] | None:
        """Load the embedding model and the stored vectors now (when embeddings are in use, else None), not
        on the first search: :attr:`dense` keeps them for every later one."""
        with Reader.open(self.settings) as reader:
            index = self.dense.get(reader)
            return None if index is None else {"rows": index.refresh(reader.conn)}

    def stop(self) -> None:
        """Stop in reverse order; the databases close only if the writer finished in time."""
        deadline = time.monotonic() + STOP_BUDGET
        self._stopping.set()
        self.halt.set()
        self.notifier.stopping()
        if self.web is not None:
            self.web.stop()
        if self.feeds is not None:
            self.feeds.stop()
        jobs_done = self._stop_scheduler()
        if self.server is not None:
            self.server.stop()
        finished = self.writer.stop(max(0.5, deadline - time.monotonic())) if self.writer is not None else True
        if self.similarity is not None:
            self.similarity.stop()
        self._close_readers()
        if self.runtime is not None and finished:
            self.runtime.close()
        log.info("daemon.stopped", clean=finished and jobs_done)

    def _stop_scheduler(self) -> bool:
        """Shut the scheduler down, waiting up to JOB_GRACE seconds for running jobs (halted by now).

        Returns False when a job was still running after that (abandoned).
        """
        if self.scheduler is None or not self.scheduler.running:
            return True
        waiter = threading.Thread(target=self.scheduler.shutdown, name="scheduler-stop", daemon=True)
        waiter.start()
        waiter.join(JOB_GRACE)
        if waiter.is_alive():
            log.warning("daemon.jobs_abandoned", waited=JOB_GRACE)
            return False
        return True

    def halted(self) -> bool:
        """Whether summarizer runs must end now: the daemon is paused or stopping."""
        return self.state.paused or self._stopping.is_set()

    def _serve_web(self) -> str:
        """Start the calendar (``self.web``) when ``[web] enabled``; returns ``""`` or the problem.

        A taken port is logged and recorded for ``status``; the daemon goes on without it.
        """
        self.web, self._served_web = None, None
        if not self.settings.web.enabled:
            return ""
        web = WebServer(self.settings)
        try:
            web.start()
        except TapestryError as exc:
            return self._web_problem(f"calendar: {exc.message}")
        self.web, self._served_web = web, self.settings.web
        return ""

    def _web_problem(self, message: str) -> str:
        log.warning("web.unavailable", error=message)
        self.state.record_error("web", message)
        return message

    def healthy(self) -> bool:
        """Whether the writer thread is alive (the systemd watchdog is pinged only then)."""
        return self.writer is not None and self.writer.alive

    def sweep(self) -> None:
        """Catch up with session files changed on disk (the periodic job, and after resume)."""
        if self.feeds is not None and not self.state.paused:
            self.feeds.sweep()

    # The socket ----------------------------------------------------------------------

    def dispatch(self, op: str, args: dict[str, Any]) -> Any:
        """Run operation ``op``: read ops here with a pooled Reader, write ops on the writer.

        Raises ProtocolError ``unknown_op`` for an op nobody registered.
        """
        operation = OPERATIONS.get(op)
        if operation is None or operation.kind == LOCAL:
            served = sorted(name for name, o in OPERATIONS.items() if o.kind != LOCAL)
            raise ProtocolError("unknown_op", f"unknown operation {op!r}; known: {', '.join(served)}")
        request = decode(operation.request, args)
        if operation.kind in (READ, CONTROL):
            with self._reader() as reader:
                return operation.run(request, ReadDeps(reader, self.clock, control=self, similarity=self.similarity,
                                                       dense=self.dense)).to_json()
        assert self.writer is not None
        peer = peer_uid_now()  # the socket peer's uid: ingest imports only what it may read
        return self.writer.run(lambda runtime: operation.run(request, WriteDeps(
            runtime, self.clock, isolated, peer_uid=peer)).to_json(), name=op)

    @contextmanager
    def _reader(self) -> Iterator[Reader]:
        try:
            reader = self._readers.get_nowait()
        except queue.Empty:
            reader = Reader.open(self.settings)
        try:
            yield reader
        finally:
            if reader.settings is self.settings and self._readers.qsize() < POOLED_READERS:
                self._readers.put(reader)
            else:
                reader.close()

    def _close_readers(self) -> None:
        while True:
            try:
                self._readers.get_nowait().close()
            except queue.Empty:
                return

    def _task_failed(self, name: str, exc: BaseException) -> None:
        """Record a failed writer task for ``status``, unless it is the user's own mistake (answered already)."""
        if _users_mistake(exc):
            return
        message = exc.message if isinstance(exc, TapestryError) else f"{type(exc).__name__}: {exc}"
        self.state.record_error(name, message)

    # DaemonControl -------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The daemon's state for ``status``."""
        snap = self.state.snapshot()
        snap.update(running=True, version=__version__, socket=str(self.paths.socket),
                    config_file=str(self.settings.config_file), web=self.web.url if self.web else None)
        if self.settings.warnings:
            snap["config_warnings"] = list(self.settings.warnings)
        if self.feeds is not None:
            snap["sources"] = self.feeds.describe()
        if self.writer is not None:
            snap["writer"] = {"pending": self.writer.pending(), "current": self.writer.current}
        if self.scheduler is not None:
            snap["scheduled"] = {job.id: _iso(job.next_run_time) for job in self.scheduler.get_jobs()}
        return snap

    def pause(self) -> dict[str, Any]:
        """Stop feeding the log (tailer, inbox) and running jobs (a summarizer run halts); queries go on."""
        with self._control:
            self.state.paused = True
            self.halt.set()
            if self.scheduler is not None:
                self.scheduler.pause()
        log.info("daemon.paused")
        return {"paused": True}

    def resume(self) -> dict[str, Any]:
        """Feed the log and run jobs again, catching up with what changed while paused."""
        with self._control:
            self.state.paused = False
            if not self._stopping.is_set():
                self.halt.clear()
            if self.scheduler is not None:
                self.scheduler.resume()
                self.scheduler.modify_job("hierarchy", next_run_time=datetime.now(self.settings.tz))
            if self.feeds is not None:
                self.feeds.catch_up()
        log.info("daemon.resumed")
        return {"paused": False}

    def reload(self) -> dict[str, Any]:
        """Read tapestry.toml again and restart the sources and jobs with it.

        Settings that need a restart (data dir, timezone, week start, socket) are kept and
        listed in ``restart_needed``; a changed ``[web]`` restarts the calendar, or, when its
        new port is in use, keeps it on the old address and says so in ``web_problem``. Raises
        ConfigError (old settings kept) for a bad file or a ``[summarize]`` naming no usable provider.
        """
        with self._control:
            self.notifier.reloading()
            try:
                new = load_settings(self.settings.home, config_file=self.settings.config_file)
                check_summarizer(new)
            except ConfigError as exc:
                self.state.record_error("reload", exc.message)
                self.notifier.ready()
                raise
            held = [f for f in RESTART_FIELDS if getattr(new, f) != getattr(self.settings, f)]
            web_problem = self._apply(new)
            self.notifier.ready()
        log.info("daemon.reloaded", config_file=str(new.config_file), restart_needed=held)
        log_config_warnings(new)
        reply = {"reloaded": True, "config_file": str(new.config_file), "restart_needed": held,
                 "warnings": list(new.warnings), "web": self.web.url if self.web else None}
        return {**reply, "web_problem": web_problem} if web_problem else reply

    def _apply(self, new: Settings) -> str:
        """Switch to ``new`` settings; returns the calendar's problem (``""`` when none)."""
        new = dataclasses.replace(new, **{f: getattr(self.settings, f) for f in RESTART_FIELDS})
        set_secrets([new.summarize.api_key])
        if self.feeds is not None:
            self.feeds.stop()
        self.settings = new
        if self.runtime is not None:
            self.runtime.settings = new
        problem = self._restart_web() if (new.web if new.web.enabled else None) != self._served_web else ""
        if self.scheduler is not None:
            register_jobs(self.scheduler, self)
        if self.writer is not None:
            self.feeds = Feeds(new, self.writer, self.state)
            self.feeds.start()
        return problem

    def _restart_web(self) -> str:
        """Serve the calendar as the new ``[web]`` says (stopped, or on its new host and port).

        Returns ``""``, or the problem: a new port in use keeps the running calendar.
        """
        wanted = self.settings.web
        if self.web is not None and wanted.enabled and (wanted.host, wanted.port) != (self.web.host, self.web.port):
            try:
                check_port(wanted.host, wanted.port)
            except TapestryError as exc:
                return self._web_problem(f"calendar: {exc.message}; still serving on {self.web.url}")
        if self.web is not None:
            self.web.stop()
        return self._serve_web()


    def sync_now(self, from_start: bool = False, batch: int = 2000) -> dict[str, Any]:
        """Run one sync round on this thread (after the one in progress): the hub is asked here, the log
        read through a read-only connection of this thread, and written only on the writer thread.

        Returns the round's report; raises SyncError when sync is not set up or the hub fails,
        DaemonError when the daemon stops meanwhile.
        """
        if self.writer is None:
            raise DaemonError("tapestryd is starting or stopping", code="shutting_down")
        writer = self.writer

        def write(fn: Callable[[EventStore], Any]) -> Any:
            return writer.run(lambda runtime: fn(runtime.store), name="sync")

        with self._sync, EventStore(self.paths.events_db, readonly=True, machine=self.settings.sync.machine) as store:
            return run_round(self.settings, store, write, from_start=from_start, batch=batch,
                             stop=self._stopping.is_set)


def check_summarizer(settings: Settings) -> None:
    """Raise ConfigError (the message ``iterate`` gives) when ``[summarize]`` names no usable provider."""
    make_summarizer(settings.summarize).close()


def log_config_warnings(settings: Settings) -> None:
    """Log each warning about the config file (an unknown key) as ``config.key_ignored``."""
    for line in settings.warnings:
        log.warning("config.key_ignored", detail=line)


def _users_mistake(exc: BaseException) -> bool:
    """Whether ``exc`` answers the user's input (a bad reference, file or setting), not a failure of the daemon.

    By the error tree (:mod:`tapestryd.errors`): a plain TapestryError, ConfigError and
    ParseError are the user's; StoreError, DaemonError, ProviderError and any other
    exception are the daemon's own.
    """
    return isinstance(exc, TapestryError) and not isinstance(exc, (StoreError, DaemonError, ProviderError))


def _iso(moment: Any) -> str:
    return moment.isoformat(timespec="seconds") if moment is not None else ""


def _warm_in_background(name: str, load: Callable[[], dict[str, Any] | None]) -> None:
    """Run ``load`` on a daemon thread, logging ``<name>.warmed`` with its seconds and what it returned
    (nothing when it returns None: there was nothing to load), or ``<name>.warm_failed``: a warm-up
    that fails leaves the work to the first query that needs it."""
    def run() -> None:
        started = time.monotonic()
        try:
            fields = load()
        except Exception as exc:
            log.warning(f"{name}.warm_failed", error=str(exc))
            return
        if fields is not None:
            log.info(f"{name}.warmed", seconds=round(time.monotonic() - started, 3), **fields)

    threading.Thread(target=run, name=f"{name}-warm", daemon=True).start()
