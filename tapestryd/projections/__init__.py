"""Projections: read models built from the event log by the checkpointed projector.

The names below are imported on first use (PEP 562), so a read of one projection's tables
(``projections.messages_read`` ...) does not import every projection, the projector and
multiprocessing with it: ``tapestryctl stats`` without a daemon pays only for what it reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tapestryd.projections.hierarchy import HierarchyProjection
    from tapestryd.projections.messages import MessagesProjection
    from tapestryd.projections.protocol import BatchProjection, Projection
    from tapestryd.projections.checkpoint_read import checkpoints
    from tapestryd.projections.runner import Projector
    from tapestryd.projections.similarity import SimilarityFeed

__all__ = ["SHIPPED", "HierarchyProjection", "MessagesProjection", "Projection", "Projector", "SimilarityFeed",
           "checkpoints", "default_projections"]

SHIPPED = ("messages", "hierarchy", "similarity")
"""The names of :func:`default_projections`' projections without vectors, in apply order (read by
``status`` without importing the projections; a test holds the two to each other)."""


def __getattr__(name: str) -> Any:
    """The names of ``__all__`` but :func:`default_projections`, each from its module, imported on first use."""
    if name == "checkpoints":
        from tapestryd.projections.checkpoint_read import checkpoints

        return checkpoints
    if name == "Projector":
        from tapestryd.projections.runner import Projector

        return Projector
    if name == "MessagesProjection":
        from tapestryd.projections.messages import MessagesProjection

        return MessagesProjection
    if name == "HierarchyProjection":
        from tapestryd.projections.hierarchy import HierarchyProjection

        return HierarchyProjection
    if name == "SimilarityFeed":
        from tapestryd.projections.similarity import SimilarityFeed

        return SimilarityFeed
    if name == "Projection":
        from tapestryd.projections.protocol import Projection

        return Projection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_projections(timezone: str, first_day_of_week: int, vectors: Path | None = None) -> list[Projection]:
    """Every projection the daemon runs, in apply order, for one timezone and week start; with
    ``vectors`` (a model folder: embeddings in use) the message vectors too, encoded with that model.

    Each is a :class:`~tapestryd.projections.protocol.BatchProjection` (mypy checks it here), so a
    catch-up may hand them whole batches; none holds another (they share rows through the tables).
    """
    from tapestryd.projections.hierarchy import HierarchyProjection
    from tapestryd.projections.messages import MessagesProjection
    from tapestryd.projections.similarity import SimilarityFeed
    from tapestryd.projections.vectors import MessageVectors

    shipped: list[BatchProjection] = [MessagesProjection(), HierarchyProjection(timezone, first_day_of_week),
                                      SimilarityFeed()]
    if vectors is not None:
        shipped.append(MessageVectors(vectors))
    return list(shipped)
