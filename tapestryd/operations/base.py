"""What an operation is handed: its dependencies, by kind, and the shape of one table entry.

An operation is a function ``run(request, deps) -> result``; its kind says which deps:

* ``read`` (:class:`ReadDeps`): a :class:`~tapestryd.queries.reader.Reader`, a clock, and the
  running daemon's :class:`DaemonControl` and warm indexes (None in the CLI's own process). The
  daemon runs it on a server thread with a pooled reader; the CLI on a read-only reader.
* ``control``: as ``read``, but steering the running daemon (pause, resume, reload); without a
  daemon it raises DaemonNotRunning.
* ``write`` (:class:`WriteDeps`): the :class:`~tapestryd.operations.runtime.Runtime` (event
  log, projector, writer lock), a clock, how to get a summarizer, the socket peer's uid and a
  progress callback. The daemon runs it on its one writer thread; the CLI after taking the lock.
* ``local`` (:class:`LocalDeps`): settings only; always runs in the caller's process
  (verify, restore, the list of backups), beside or instead of a daemon.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Literal, Protocol, TypeVar

from tapestryd.clock import Clock
from tapestryd.config import Settings, SummarizeSettings

if TYPE_CHECKING:
    from tapestryd.operations.runtime import Runtime
    from tapestryd.projections.tfidf import SimilarityIndex
    from tapestryd.queries.dense import DenseKeeper
    from tapestryd.queries.reader import Reader
    from tapestryd.summarize import Summarizer

__all__ = [
    "CONTROL",
    "LOCAL",
    "READ",
    "WRITE",
    "DaemonControl",
    "Kind",
    "LocalDeps",
    "Operation",
    "Progress",
    "ReadDeps",
    "SummarizerFactory",
    "WriteDeps",
]

Kind = Literal["read", "control", "write", "local"]
READ: Kind = "read"
CONTROL: Kind = "control"
WRITE: Kind = "write"
LOCAL: Kind = "local"

Progress = Callable[[int, int, str], None]
"""``progress(done_bytes, total_bytes, file_name)`` during an import."""

SummarizerFactory = Callable[[SummarizeSettings], AbstractContextManager["Summarizer"]]
"""Opens the configured provider for one run and closes it after (in the daemon: in a child process)."""


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

    def sync_now(self, from_start: bool = False, batch: int = 2000) -> dict[str, Any]:
        """Run one sync round now (after the one in progress), its local writes on the writer; its report."""


@dataclass(frozen=True)
class ReadDeps:
    """A read or control operation's dependencies.

    ``similarity``: the daemon's warm similarity index (None: ``similar`` answers from FTS5,
    :func:`~tapestryd.queries.similar.similar`); ``dense``: the daemon's kept dense index (None: a
    search loads one for itself when embeddings are in use, :mod:`tapestryd.queries.dense`).
    """

    reader: Reader
    clock: Clock
    control: DaemonControl | None = None
    similarity: SimilarityIndex | None = None
    dense: DenseKeeper | None = None


@dataclass(frozen=True)
class WriteDeps:
    """A write operation's dependencies (``peer_uid``: the socket peer's, None in the CLI)."""

    runtime: Runtime
    clock: Clock
    summarizers: SummarizerFactory
    peer_uid: int | None = None
    progress: Progress | None = None


@dataclass(frozen=True)
class LocalDeps:
    """A local operation's dependencies."""

    settings: Settings
    clock: Clock


Req = TypeVar("Req")
Res = TypeVar("Res")


@dataclass(frozen=True)
class Operation(Generic[Req, Res]):
    """One entry of the table: name, kind, how to get the request and result types, and the function.

    ``load`` imports the function's module only when it is first run, so ``tapestryctl
    search`` without a daemon never imports the summarizers or numpy; ``request_of`` and
    ``result_of`` give the types, each family of them built on first use (see
    :mod:`tapestryd.operations.requests` and :mod:`tapestryd.operations.results`).
    """

    name: str
    kind: Kind
    request_of: Callable[[], type[Req]]
    result_of: Callable[[], type[Res]]
    load: Callable[[], Callable[[Req, Any], Res]]

    @property
    def request(self) -> type[Req]:
        """The request type."""
        return self.request_of()

    @property
    def result(self) -> type[Res]:
        """The result type."""
        return self.result_of()

    def run(self, request: Req, deps: Any) -> Res:
        """Run the operation on ``request`` with the deps its kind takes."""
        return self.load()(request, deps)
