"""`sync init`: a new key shown once, another machine's key taken, a different key replaced only with --force."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tapestryd.config import load_settings
from tapestryd.errors import SyncError
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import SyncInitRequest, SyncStatusRequest
from tapestryd.paths import paths_for
from tapestryd.sync.crypto import load_key, new_key, passphrase


def test_init_makes_a_key_once_takes_another_and_replaces_only_with_force(tmp_path: Path) -> None:
    (tmp_path / "tapestry.toml").write_text('[sync]\nmachine = "laptop"\nurl = "postgresql://me@hub.example/t"\n')
    settings = load_settings(tmp_path)
    made = run_here(settings, SyncInitRequest()).to_json()
    key_file = paths_for(settings).sync_key
    assert made["created"] and made["passphrase"].startswith("tps1-") and made["hub"] == "postgresql://me@hub.example/t"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = run_here(settings, SyncInitRequest()).to_json()
    assert not again["created"] and "passphrase" not in again and again["key_id"] == made["key_id"]
    assert run_here(settings, SyncInitRequest(key=made["passphrase"])).to_json()["key_id"] == made["key_id"]

    other = passphrase(new_key())
    with pytest.raises(SyncError, match="--force"):
        run_here(settings, SyncInitRequest(key=other))
    with pytest.raises(SyncError, match="checksum"):
        run_here(settings, SyncInitRequest(key=other[:10] + ("A" if other[10] != "A" else "B") + other[11:],
                                           force=True))
    replaced = run_here(settings, SyncInitRequest(key=other, force=True)).to_json()
    assert replaced["key_id"] != made["key_id"] and "passphrase" not in replaced
    assert passphrase(load_key(key_file)) == other

    status = run_here(settings, SyncStatusRequest()).to_json()
    assert status["enabled"] and status["key"] and status["machine"] == "laptop" and status["last_success"] == ""
