"""[sync] settings: the machine name, the hub URL (its password never from the TOML) and the interval."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tapestryd.config import load_settings
from tapestryd.errors import ConfigError


@pytest.fixture(autouse=True)
def _no_sync_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAPESTRY_SYNC_URL", raising=False)
    monkeypatch.delenv("TAPESTRY_SYNC_PASSWORD", raising=False)


def home(tmp_path: Path, toml: str, dotenv: str = "") -> Path:
    (tmp_path / "tapestry.toml").write_text(toml, encoding="utf-8")
    if dotenv:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
        os.chmod(tmp_path / ".env", 0o600)
    return tmp_path


def test_defaults_are_the_host_name_no_hub_and_a_minute(tmp_path: Path) -> None:
    """Without [sync] the machine is the host name, sync is off and rounds are 60 s apart."""
    sync = load_settings(tmp_path).sync
    assert (sync.machine, sync.url, sync.enabled, sync.interval) == (socket.gethostname(), "", False, 60.0)


def test_the_toml_names_machine_url_and_interval(tmp_path: Path) -> None:
    """Every [sync] key is read as written."""
    sync = load_settings(home(tmp_path, '[sync]\nmachine = "laptop"\nurl = "postgresql://me@hub/tapestry"\n'
                                        'interval = 15\n')).sync
    assert (sync.machine, sync.url, sync.interval) == ("laptop", "postgresql://me@hub/tapestry", 15.0)


def test_a_password_in_the_toml_is_refused_without_echoing_it(tmp_path: Path) -> None:
    """The hub's password belongs in the environment or .env; the error names the key, not the secret."""
    with pytest.raises(ConfigError, match="sync.url holds a password; put it in TAPESTRY_SYNC_PASSWORD") as err:
        load_settings(home(tmp_path, '[sync]\nurl = "postgresql://me:hunter2@hub/tapestry"\n'))
    assert "hunter2" not in str(err.value)


def test_the_password_comes_from_dotenv(tmp_path: Path) -> None:
    """TAPESTRY_SYNC_PASSWORD in <data>/.env completes the TOML's URL, percent-encoded; safe_url hides it."""
    sync = load_settings(home(tmp_path, '[sync]\nurl = "postgresql://me@hub:5433/tapestry"\n',
                              "TAPESTRY_SYNC_PASSWORD=p@ss/word\n")).sync
    assert sync.url == "postgresql://me:p%40ss%2Fword@hub:5433/tapestry"
    assert sync.safe_url == "postgresql://me:***@hub:5433/tapestry" and "p%40ss" not in repr(sync)


def test_the_environment_url_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TAPESTRY_SYNC_URL, password and all, replaces the TOML's URL."""
    monkeypatch.setenv("TAPESTRY_SYNC_URL", "postgresql+psycopg://me:s3cret@other/db")
    sync = load_settings(home(tmp_path, '[sync]\nurl = "postgresql://me@hub/tapestry"\n')).sync
    assert sync.url == "postgresql+psycopg://me:s3cret@other/db" and sync.enabled


@pytest.mark.parametrize(("toml", "env", "message"), [
    ('[sync]\nurl = "mysql://me@hub/db"\n', "", "sync.url: expected a postgresql:// URL, got scheme 'mysql'"),
    ('[sync]\nurl = "postgresql://me@hub:port/db"\n', "", "sync.url: not a URL"),
    ("", "TAPESTRY_SYNC_URL=http://me:pw@hub/db\n", "TAPESTRY_SYNC_URL: expected a postgresql:// URL"),
    ('[sync]\nurl = "postgresql://hub/db"\n', "TAPESTRY_SYNC_PASSWORD=pw\n", "the URL names no user"),
    ('[sync]\ninterval = 0\n', "", "sync.interval = 0; expected a number at least 1"),
    ('[sync]\nmachine = "a\\tb"\n', "", "sync.machine = 'a\\\\tb'; expected a printable name"),
])
def test_bad_sync_values_are_one_clear_error(tmp_path: Path, toml: str, env: str, message: str) -> None:
    """Each bad value names its key (or variable)."""
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("+", r"\+")):
        load_settings(home(tmp_path, toml, env))
