"""Service definitions: the systemd user unit (Linux) and the launchd agent (macOS).

The templates ship inside the package (``tapestryd/templates/tapestryd.service`` and
``dev.tapestry.tapestryd.plist``; the top-level ``systemd/`` and ``launchd/`` folders link
to them). :func:`plan_service` fills them in for this machine (the ``tapestryd``
command, ``TAPESTRY_HOME`` when one is set, the log file) with ``string.Template``, and
:func:`write_service` writes the result. Nothing here starts the service: the plan lists
the commands that enable it. Standard library only (the CLI imports it).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Mapping, Sequence
from xml.sax.saxutils import escape

from tapestryd.errors import TapestryError

__all__ = ["LABEL", "ServicePlan", "daemon_command", "log_destinations", "plan_service", "service_kind",
           "write_service"]

LABEL = "dev.tapestry.tapestryd"
UNIT = "tapestryd.service"
LOG_FILE = "tapestryd.log"
KINDS = ("systemd", "launchd")


@dataclass(frozen=True)
class ServicePlan:
    """A service definition ready to write: ``kind``, ``target`` file, its ``content``,
    the shell ``commands`` that enable it, and where its ``logs`` go."""

    kind: str
    target: Path
    content: str
    commands: tuple[str, ...]
    logs: tuple[str, ...]


def service_kind(platform: str | None = None) -> str:
    """``systemd`` on Linux, ``launchd`` on macOS; TapestryError elsewhere."""
    name = platform or sys.platform
    if name.startswith("linux"):
        return "systemd"
    if name == "darwin":
        return "launchd"
    raise TapestryError(f"install-service knows systemd (Linux) and launchd (macOS), not {name!r}")


def daemon_command() -> list[str]:
    """How to start the daemon: the ``tapestryd`` script beside this Python, else ``python -m``."""
    script = Path(sys.executable).parent / "tapestryd"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "tapestryd.daemon.main"]


def plan_service(*, kind: str, home: Path | None, logs_dir: Path, command: Sequence[str] | None = None,
                 environ: Mapping[str, str] | None = None) -> ServicePlan:
    """The unit (or agent) for ``kind`` running ``command`` (default :func:`daemon_command`).

    ``home`` becomes ``TAPESTRY_HOME`` in the service's environment when set.
    """
    env = os.environ if environ is None else environ
    argv = list(command or daemon_command())
    variables = {"TAPESTRY_HOME": str(home)} if home is not None else {}
    if kind == "systemd":
        return _systemd(argv, variables, env, logs_dir)
    if kind == "launchd":
        return _launchd(argv, variables, env, logs_dir)
    raise TapestryError(f"unknown service kind {kind!r}; expected one of {', '.join(KINDS)}")


def _template(name: str) -> Template:
    return Template(files("tapestryd").joinpath(f"templates/{name}").read_text(encoding="utf-8"))


def _systemd(argv: list[str], variables: dict[str, str], env: Mapping[str, str], logs_dir: Path) -> ServicePlan:
    config = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")
    content = _template(UNIT).substitute(
        exec_start=" ".join(_systemd_quote(a) for a in argv),
        environment="\n".join(f"Environment={_systemd_quote(f'{k}={v}')}" for k, v in variables.items()),
    )
    commands = ("systemctl --user daemon-reload", f"systemctl --user enable --now {UNIT}",
                "loginctl enable-linger \"$USER\"   # optional: keep it running while you are logged out")
    return ServicePlan("systemd", config / "systemd" / "user" / UNIT, content, commands,
                       log_destinations("systemd", logs_dir))


def _systemd_quote(arg: str) -> str:
    """One ExecStart/Environment word, quoted as systemd.syntax(7) reads it (``%`` and ``$`` escaped)."""
    text = arg.replace("%", "%%").replace("$", "$$")
    if not text or any(c in text for c in " \t\"'\\;"):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def _launchd(argv: list[str], variables: dict[str, str], env: Mapping[str, str], logs_dir: Path) -> ServicePlan:
    home = Path(env.get("HOME", "~")).expanduser()
    content = _template(f"{LABEL}.plist").substitute(
        program_arguments="\n".join(f"    <string>{escape(a)}</string>" for a in argv),
        environment="\n".join(f"    <key>{escape(k)}</key>\n    <string>{escape(v)}</string>"
                              for k, v in variables.items()),
        log_path=escape(str(logs_dir / LOG_FILE)),
    )
    target = home / "Library" / "LaunchAgents" / f"{LABEL}.plist"
    commands = (f"launchctl bootout gui/$(id -u)/{LABEL} 2>/dev/null || true",
                f"launchctl bootstrap gui/$(id -u) {target}",
                f"launchctl kickstart -k gui/$(id -u)/{LABEL}")
    return ServicePlan("launchd", target, content, commands, log_destinations("launchd", logs_dir))


def log_destinations(kind: str, logs_dir: Path) -> tuple[str, ...]:
    """Where the daemon's logs go under ``kind`` (a command to read them, or a file)."""
    if kind == "systemd":
        return (f"journalctl --user -u {UNIT} -f",)
    return (str(logs_dir / LOG_FILE),)


def write_service(plan: ServicePlan, *, logs_dir: Path) -> bool:
    """Write ``plan.target`` (and create the log folder); True if a different file was replaced."""
    plan.target.parent.mkdir(parents=True, exist_ok=True)
    logs_dir.mkdir(parents=True, exist_ok=True)
    replaced = plan.target.exists() and plan.target.read_text(encoding="utf-8") != plan.content
    plan.target.write_text(plan.content, encoding="utf-8")
    return replaced
