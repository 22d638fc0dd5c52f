"""``tapestryd``: the daemon, in the foreground (systemd or launchd do the rest).

Usage: ``tapestryd [run] [--home DIR] [--log-format auto|console|json] [--log-level LEVEL]``.

Signals: SIGTERM and SIGINT stop it cleanly (exit 0 within 5 s, socket removed); SIGHUP
reloads tapestry.toml. Under systemd (``Type=notify``) it sends ``READY=1`` once serving
and ``WATCHDOG=1`` while its writer thread lives. Exit codes: 0 stopped cleanly (or
``TAPESTRY_DISABLE`` set), 1 could not start (another instance holds the home, a database
or the socket failed), 2 invalid configuration (a bad value, or a ``[summarize]`` section
naming no usable provider: the one line ``iterate`` would print).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import threading
from types import FrameType
from typing import Sequence

import structlog

from tapestryd import __version__
from tapestryd.config import Settings, load_settings
from tapestryd.daemon.logs import configure_logging
from tapestryd.daemon.notify import Notifier
from tapestryd.daemon.service import Service, check_summarizer, log_config_warnings
from tapestryd.errors import ConfigError, StoreLockedError, TapestryError

__all__ = ["main", "run"]

log = structlog.get_logger(__name__)

TICK = 0.5  # seconds between checks of signals (and watchdog pings when systemd asks more often)


class _Signals:
    """Flags set by signal handlers, read by the main loop."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.reload = threading.Event()

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        signal.signal(signal.SIGHUP, self._reload)

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop.set()

    def _reload(self, signum: int, frame: FrameType | None) -> None:
        self.reload.set()


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tapestryd", description="tapestryd: the memory daemon (runs in the "
                                     "foreground; install it as a service with `tapestryctl install-service`).")
    parser.add_argument("command", nargs="?", choices=["run"], default="run", help="run the daemon (the default)")
    parser.add_argument("--home", help="directory holding config and data (default: TAPESTRY_HOME or platformdirs)")
    parser.add_argument("--log-format", choices=["auto", "console", "json"], default="auto",
                        help="console on a terminal, JSON lines under a service manager (auto)")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.add_argument("--version", action="version", version=f"tapestryd {__version__}")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the daemon until SIGTERM; exits the process with its code (see the module docstring)."""
    args = _parse(argv)
    settings = _settings(args.home)
    configure_logging(fmt=args.log_format, level=args.log_level, secrets=[settings.summarize.api_key])
    log_config_warnings(settings)
    if settings.disabled:
        log.info("daemon.disabled", reason="TAPESTRY_DISABLE is set")
        sys.exit(0)
    code = run(settings)
    gc.collect()  # multiprocessing objects left in reference cycles unlink their semaphores (else: "leaked")
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # job threads of a library may linger; exit now, everything is closed


def _settings(home: str | None) -> Settings:
    """The home's settings; exits 2 with one line for an invalid value or summarizer provider."""
    try:
        settings = load_settings(home)
        if not settings.disabled:
            check_summarizer(settings)
    except ConfigError as exc:
        print(f"tapestryd: {exc.message}", file=sys.stderr)
        sys.exit(2)
    return settings


def run(settings: Settings, *, notifier: Notifier | None = None) -> int:
    """Start the service, serve until a stop signal, stop; returns the exit code."""
    signals = _Signals()
    signals.install()
    notifier = notifier or Notifier()
    service = Service(settings, notifier=notifier)
    try:
        service.start()
    except StoreLockedError as exc:
        print(f"tapestryd: {exc.message}; not starting a second instance", file=sys.stderr)
        return 1
    except TapestryError as exc:
        print(f"tapestryd: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:  # a read-only or foreign data dir: the machine's state, not a bug
        if exc.filename is None:
            raise
        print(f"tapestryd: {exc.filename}: {exc.strerror}", file=sys.stderr)
        service.stop()
        return 1
    notifier.ready(f"serving on {service.paths.socket}")
    _serve(service, signals, notifier)
    service.stop()
    return 0


def _serve(service: Service, signals: _Signals, notifier: Notifier) -> None:
    tick = min(TICK, notifier.watchdog_interval or TICK)
    while not signals.stop.wait(tick):
        if signals.reload.is_set():
            signals.reload.clear()
            _reload(service)
        if service.healthy():
            notifier.ping()
    log.info("daemon.stopping", reason="signal")


def _reload(service: Service) -> None:
    try:
        service.reload()
    except TapestryError as exc:
        log.error("daemon.reload_failed", error=exc.message)


if __name__ == "__main__":
    main()
