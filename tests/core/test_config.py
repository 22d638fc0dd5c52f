"""Settings: defaults, the home override, and clear errors for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapestryd.config import load_settings
from tapestryd.errors import ConfigError
from tapestryd.paths import paths_for


def test_home_moves_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TAPESTRY_HOME puts config, databases and inbox under one folder."""
    monkeypatch.setenv("TAPESTRY_HOME", str(tmp_path))
    paths = paths_for(load_settings())
    for path in (paths.config_file, paths.events_db, paths.projections_db, paths.inbox, paths.backups):
        assert tmp_path in path.parents


def test_two_homes_get_two_sockets(tmp_path: Path) -> None:
    """Tests (and users) with several homes never share a daemon socket."""
    assert paths_for(load_settings(tmp_path / "a")).socket != paths_for(load_settings(tmp_path / "b")).socket


def test_defaults_without_a_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No file: Monday weeks, the six default agents, extractive summaries, loopback web."""
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    conf = load_settings(tmp_path)
    assert conf.first_day_of_week == 0 and conf.summarize.provider == "extractive"
    assert {a.name: a.parser for a in conf.agents} == {"claude-code": "claude-code", "chatgpt": "chatgpt",
                                                       "claude-ai": "claude", "codex": "codex",
                                                       "gemini-cli": "gemini", "opencode": "opencode"}
    assert conf.web.host == "127.0.0.1" and conf.sources.inbox == tmp_path / "inbox"
    assert conf.sources.watched_roots[0] == Path("~/.claude/projects").expanduser()


def test_codex_gemini_and_xdg_homes_move_their_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CODEX_HOME is where Codex writes sessions, GEMINI_CLI_HOME Gemini's home, XDG_DATA_HOME OpenCode's data."""
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    sources = load_settings(tmp_path).sources
    assert sources.codex_roots == (tmp_path / "cx" / "sessions", tmp_path / "cx" / "archived_sessions")
    assert sources.opencode_dbs == (tmp_path / "xdg" / "opencode" / "opencode.db",)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    assert load_settings(tmp_path).sources.gemini_roots == (tmp_path / "g" / ".gemini" / "tmp",)


def test_source_roots_from_the_file_and_empty_lists(tmp_path: Path) -> None:
    """Each source's roots can be named in tapestry.toml; [] watches none of that source."""
    (tmp_path / "tapestry.toml").write_text('[sources]\ncodex_roots = ["~/cx"]\ngemini_roots = []\n')
    sources = load_settings(tmp_path).sources
    assert sources.codex_roots == (Path("~/cx").expanduser(),) and sources.gemini_roots == ()
    assert load_settings(tmp_path).warnings == ()


def test_claude_config_dir_moves_the_watched_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLAUDE_CONFIG_DIR is where Claude Code writes its projects."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert load_settings(tmp_path).sources.watched_roots == (tmp_path / "cc" / "projects",)


def test_the_inbox_settle_time_is_a_setting(tmp_path: Path) -> None:
    """Three seconds unless tapestry.toml says otherwise (a slow copy to a network drive needs more)."""
    assert load_settings(tmp_path).sources.inbox_settle == 3.0
    (tmp_path / "tapestry.toml").write_text("[sources]\ninbox_settle = 30\n")
    assert load_settings(tmp_path).sources.inbox_settle == 30.0


def test_an_empty_watched_roots_list_watches_nothing(tmp_path: Path) -> None:
    """``watched_roots = []`` is a choice (the demo home makes it), not a missing key: no default roots."""
    (tmp_path / "tapestry.toml").write_text("[sources]\nwatched_roots = []\n")
    assert load_settings(tmp_path).sources.watched_roots == ()


@pytest.mark.parametrize("toml, fragment", [
    ('[general]\ntimezone = "Mars/Olympus"', "general.timezone"),
    ('[general]\nfirst_day_of_week = "someday"', "first_day_of_week"),
    ('[web]\nport = "eighty"', "web.port"),
    ('[agents.work]\nparser = "word"', "agents.work.parser"),
    ('[schedule]\nrepair_time = "25:00"', "25:00"),
    ("[general\n", "not valid TOML"),
    ("[web]\nport = 99999", "web.port = 99999; expected a number between 0 and 65535"),
    ("[schedule]\nclose_grace_hours = -5", "schedule.close_grace_hours = -5; expected a number between 0 and 8784"),
    ("[sources]\ndebounce = -1", "sources.debounce = -1; expected a number at least 0"),
    ("[sources]\nsweep_interval = 0", "sources.sweep_interval"),
    ("[schedule]\nclose_grace_hours = 100000000", "between 0 and 8784"),
    ("[summarize]\nmax_cost = 5", "summarize.max_cost = 5 needs the provider's prices"),
    ("[summarize]\nmax_cost = -1", "summarize.max_cost = -1; expected a number at least 0"),
])
def test_bad_values_name_the_file_and_key(tmp_path: Path, toml: str, fragment: str) -> None:
    """A mistake in tapestry.toml is a ConfigError naming the file and the key."""
    (tmp_path / "tapestry.toml").write_text(toml)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert fragment in info.value.message and "tapestry.toml" in info.value.message


def test_a_config_that_is_not_utf8_names_the_file_and_byte(tmp_path: Path) -> None:
    """A Latin-1 byte in tapestry.toml is a ConfigError, not a UnicodeDecodeError traceback."""
    (tmp_path / "tapestry.toml").write_bytes(b'[general]\n# caf\xe9\ntimezone = "UTC"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert "tapestry.toml: not UTF-8 (byte 15)" in info.value.message


def test_api_key_comes_from_dotenv_not_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The provider key is read from <data>/.env and never shown in the settings' repr."""
    monkeypatch.delenv("TAPESTRY_API_KEY", raising=False)
    (tmp_path / ".env").write_text("TAPESTRY_API_KEY=sk-test-123\n")
    (tmp_path / ".env").chmod(0o600)
    conf = load_settings(tmp_path)
    assert conf.summarize.api_key == "sk-test-123" and "sk-test-123" not in repr(conf)


def test_a_dotenv_readable_by_others_is_warned_about_without_its_value(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A .env holding the key must be 0600; otherwise a warning names the file, never the key."""
    from structlog.testing import capture_logs

    monkeypatch.delenv("TAPESTRY_API_KEY", raising=False)
    (tmp_path / ".env").write_text("TAPESTRY_API_KEY=sk-test-secret\n")
    (tmp_path / ".env").chmod(0o644)
    with capture_logs() as logs:
        assert load_settings(tmp_path).summarize.api_key == "sk-test-secret"
    warned = [entry for entry in logs if entry["event"] == "dotenv.insecure_mode"]
    assert warned and warned[0]["path"] == str(tmp_path / ".env") and "sk-test-secret" not in repr(logs)
    (tmp_path / ".env").chmod(0o600)
    with capture_logs() as quiet:
        load_settings(tmp_path)
    assert not [entry for entry in quiet if entry["event"] == "dotenv.insecure_mode"]
