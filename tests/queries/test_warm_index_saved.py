"""The warm index saved after a fit and loaded at the next start instead of fitted again.

A current file is loaded and answers as the fit did; documents added since come in through the
delta. A file of another format or analyzer, one older than a ``Forgotten`` event, and a damaged
one are refitted and replaced; forgetting and rebuilding remove the file, so what is forgotten
never comes back through it.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, MutableMapping

import pytest
import structlog
from query_helpers import NOW, PARIS, History

from tapestryd.events import Forgotten, NewEvent, event_id
from tapestryd.events.store import EventStore
from tapestryd.operations import backup as backups
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import RestoreRequest
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections, warmfile
from tapestryd.projections.tfidf import MESSAGE, Match, SimilarityIndex
from tapestryd.projections.warmfile import Saved, index_file, read

QUERIES = ("braided bread honey", "flaky watchdog observer test", "bowline knot rope", "sailing")
NODE = "L1:claude-code:2026-03-03"


def at(d: int, h: int = 10) -> datetime:
    return datetime(2026, 3, d, h, 0, tzinfo=PARIS)


def started(history: History, path: Path) -> tuple[SimilarityIndex, list[MutableMapping[str, Any]]]:
    """An index started as the daemon starts it, once its first snapshot (loaded or fitted) is in use and
    its file written, and what it logged meanwhile."""
    index = SimilarityIndex(paths_for(history.settings).projections_db, saved=path)
    with structlog.testing.capture_logs() as logs:
        index.start(poll_seconds=3600)
        assert index._refit is not None
        index._refit.join()  # the first run: load or fit, install, refresh, save
    return index, logs


def answers(index: SimilarityIndex) -> list[list[Match]]:
    return [index.query(q, top=10) for q in QUERIES]


def fresh(history: History) -> list[list[Match]]:
    """What an index fitted now (and not saved) answers."""
    index = SimilarityIndex(paths_for(history.settings).projections_db)
    index.build()
    try:
        return answers(index)
    finally:
        index.stop()


def events(logs: list[MutableMapping[str, Any]]) -> list[str]:
    return [e["event"] for e in logs]


def test_a_saved_index_is_loaded_instead_of_fitted_and_answers_as_a_fit(seeded: History, saved: Path) -> None:
    """The second start reads the file (0600, in the home's cache folder) and fits nothing; its answers
    equal a fresh fit's."""
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and saved.parent == paths_for(seeded.settings).cache
    index, logs = started(seeded, saved)
    try:
        assert "similarity.loaded" in events(logs) and "similarity.fitted" not in events(logs)
        status = index.status()
        assert status["origin"] == "loaded" and status["fitted"] == 4 and status["delta"] == 0
        assert answers(index) == fresh(seeded)
        assert answers(index)[0][0].doc == "m:1"
    finally:
        index.stop()


def test_documents_added_after_the_save_come_in_through_the_delta(seeded: History, saved: Path) -> None:
    """A message and a new summary recorded after the save are folded in at load, with no refit."""
    seeded.message("claude-code:s3", at(4), "The bowline knot slipped on the rope again", session="s3")
    seeded.summary(NODE, "Sailing", "Practised sailing knots all afternoon.")
    seeded.commit()
    index, logs = started(seeded, saved)
    try:
        assert "similarity.fitted" not in events(logs)
        assert index.status()["origin"] == "loaded" and index.status()["delta"] == 2
        assert {m.doc for m in index.query("bowline knot rope", kinds={MESSAGE})} == {"m:3", "m:4"}
        assert f"n:{NODE}" not in {m.doc for m in index.query("flaky watchdog observer")}
        assert index.query("sailing knots afternoon")[0].doc == f"n:{NODE}"
    finally:
        index.stop()


def _other_format(path: Path) -> None:
    """Write the file as a version of another format would."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warmfile, "FORMAT", warmfile.FORMAT + 1)
        index = SimilarityIndex(path.parent.parent / "projections.db", saved=path)
        index.build()
        index.stop()


def _other_analyzer(path: Path) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(warmfile, "analyzer_stamp", lambda: "another analyzer")
        index = SimilarityIndex(path.parent.parent / "projections.db", saved=path)
        index.build()
        index.stop()


@pytest.mark.parametrize(("make_stale", "reason"), [(_other_format, "format"), (_other_analyzer, "analyzer")])
def test_a_file_of_another_format_or_analyzer_is_refitted_and_replaced(
        seeded: History, make_stale: Callable[[Path], None], reason: str) -> None:
    path = index_file(paths_for(seeded.settings).projections_db)
    make_stale(path)
    assert path.exists()
    index, logs = started(seeded, path)
    try:
        unused = [e for e in logs if e["event"] == "similarity.saved_index_unused"]
        assert len(unused) == 1 and reason in unused[0]["reason"]
        assert "similarity.fitted" in events(logs) and index.status()["origin"] == "fitted"
        assert answers(index) == fresh(seeded)
        assert isinstance(read(path), Saved)  # replaced by this version's file
    finally:
        index.stop()


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _one_count_changed(path: Path) -> None:
    """The last byte of the counts' array changed: the zip still opens, the member's CRC-32 no longer matches.
    (Members are stored one after the other, uncompressed: ``data.npy`` ends where ``indices.npy`` starts.)"""
    with zipfile.ZipFile(path) as archive:
        end = archive.getinfo("indices.npy").header_offset
    raw = bytearray(path.read_bytes())
    raw[end - 1] ^= 0x01
    path.write_bytes(bytes(raw))


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(4096))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


@pytest.mark.parametrize("damage", [_truncated, _one_count_changed, _garbage, _empty])
def test_a_damaged_file_is_logged_refitted_and_replaced(seeded: History, saved: Path,
                                                         damage: Callable[[Path], None]) -> None:
    damage(saved)
    index, logs = started(seeded, saved)
    try:
        damaged = [e for e in logs if e["event"] == "similarity.saved_index_damaged"]
        assert len(damaged) == 1 and damaged[0]["reason"]
        assert "similarity.fitted" in events(logs) and "similarity.saved" in events(logs)
        assert index.status()["origin"] == "fitted" and "errors" not in index.status()
        assert answers(index) == fresh(seeded)
        assert isinstance(read(saved), Saved)
    finally:
        index.stop()


def forget_bread(history: History) -> None:
    """Forget the bread conversation as ``tapestryctl forget`` does without a daemon."""
    with Runtime.open(history.settings) as runtime:
        runtime.store.append([NewEvent(event_id("forget", "bread"), Forgotten(conversation="chatgpt:c1"), NOW, "",
                                       "cli")])
        runtime.projector.catch_up()


def test_forgetting_removes_the_saved_index_and_the_forgotten_stay_gone(seeded: History, saved: Path) -> None:
    """The file that held the forgotten message is removed as the Forgotten event is applied; the next
    start fits without it and saves that."""
    forget_bread(seeded)
    assert not saved.exists()
    index, logs = started(seeded, saved)
    try:
        assert "similarity.fitted" in events(logs) and index.query("braided bread honey sesame") == []
    finally:
        index.stop()
    again, logs = started(seeded, saved)
    try:
        assert "similarity.loaded" in events(logs) and again.query("braided bread honey sesame") == []
    finally:
        again.stop()


def test_a_file_older_than_a_forget_is_not_loaded(seeded: History, saved: Path, tmp_path: Path) -> None:
    """A file saved before a forget that did not remove it (put back by hand, or a save racing the forget)
    is refused by its stamp: the forgotten message never comes back."""
    kept = shutil.copy(saved, tmp_path / "kept.npz")
    forget_bread(seeded)
    shutil.copy(kept, saved)
    index, logs = started(seeded, saved)
    try:
        unused = [e for e in logs if e["event"] == "similarity.saved_index_unused"]
        assert len(unused) == 1 and "forgotten" in unused[0]["reason"]
        assert index.query("braided bread honey sesame") == []
        assert answers(index) == fresh(seeded)
    finally:
        index.stop()


def test_a_rebuild_removes_the_saved_index(seeded: History, saved: Path) -> None:
    """A rebuild (which repair runs too when the tree is broken) clears the feed and removes the file."""
    with Runtime.open(seeded.settings) as runtime:
        runtime.projector.rebuild()
    assert not saved.exists()


def test_a_restore_removes_the_saved_index(seeded: History, saved: Path) -> None:
    """The projections are made again from the restored log, so the index is fitted again from them."""
    paths = paths_for(seeded.settings)
    copy = backups.backup_log(paths.events_db, paths.backups).path
    run_here(seeded.settings, RestoreRequest(str(copy)))
    assert not saved.exists()


def test_a_projections_db_made_again_behind_the_file_is_refitted(seeded: History, saved: Path) -> None:
    """projections.db deleted and caught up again only part way (its feed ends before the file's seq):
    the file's rows would name documents that are not there yet, so it is refitted."""
    paths = paths_for(seeded.settings)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{paths.projections_db}{suffix}").unlink(missing_ok=True)
    with EventStore(paths.events_db) as store:
        projector = Projector(store, paths.projections_db, default_projections("Europe/Paris", 0))
        projector.catch_up(batch=2, max_events=2)
        projector.close()
    index, logs = started(seeded, saved)
    try:
        unused = [e for e in logs if e["event"] == "similarity.saved_index_unused"]
        assert len(unused) == 1 and "rebuilt" in unused[0]["reason"]
        assert index.status()["origin"] == "fitted" and index.status()["fitted"] == 2
    finally:
        index.stop()
