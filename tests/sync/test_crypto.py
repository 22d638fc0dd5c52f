"""The sync key and the sealing of payloads (AES-GCM)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tapestryd.errors import SyncError
from tapestryd.sync.crypto import Opened, Sealer, key_from_passphrase, key_id, load_key, new_key, passphrase, save_key

ENVELOPE = ("e1", "laptop", "MessageRecorded", 2, "2026-01-02T03:04:05.000000Z")


def test_passphrase_round_trips_and_catches_a_typo() -> None:
    key = new_key()
    text = passphrase(key)
    assert text.startswith("tps1-") and key_from_passphrase(text) == key
    assert key_from_passphrase(" " + text.lower().replace("-", " ") + "\n") == key
    broken = text[:10] + ("A" if text[10] != "A" else "B") + text[11:]
    with pytest.raises(SyncError, match="checksum"):
        key_from_passphrase(broken)
    with pytest.raises(SyncError, match="tps1"):
        key_from_passphrase("hunter2")


def test_key_file_is_private(tmp_path: Path) -> None:
    os.umask(0o022)
    key = new_key()
    save_key(tmp_path / "sync.key", key)
    assert stat.S_IMODE((tmp_path / "sync.key").stat().st_mode) == 0o600
    assert load_key(tmp_path / "sync.key") == key
    with pytest.raises(SyncError, match="sync init"):
        load_key(tmp_path / "missing.key")


def test_seal_open_binds_the_envelope() -> None:
    sealer = Sealer(new_key())
    opened = Opened("claude-code", "/home/a/\udcff.jsonl:12", '{"text":"secret \ud83d"}', "2026-01-02T03:04:06.000000Z")
    sealed = sealer.seal(*ENVELOPE, opened)
    assert b"secret" not in sealed.ciphertext and sealed.key_id == sealer.key_id
    assert sealer.open(*ENVELOPE, sealed) == opened
    with pytest.raises(SyncError, match="does not open"):
        sealer.open("e1", "desktop", *ENVELOPE[2:], sealed)  # an altered envelope
    other = Sealer(new_key())
    with pytest.raises(SyncError, match="another key"):
        other.open(*ENVELOPE, sealed)
    assert key_id(b"\0" * 32) != key_id(b"\1" * 32)
