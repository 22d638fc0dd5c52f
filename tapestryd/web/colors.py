"""Agent colours: stored in tapestry.toml as ``[agents.NAME] color = "#rrggbb"``.

The config file is the place a person edits by hand, survives ``tapestryctl rebuild`` and is
re-read by the daemon on SIGHUP, so the colour picker writes there (with tomlkit, which
keeps the file's comments and layout). An agent without a colour gets its default (the
built-in agents: Claude Code orange, ChatGPT green, Claude.ai violet) or a stable one from a
palette (Tableau 10, its grey swapped for cyan) picked by the CRC-32 of its name.
"""

from __future__ import annotations

import os
import re
import tomllib
import zlib
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from tapestryd.errors import ConfigError

__all__ = ["PALETTE", "color_for", "read_colors", "save_color"]

PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#17becf")
_DEFAULTS = {"claude-code": "#d97757", "chatgpt": "#10a37f", "claude-ai": "#6a5acd"}
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
_AGENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def read_colors(config_file: Path) -> dict[str, str]:
    """Each agent's configured colour (valid ``#rrggbb`` only) from ``config_file``; {} if absent."""
    try:
        raw = tomllib.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    agents = raw.get("agents", {})
    if not isinstance(agents, dict):
        return {}
    return {name: str(t["color"]).lower() for name, t in agents.items()
            if isinstance(t, dict) and _COLOR.match(str(t.get("color", "")))}


def color_for(agent: str, colors: dict[str, str]) -> str:
    """The agent's configured colour, else its default (the built-in agents), else a stable palette colour."""
    return colors.get(agent) or _DEFAULTS.get(agent) or PALETTE[zlib.crc32(agent.encode()) % len(PALETTE)]


def save_color(config_file: Path, agent: str, color: str) -> None:
    """Set ``[agents.<agent>] color`` in ``config_file`` (created if missing), keeping comments.

    Raises ConfigError for a colour that is not ``#rrggbb``, an agent name outside
    ``[A-Za-z0-9_.-]`` (64 characters at most), or a config file that is not valid TOML.
    """
    if not _COLOR.match(color):
        raise ConfigError(f"colour {color!r} is not of the form #rrggbb")
    if not _AGENT.match(agent):
        raise ConfigError(f"agent name {agent!r} may hold only letters, digits, '.', '_' and '-'")
    doc = _load(config_file)
    agents = doc.setdefault("agents", tomlkit.table(is_super_table=True))
    table = agents.setdefault(agent, tomlkit.table())
    table["color"] = color.lower()
    _write(config_file, tomlkit.dumps(doc))


def _load(config_file: Path) -> tomlkit.TOMLDocument:
    if not config_file.exists():
        return tomlkit.document()
    try:
        return tomlkit.parse(config_file.read_text(encoding="utf-8"))
    except (TOMLKitError, OSError) as exc:
        raise ConfigError(f"{config_file}: cannot update agent colours: {exc}") from exc


def _write(config_file: Path, text: str) -> None:
    config_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = config_file.with_name(f".{config_file.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, config_file)
