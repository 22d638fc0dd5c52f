"""The results of status, pause, resume, reload, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tapestryd.operations.shape import Record, absent, rest

__all__ = ["PauseResult", "ProjectionState", "ReloadResult", "ResumeResult", "StatusResult", "StoreCounts"]


@dataclass(frozen=True)
class StoreCounts(Record):
    """Conversations and messages the projections hold, and the messages of each machine that captured
    them (``machines``: machine → messages, most first)."""

    conversations: int = 0
    messages: int = 0
    machines: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectionState(Record):
    """The log's ``last_seq``, each projection's ``checkpoints`` (seq), the seqs each is behind (``lag``), and
    what a home made by an older version still writes in the background (``upgrading``: part →
    ``{"done": messages, "total": messages}``; absent when nothing is left), or ``upgrade_pending`` (True) when
    such a home was not opened by a writer of this version yet, so nothing is counted."""

    last_seq: int = 0
    checkpoints: Mapping[str, int] = field(default_factory=dict)
    lag: Mapping[str, int] = field(default_factory=dict)
    upgrading: Mapping[str, Mapping[str, int]] | None = absent()
    upgrade_pending: bool | None = absent()


@dataclass(frozen=True)
class StatusResult(Record):
    """The home's state: ``store`` counts, the ``projections``' checkpoints and lag, the ``daemon``'s
    own state, the further ``sections`` (see :mod:`tapestryd.queries.status`), the raw ``archive``
    and ``sync``.

    ``daemon`` is open-ended: ``{"running": false}``, or the running daemon's snapshot (pid,
    uptime, socket, paused, watched sources, tail and inbox counters, config warnings, last
    errors). ``sections`` holds the sections queries register (``hierarchy``, ``sources`` ...),
    each written as a key of its own between ``daemon`` and ``archive``; ``archive`` and ``sync``
    are their modules' reports (``archive`` and ``sync`` absent from an older daemon's answer).
    """

    store: StoreCounts = field(default_factory=StoreCounts)
    projections: ProjectionState = field(default_factory=ProjectionState)
    daemon: Mapping[str, Any] = field(default_factory=dict)
    sections: Mapping[str, Any] = rest()
    archive: Mapping[str, Any] | None = absent()
    sync: Mapping[str, Any] | None = absent()


@dataclass(frozen=True)
class PauseResult(Record):
    """The daemon's paused state after ``pause``."""

    paused: bool = True


@dataclass(frozen=True)
class ResumeResult(Record):
    """The daemon's paused state after ``resume``."""

    paused: bool = False


@dataclass(frozen=True)
class ReloadResult(Record):
    """The daemon read its config again: ``reloaded``, the ``config_file``, the changed settings kept
    until a restart (``restart_needed``), the file's ``warnings``, the calendar's URL (``web``, None
    when off) and, only when its new address could not be taken, ``web_problem``."""

    reloaded: bool = True
    config_file: str = ""
    restart_needed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    web: str | None = None
    web_problem: str | None = absent()
