"""Projections hand each other nothing: each reads another's rows only through that one's read functions.

The hierarchy and the similarity feed find the message row an event made in ``messages``
(:func:`tapestryd.projections.messages_read.message_row`), not in memory the messages
projection lends them, so each projection object stands alone; every batch size and the
event-by-event path still leave the same rows, forgetting included, and a batch rolled back
midway leaves nothing that changes the next catch-up.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_projection_batch_path import build_with, dump, forgetting, history

from tapestryd.events import EventStore
from tapestryd.projections import Projection, Projector, default_projections


def _references(value: object, seen: set[int]) -> list[object]:
    """Every object reachable from ``value`` through attributes, containers and their items."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, bool, type(None))):
        return []
    seen.add(id(value))
    found = [value]
    children: list[object] = []
    if isinstance(value, dict):
        children = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        children = list(value)
    elif hasattr(value, "__dict__"):
        children = list(vars(value).values())
    for child in children:
        found += _references(child, seen)
    return found


def _linked(projections: list[Projection]) -> list[tuple[str, str]]:
    """``(holder, held)`` names for each projection that reaches another one."""
    return [(p.name, q.name) for p in projections for q in projections
            if p is not q and any(r is q for r in _references(vars(p), set()))]


def test_no_projection_reaches_another() -> None:
    """The shipped projections hold no reference to each other (so none can lend another its rows)."""
    projections = default_projections("UTC", 0)
    assert len(projections) == 3
    assert _linked(projections) == []


def test_a_projection_holding_another_is_seen() -> None:
    """The check above finds a projection kept in an attribute, even inside a container."""
    projections = default_projections("UTC", 0)
    projections[2].lent = {"rows": [projections[0]]}  # type: ignore[attr-defined]
    assert _linked(projections) == [("similarity", "messages")]


@pytest.mark.parametrize("with_forgetting", [False, True])
def test_every_batch_size_leaves_the_same_rows(tmp_path: Path, with_forgetting: bool) -> None:
    store = EventStore(tmp_path / "events.db")
    store.append(history() + (forgetting() if with_forgetting else []))
    expected = build_with(store, tmp_path / "whole.db", default_projections("UTC", 0), 1000)
    assert expected["node_sources"] and expected["similarity_feed"]
    for batch in (5, 1):
        assert build_with(store, tmp_path / f"batch-{batch}.db", default_projections("UTC", 0), batch) == expected


def test_a_rolled_back_batch_changes_nothing_after(tmp_path: Path) -> None:
    """When a projection after messages fails, the next catch-up leaves the rows a clean build leaves."""
    store = EventStore(tmp_path / "events.db")
    store.append(history())
    projections = default_projections("UTC", 0)
    hierarchy = projections[1]
    projector = Projector(store, tmp_path / "projections.db", projections)
    original = hierarchy.apply_batch  # type: ignore[attr-defined]

    def failing(*args: object) -> None:
        raise RuntimeError("hierarchy failed")

    hierarchy.apply_batch = failing  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        projector.catch_up()
    hierarchy.apply_batch = original  # type: ignore[attr-defined]
    projector.catch_up()
    assert dump(projector.conn) == build_with(store, tmp_path / "clean.db", default_projections("UTC", 0), 1000)
    projector.close()
