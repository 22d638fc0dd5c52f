"""A home's stores as the CLI finds them: missing or corrupt projections, and a mistyped --home."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_runner import tapestryctl

from test_cli_core import seed


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in this process (tests/cli_runner.py) against ``home`` (no daemon runs there)."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), "TAPESTRY_FAST": "0"}
    return tapestryctl(*args, env=env)


def matching_keys(hits: list[dict[str, object]]) -> list[object]:
    """The message keys of the hits holding the searched words, checked to lead the answer (a turn
    found only next to one may follow its lender, marked ``next_to_match``)."""
    lent = [bool((h.get("extra") or {}).get("next_to_match")) for h in hits]  # type: ignore[attr-defined]
    assert hits and not lent[0], f"a neighbouring turn ranks above the match that lent to it: {hits}"
    return [h["message_key"] for h, was_lent in zip(hits, lent) if not was_lent]


def _drop_projections(home: Path) -> None:
    for path in home.glob("projections.db*"):
        path.unlink()


def test_missing_projections_say_rebuild_and_rebuild_brings_them_back(tmp_path: Path) -> None:
    seed(tmp_path)
    _drop_projections(tmp_path)
    out = ctl("search", "braid", home=tmp_path)
    assert out.returncode != 0 and "projections are missing" in out.stderr and "tapestryctl rebuild" in out.stderr
    assert "ingest" not in out.stderr
    assert ctl("rebuild", home=tmp_path).returncode == 0
    hits = json.loads(ctl("search", "braid", "-f", "json", home=tmp_path).stdout)
    assert matching_keys(hits) == ["m1"]


def test_corrupt_projections_are_set_aside_by_rebuild_only(tmp_path: Path) -> None:
    seed(tmp_path)
    _drop_projections(tmp_path)
    (tmp_path / "projections.db").write_bytes(b"this is not a database, just some text\n" * 50)
    for args in (["search", "braid"], ["stats"], ["backup"], ["forget", "--match", "rope"]):
        out = ctl(*args, home=tmp_path)
        assert out.returncode != 0 and "file is not a database" in out.stderr, args
        assert "run `tapestryctl rebuild`" in out.stderr, args
    out = ctl("rebuild", home=tmp_path)
    assert out.returncode == 0, out.stderr
    aside = list(tmp_path.glob("projections.db.corrupt-*"))
    assert len(aside) == 1 and f"moved it aside to {aside[0]}" in out.stdout
    assert aside[0].read_bytes().startswith(b"this is not a database")
    hits = json.loads(ctl("search", "braid", "-f", "json", home=tmp_path).stdout)
    assert matching_keys(hits) == ["m1"]


@pytest.mark.parametrize("args", [["backup"], ["iterate"], ["rebuild"], ["forget", "--match", "x"], ["compact"]])
def test_write_commands_on_a_mistyped_home_create_nothing(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "typo"
    out = ctl(*args, home=home)
    assert out.returncode != 0 and f"nothing stored yet in {home}" in out.stderr, out.stdout + out.stderr
    assert not (home / "events.db").exists() and not (home / "projections.db").exists()


def test_rebuild_sets_aside_projections_with_damaged_pages(tmp_path: Path) -> None:
    """The header is fine but a page is garbage ('database disk image is malformed'): rebuild
    finds it with quick_check, moves the file aside and recreates the projections."""
    seed(tmp_path)
    db = tmp_path / "projections.db"
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"projections.db{suffix}").unlink(missing_ok=True)
    assert db.stat().st_size >= 4 * 4096
    with db.open("r+b") as fh:
        fh.seek(2 * 4096)
        fh.write(b"\xa5" * 4096)
    out = ctl("rebuild", home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(list(tmp_path.glob("projections.db.corrupt-*"))) == 1
    hits = json.loads(ctl("search", "braid", "-f", "json", home=tmp_path).stdout)
    assert matching_keys(hits) == ["m1"]
