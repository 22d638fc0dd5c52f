"""The messages projection hands the rows it stores to the hierarchy and the similarity feed.

With the hand-over (``default_projections``) and without it (each message row read from
``messages``), every batch size and the event-by-event path leave the same rows, forgetting
included; a batch rolled back leaves nothing held.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_projection_batch_path import build_with, dump, forgetting, history

from tapestryd.events import EventStore
from tapestryd.projections import (HierarchyProjection, MessagesProjection, Projection, Projector, SimilarityFeed,
                                   default_projections)


def _unlinked() -> list[Projection]:
    return [MessagesProjection(), HierarchyProjection("UTC", 0), SimilarityFeed()]


@pytest.mark.parametrize("with_forgetting", [False, True])
def test_handed_over_rows_equal_rows_read(tmp_path: Path, with_forgetting: bool) -> None:
    store = EventStore(tmp_path / "events.db")
    store.append(history() + (forgetting() if with_forgetting else []))
    expected = build_with(store, tmp_path / "read.db", _unlinked(), 1000)
    assert expected["node_sources"] and expected["similarity_feed"]
    for batch in (1000, 5, 1):
        assert build_with(store, tmp_path / f"handed-{batch}.db", default_projections("UTC", 0), batch) == expected


def test_a_rolled_back_batch_holds_no_row(tmp_path: Path) -> None:
    """When a projection after messages fails, the rows messages stored are not handed over later."""
    store = EventStore(tmp_path / "events.db")
    store.append(history())
    projections = default_projections("UTC", 0)
    messages, hierarchy = projections[0], projections[1]
    projector = Projector(store, tmp_path / "projections.db", projections)
    original = hierarchy.apply_batch  # type: ignore[attr-defined]

    def failing(*args: object) -> None:
        raise RuntimeError("hierarchy failed")

    hierarchy.apply_batch = failing  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        projector.catch_up()
    assert messages._stored == {}  # type: ignore[attr-defined]
    hierarchy.apply_batch = original  # type: ignore[attr-defined]
    projector.catch_up()
    assert dump(projector.conn) == build_with(store, tmp_path / "read.db", _unlinked(), 1000)
    projector.close()
