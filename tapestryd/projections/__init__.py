"""Projections: read models built from the event log by the checkpointed projector."""

from tapestryd.projections.hierarchy import HierarchyProjection
from tapestryd.projections.messages import MessagesProjection
from tapestryd.projections.runner import Projection, Projector, checkpoints
from tapestryd.projections.similarity import SimilarityFeed

__all__ = ["HierarchyProjection", "MessagesProjection", "Projection", "Projector", "SimilarityFeed", "checkpoints",
           "default_projections"]


def default_projections(timezone: str, first_day_of_week: int) -> list[Projection]:
    """Every projection the daemon runs, in apply order, for one timezone and week start."""
    messages = MessagesProjection()  # hands the rows it stores in a batch to the two after it
    return [messages, HierarchyProjection(timezone, first_day_of_week, messages), SimilarityFeed(messages)]
