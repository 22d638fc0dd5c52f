"""Projections: read models built from the event log by the checkpointed projector."""

from pathlib import Path

from tapestryd.projections.hierarchy import HierarchyProjection
from tapestryd.projections.messages import MessagesProjection
from tapestryd.projections.protocol import BatchProjection, Projection
from tapestryd.projections.runner import Projector, checkpoints
from tapestryd.projections.similarity import SimilarityFeed
from tapestryd.projections.vectors import MessageVectors

__all__ = ["HierarchyProjection", "MessagesProjection", "Projection", "Projector", "SimilarityFeed", "checkpoints",
           "default_projections"]


def default_projections(timezone: str, first_day_of_week: int, vectors: Path | None = None) -> list[Projection]:
    """Every projection the daemon runs, in apply order, for one timezone and week start; with
    ``vectors`` (a model folder: embeddings in use) the message vectors too, encoded with that model.

    Each is a :class:`~tapestryd.projections.protocol.BatchProjection` (mypy checks it here), so a
    catch-up may hand them whole batches; none holds another (they share rows through the tables).
    """
    shipped: list[BatchProjection] = [MessagesProjection(), HierarchyProjection(timezone, first_day_of_week),
                                      SimilarityFeed()]
    if vectors is not None:
        shipped.append(MessageVectors(vectors))
    return list(shipped)
