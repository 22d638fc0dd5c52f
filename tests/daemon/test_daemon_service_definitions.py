"""The service definitions: systemd/ and launchd/ are the packaged templates; install-service fills them in."""

from __future__ import annotations

import configparser
import os
import plistlib
import subprocess
from importlib.resources import files
from pathlib import Path

from cli_runner import tapestryctl

from tapestryd.daemon.install import LABEL, plan_service

REPO = Path(__file__).resolve().parents[2]


def unit_sections(text: str) -> configparser.ConfigParser:
    """A systemd unit read as INI (duplicate keys allowed, case kept)."""
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def test_the_top_level_unit_files_are_the_packaged_templates() -> None:
    """One copy: systemd/ and launchd/ point at the files shipped inside the package."""
    packaged = Path(str(files("tapestryd").joinpath("templates")))
    assert (REPO / "systemd" / "tapestryd.service").resolve() == (packaged / "tapestryd.service").resolve()
    assert (REPO / "launchd" / f"{LABEL}.plist").resolve() == (packaged / f"{LABEL}.plist").resolve()


def test_the_systemd_unit_is_type_notify_with_watchdog_and_restart(tmp_path: Path) -> None:
    """Filled in: Type=notify, WatchdogSec, Restart=on-failure, ExecStart quoted, TAPESTRY_HOME set."""
    home = tmp_path / "my home"
    plan = plan_service(kind="systemd", home=home, logs_dir=tmp_path / "logs", command=["/opt/bin/tapestryd"],
                        environ={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")})
    service = unit_sections(plan.content)["Service"]
    assert service["Type"] == "notify" and int(service["WatchdogSec"]) > 0 and service["Restart"] == "on-failure"
    assert service["ExecStart"] == "/opt/bin/tapestryd" and service["ExecReload"] == "/bin/kill -HUP $MAINPID"
    assert f'Environment="TAPESTRY_HOME={home}"' in plan.content
    assert plan.target == tmp_path / "cfg" / "systemd" / "user" / "tapestryd.service"
    assert any("enable --now tapestryd.service" in c for c in plan.commands)


def test_the_launchd_agent_runs_at_load_keeps_alive_and_logs_to_a_file(tmp_path: Path) -> None:
    """Filled in: a valid plist with RunAtLoad, KeepAlive, log paths and the program's arguments."""
    plan = plan_service(kind="launchd", home=tmp_path / "h&q", logs_dir=tmp_path / "logs",
                        command=["/usr/bin/python3", "-m", "tapestryd.daemon.main"], environ={"HOME": str(tmp_path)})
    agent = plistlib.loads(plan.content.encode())
    assert agent["Label"] == LABEL and agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["ProgramArguments"] == ["/usr/bin/python3", "-m", "tapestryd.daemon.main"]
    assert agent["StandardErrorPath"] == agent["StandardOutPath"] == str(tmp_path / "logs" / "tapestryd.log")
    assert agent["EnvironmentVariables"]["TAPESTRY_HOME"] == str(tmp_path / "h&q")
    assert plan.target == tmp_path / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def test_install_service_dry_run_writes_nothing_and_a_real_run_writes_the_unit(home: Path, tmp_path: Path) -> None:
    """tapestryctl install-service [--dry-run] for both platforms, into a private HOME."""
    env = {**os.environ, "TAPESTRY_HOME": str(home), "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}

    def ctl(*args: str) -> subprocess.CompletedProcess[str]:
        return tapestryctl(*args, env=env)

    dry = ctl("install-service", "--dry-run", "--platform", "systemd")
    assert dry.returncode == 0 and "Type=notify" in dry.stdout and "systemctl --user enable --now" in dry.stdout
    assert not (tmp_path / "cfg").exists()
    for platform, target in (("systemd", tmp_path / "cfg" / "systemd" / "user" / "tapestryd.service"),
                             ("launchd", tmp_path / "Library" / "LaunchAgents" / f"{LABEL}.plist")):
        done = ctl("install-service", "--platform", platform)
        assert done.returncode == 0 and f"wrote {target}" in done.stdout, done.stderr
        assert f"TAPESTRY_HOME={home}" in target.read_text() or str(home) in target.read_text()
    log_file = home / "logs" / "tapestryd.log"
    log_file.write_text("one\ntwo\nthree\n")
    logs = ctl("logs", "--platform", "launchd", "-n", "2")
    assert logs.returncode == 0 and str(log_file) in logs.stdout and logs.stdout.endswith("two\nthree\n")
    assert "journalctl --user -u tapestryd.service" in ctl("logs", "--platform", "systemd", "-n", "0").stdout
