"""Module loggers that import structlog at their first log line, not when their module is imported.

structlog brings rich (for pretty tracebacks), pygments and asyncio with it: about 0.2
CPU-seconds, a third of a read-only ``tapestryctl search`` without the daemon (issue 13 allows
0.5 in all). The modules such a command imports log through :func:`get_logger`, so a command
that logs nothing never imports structlog, and :func:`when_loaded` lets the CLI set structlog
up at the first line instead of at start.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

__all__ = ["LazyLogger", "get_logger", "warnings_to_stderr", "when_loaded"]

_pending: list[Callable[[], None]] = []


def when_loaded(configure: Callable[[], None]) -> None:
    """Run ``configure()`` (which sets structlog up) now when structlog is imported already,
    else just before the first line a :class:`LazyLogger` logs."""
    if "structlog" in sys.modules:
        configure()
    else:
        _pending.append(configure)


class LazyLogger:
    """Stands for ``structlog.get_logger(name)``: the first attribute asked for (``info``,
    ``warning``, ``bind`` ...) imports structlog, runs what :func:`when_loaded` holds, and
    from then on the structlog logger answers."""

    __slots__ = ("_name", "_logger")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._logger is None:
            import structlog

            while _pending:
                _pending.pop(0)()
            self._logger = structlog.get_logger(self._name)
        return getattr(self._logger, attribute)


def warnings_to_stderr() -> None:
    """Set structlog up to print warnings and worse to whatever ``sys.stderr`` is when a line is
    logged, never to the stream it was at set-up (a test runner's captured stream, closed by the
    time a later line comes, raised "I/O operation on closed file")."""
    import logging

    import structlog

    structlog.configure(logger_factory=lambda *_: structlog.PrintLogger(sys.stderr),
                        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def get_logger(name: str) -> Any:
    """A :class:`LazyLogger` for module ``name`` (typed ``Any``, as ``structlog.get_logger`` is)."""
    return LazyLogger(name)
