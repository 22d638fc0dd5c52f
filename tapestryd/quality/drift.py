"""Drift: how far successive summaries of the same node moved in meaning.

Every ``NodeSummarized`` event is kept in the log, so a node rebuilt after a late message,
a prompt change or a new provider has several versions. Each version is compared with the
one before it by the chosen similarity over the whole texts (TF-IDF fitted on every
version compared, by default); ``drift = 1 - cosine``. Labels, by drift:

==========  ===============  =====================================================
label       drift            reading
==========  ===============  =====================================================
stable      below 0.10       the same summary, reworded at most
minor       0.10 to 0.30     details added or dropped
moderate    0.30 to 0.60     a different emphasis; worth a look
severe      0.60 and above   the node now says something else
==========  ===============  =====================================================

A node is flagged when its largest step reaches the threshold (default 0.30, moderate).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Iterable, Sequence

from tapestryd.events.store import EventStore
from tapestryd.events.types import NodeSummarized
from tapestryd.projections.hierarchy_forget import TOMBSTONE
from tapestryd.quality.similarity import Similarity

__all__ = ["DRIFT_THRESHOLD", "SEVERITIES", "NodeDrift", "Step", "Version", "measure_drift", "read_versions",
           "severity_of"]

DRIFT_THRESHOLD = 0.30
SEVERITIES: tuple[tuple[str, float], ...] = (("severe", 0.60), ("moderate", 0.30), ("minor", 0.10), ("stable", 0.0))


@dataclass(frozen=True)
class Version:
    """One recorded summary of a node: log seq, time (ISO UTC), agent, text and who wrote it."""

    node: str
    level: int
    seq: int
    at: str
    agent: str
    text: str
    provider: str = ""
    model: str = ""


@dataclass(frozen=True)
class Step:
    """The move from one version to the next: their seqs, cosine, drift and label."""

    from_seq: int
    to_seq: int
    at: str
    similarity: float
    drift: float
    severity: str
    provider_changed: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: from_seq, to_seq, at, similarity, drift, severity, provider_changed."""
        return {"from_seq": self.from_seq, "to_seq": self.to_seq, "at": self.at,
                "similarity": round(self.similarity, 4),
                "drift": round(self.drift, 4), "severity": self.severity, "provider_changed": self.provider_changed}


@dataclass(frozen=True)
class NodeDrift:
    """A node with two or more versions and the steps between them, oldest first."""

    node: str
    level: int
    agent: str
    versions: int
    steps: tuple[Step, ...]

    @property
    def worst(self) -> Step:
        """The step with the largest drift (the first such, in log order)."""
        return max(self.steps, key=lambda s: s.drift)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: node, level, agent, versions, max_drift, severity, latest_drift, steps."""
        return {"node": self.node, "level": self.level, "agent": self.agent, "versions": self.versions,
                "max_drift": round(self.worst.drift, 4), "severity": self.worst.severity,
                "latest_drift": round(self.steps[-1].drift, 4), "steps": [s.to_dict() for s in self.steps]}


def severity_of(drift: float) -> str:
    """The label of a drift value (see the table in the module docstring)."""
    return next(label for label, floor in SEVERITIES if drift >= floor)


def measure_drift(versions: Iterable[Version], similarity: Similarity) -> list[NodeDrift]:
    """Every node with two or more versions, its steps measured, in node key order.

    The similarity is fitted on all the texts compared, so rare words weigh the same in
    every step.
    """
    by_node: dict[str, list[Version]] = {}
    for version in sorted(versions, key=lambda v: v.seq):
        by_node.setdefault(version.node, []).append(version)
    chains = {node: vs for node, vs in sorted(by_node.items()) if len(vs) > 1}
    similarity.fit([v.text for vs in chains.values() for v in vs])
    return [_node_drift(vs, similarity) for vs in chains.values()]


def _node_drift(versions: Sequence[Version], similarity: Similarity) -> NodeDrift:
    steps = tuple(_step(old, new, similarity) for old, new in pairwise(versions))
    last = versions[-1]
    return NodeDrift(last.node, last.level, last.agent, len(versions), steps)


def _step(old: Version, new: Version, similarity: Similarity) -> Step:
    cosine = 1.0 if old.text == new.text else float(similarity.matrix([old.text], [new.text])[0, 0])
    drift = max(0.0, 1.0 - cosine)
    changed = (old.provider, old.model) != (new.provider, new.model)
    return Step(old.seq, new.seq, new.at, cosine, drift, severity_of(drift), changed)


def read_versions(events_db: Path, *, agent: str = "", level: int | None = None) -> list[Version]:
    """Every NodeSummarized version in the log (read-only), optionally of one agent or level.

    Versions that ``compact`` scrubbed (text :data:`~tapestryd.projections.hierarchy_forget.TOMBSTONE`
    + ``…``, or empty) are left out: they no longer say anything to compare.

    Raises StoreError when the log cannot be opened.
    """
    found: list[Version] = []
    with EventStore(events_db, readonly=True) as store:
        for stored in store.read(types=[NodeSummarized.type]):
            event = stored.event
            if not isinstance(event, NodeSummarized):
                continue
            owner = stored.agent or _agent_of(event.node)
            if (agent and owner != agent) or (level is not None and event.level != level) or _scrubbed(event):
                continue
            found.append(Version(event.node, event.level, stored.seq, stored.occurred_at, owner, event.text,
                                 event.provider, event.model))
    return found


def _scrubbed(event: NodeSummarized) -> bool:
    return event.text.startswith(TOMBSTONE) or not event.text


def _agent_of(node: str) -> str:
    """The agent part of a node key ``L{n}:{agent}:...``."""
    parts = node.split(":")
    return parts[1] if len(parts) > 2 else ""
