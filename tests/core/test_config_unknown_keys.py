"""Unknown keys in tapestry.toml: a warning naming the file, section and key (and the closest
known key), never an error; the rest of the file still applies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapestryd.config import load_settings

REPO = Path(__file__).resolve().parents[2]


def _warnings(tmp_path: Path, toml: str) -> tuple[str, ...]:
    (tmp_path / "tapestry.toml").write_text(toml)
    return load_settings(tmp_path).warnings


def test_a_typo_in_a_section_is_a_warning_with_the_closest_key(tmp_path: Path) -> None:
    """`timezon` in [general]: the file loads, and the warning names file, section, key and `timezone`."""
    (tmp_path / "tapestry.toml").write_text('[general]\ntimezon = "Mars/Olympus"\nfirst_day_of_week = "sunday"\n')
    conf = load_settings(tmp_path)
    assert conf.first_day_of_week == 6
    expected = f"{tmp_path / 'tapestry.toml'}: unknown key 'timezon' in [general] (ignored); did you mean 'timezone'?"
    assert conf.warnings == (expected,)


@pytest.mark.parametrize("toml, expected", [
    ('[genral]\ntimezone = "UTC"\n', "unknown section [genral] (ignored); did you mean [general]?"),
    ('timezone = "UTC"\n', ("unknown key 'timezone' at the top level, outside any [section] (ignored); "
                           "did you mean 'timezone' in [general]?")),
    ('[web]\nrepair_time = "03:00"\n', ("unknown key 'repair_time' in [web] (ignored); "
                                       "did you mean 'repair_time' in [schedule]?")),
    ('[agents.work]\nparser = "claude"\ncolour = "#aa0000"\n', ("unknown key 'colour' in [agents.work] (ignored); "
                                                               "did you mean 'color'?")),
    ("[summarize]\nqqqq = 1\n", "unknown key 'qqqq' in [summarize] (ignored)"),
])
def test_each_unknown_key_is_named_with_its_section(tmp_path: Path, toml: str, expected: str) -> None:
    """Unknown sections, top-level keys, keys of another section and agent keys are each one warning."""
    assert _warnings(tmp_path, toml) == (f"{tmp_path / 'tapestry.toml'}: {expected}",)


def test_the_shipped_configs_have_no_unknown_keys(tmp_path: Path) -> None:
    """Every key of the example and of the `init` template is one the settings read."""
    for source in (REPO / "config" / "tapestry.example.toml", REPO / "tapestryd" / "templates" / "tapestry.toml"):
        assert load_settings(tmp_path, config_file=source).warnings == (), source


def test_no_file_no_warnings(tmp_path: Path) -> None:
    """A home without tapestry.toml loads with no warnings."""
    assert load_settings(tmp_path).warnings == ()
