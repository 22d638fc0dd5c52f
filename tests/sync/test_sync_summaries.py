"""Summaries travel as NodeSummarized events: a node summarized on one machine is not summarized again."""

from __future__ import annotations

from pathlib import Path

from sync_helpers import capture, make_home, sync_here, write_session

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import IterateRequest, TreeRequest


def _iterate(settings: object) -> dict[str, object]:
    return dict(run_here(settings, IterateRequest()).to_json())  # type: ignore[arg-type]


def _tree(settings: object) -> object:
    return run_here(settings, TreeRequest()).to_json()  # type: ignore[arg-type]


def test_a_node_summarized_elsewhere_is_reused_and_a_late_message_dirties_its_chain(tmp_path: Path,
                                                                                     hub_url: str) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    capture(laptop, write_session(tmp_path / "a", "design", [f"we compared the heap {i} and the queue option {i}"
                                                             for i in range(8)], day=4))
    first = _iterate(laptop)
    assert first["summarized"] > 0
    sync_here(laptop)
    sync_here(desktop)
    again = _iterate(desktop)
    assert again["summarized"] == 0, again  # the same inputs: the laptop's summaries stand, no provider call
    assert _tree(desktop) == _tree(laptop)

    late = write_session(tmp_path / "b", "design-late", ["a late note about the queue option"], day=4)
    capture(laptop, late)  # a message for the closed day, captured on the laptop, summarized on the desktop
    sync_here(laptop)
    sync_here(desktop)
    redone = _iterate(desktop)
    assert redone["summarized"] >= 2, redone  # its L0 and the chain above it
    sync_here(desktop)
    sync_here(laptop)
    assert _iterate(laptop)["summarized"] == 0
    assert _tree(desktop) == _tree(laptop)
