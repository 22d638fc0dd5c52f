"""Logging for the daemon: structlog, key-value on a terminal, JSON lines under a service manager.

The format is chosen once at start (:func:`log_format`): ``console`` when stderr is a
terminal and no service manager runs us, ``json`` otherwise (systemd sets
``INVOCATION_ID`` and ``JOURNAL_STREAM``; launchd redirects stderr to a file). Records of
the standard library's ``logging`` (watchdog, APScheduler) go through the same
processors, so every line has one shape.

Secrets never reach a line: the :class:`Redactor` replaces every occurrence of a configured
secret (the provider API key) in any string value with ``[redacted]``, and drops values
of keys that name a secret (``api_key``, ``authorization``, ``password``, ``token``).

Terminal colour codes (ANSI SGR escapes, e.g. those werkzeug's access log puts around a
request line) are removed from every string value: a log line holds plain text.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Any, Iterable, MutableMapping

import structlog

__all__ = ["Redactor", "configure_logging", "log_format", "set_secrets", "strip_ansi"]

_SECRET_KEYS = frozenset({"api_key", "apikey", "authorization", "password", "token", "secret"})
_QUIET_LIBRARIES = ("apscheduler", "watchdog")
REDACTED = "[redacted]"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # ECMA-48 CSI sequences (colours, bold)

def log_format(requested: str = "auto", *, environ: MutableMapping[str, str] | None = None,
               stream: Any = None) -> str:
    """``console`` or ``json``: the requested one, else JSON under a service manager or off a TTY."""
    if requested in ("console", "json"):
        return requested
    env = os.environ if environ is None else environ
    under_manager = bool(env.get("INVOCATION_ID") or env.get("JOURNAL_STREAM"))
    tty = bool(getattr(stream or sys.stderr, "isatty", lambda: False)())
    return "console" if tty and not under_manager else "json"


class Redactor:
    """A structlog processor that removes secrets (non-empty strings) from every value.

    Values of keys that name a secret are replaced whole; :meth:`update` swaps the
    secrets (after a config reload brought a new API key).
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.words: tuple[str, ...] = ()
        self.update(secrets)

    def update(self, secrets: Iterable[str]) -> None:
        """Redact these secrets from now on."""
        self.words = tuple(s for s in secrets if s)

    def __call__(self, _logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        for key, value in list(event.items()):
            if key.lower() in _SECRET_KEYS and value:
                event[key] = REDACTED
            elif self.words:
                event[key] = _scrub(value, self.words)
        return event


_redactor = Redactor()


def set_secrets(secrets: Iterable[str]) -> None:
    """Replace the secrets every configured log line is scrubbed of."""
    _redactor.update(secrets)


def _scrub(value: Any, words: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for word in words:
            value = value.replace(word, REDACTED)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_scrub(v, words) for v in value)
    if isinstance(value, dict):
        return {k: _scrub(v, words) for k, v in value.items()}
    return value


def strip_ansi(_logger: Any, _name: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A structlog processor removing terminal colour codes from every top-level string value."""
    for key, value in list(event.items()):
        if isinstance(value, str) and "\x1b" in value:
            event[key] = _ANSI.sub("", value)
    return event


def configure_logging(*, fmt: str = "auto", level: str = "info", secrets: Iterable[str] = ()) -> str:
    """Send structlog and stdlib ``logging`` to stderr in one format; returns the format used.

    ``level`` is a stdlib level name (``debug``, ``info``, ``warning``, ...).
    """
    chosen = log_format(fmt)
    set_secrets(secrets)
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _redactor,
        strip_ansi,
    ]
    renderer = (structlog.dev.ConsoleRenderer(colors=False) if chosen == "console"
                else structlog.processors.JSONRenderer())
    structlog.configure(
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.ExtraAdder(), *shared],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in _QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    return chosen
