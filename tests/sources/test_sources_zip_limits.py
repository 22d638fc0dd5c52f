"""ZIP limits (issue 17): expanded bytes, number of members and compression ratio, each refused
before anything is read, with an error naming the limit and the tapestry.toml setting."""

from __future__ import annotations

import zipfile
from pathlib import Path

from sources_helpers import CHATGPT, ingest

from tapestryd.config import Settings, load_settings
from tapestryd.events.store import EventStore


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _configure(home: Path, lines: str) -> Settings:
    config = home / "tapestry.toml"
    kept = "".join(line for line in config.read_text().splitlines(keepends=True) if not line.startswith("zip_max"))
    config.write_text(kept.replace("[sources]\n", f"[sources]\n{lines}\n"))
    return load_settings(home)


def _error(receipt: dict[str, object]) -> str:
    files = receipt["files"]
    assert isinstance(files, list)
    return str(files[0]["errors"][0])


def test_a_text_bomb_under_the_old_ratio_is_refused(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """8 MiB of repeated JSON lines at a few hundred to one (the 258:1 of the issue passed a 1000:1 guard)."""
    block = "".join(f'{{"id": {i}, "text": "harbour lantern note {i % 7}"}}\n' for i in range(40)).encode()
    bomb = _zip(tmp_path / "bomb.zip", {"conversations.json": block * (8 * 1024**2 // len(block))})
    member = zipfile.ZipFile(bomb).infolist()[0]
    assert 100 < member.file_size / member.compress_size < 1000
    receipt = ingest(store, settings, bomb)
    assert receipt["failed"] and store.count() == 0
    error = _error(receipt)
    assert error.startswith(f"{bomb}: refused") and "compression ratio" in error and "limit 100:1" in error
    assert "zip_max_ratio" in error


def test_too_many_members_are_refused_and_the_setting_raises_the_limit(store: EventStore, home: Path,
                                                                         tmp_path: Path) -> None:
    """More members than zip_max_entries: refused, naming the setting; raised, the export imports."""
    members = {f"images/{i}.png": b"\x89PNG" for i in range(30)} | {"conversations.json": CHATGPT.read_bytes()}
    archive = _zip(tmp_path / "export.zip", members)
    receipt = ingest(store, _configure(home, "zip_max_entries = 20"), archive)
    error = _error(receipt)
    assert "31 files, over the limit of 20" in error and "[sources] zip_max_entries" in error
    assert store.count() == 0
    raised = ingest(store, _configure(home, "zip_max_entries = 40"), archive)
    assert not raised["failed"] and raised["totals"]["messages_new"] > 0


def test_too_many_expanded_bytes_are_refused_naming_the_setting(store: EventStore, home: Path,
                                                                 tmp_path: Path) -> None:
    """Members expanding past zip_max_expanded_mb are refused before anything is read."""
    archive = _zip(tmp_path / "big.zip", {"conversations.json": CHATGPT.read_bytes(),
                                           "chat.html": bytes(range(256)) * 8192})
    error = _error(ingest(store, _configure(home, "zip_max_expanded_mb = 1"), archive))
    assert "over the limit of 1 MiB" in error and "[sources] zip_max_expanded_mb in tapestry.toml" in error
    assert store.count() == 0
