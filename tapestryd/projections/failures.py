"""Failures of a background task, logged once per distinct error instead of at every retry.

A poller that retries every few seconds would otherwise write the same traceback to the log
every few seconds for as long as the cause lasts. :class:`Failures` remembers the last
error of each task (its type and message) and logs it again only when it changes, or after
the task has succeeded in between.
"""

from __future__ import annotations

import threading
from typing import Any

from tapestryd.lazylog import get_logger

__all__ = ["Failures"]

log = get_logger(__name__)


class Failures:
    """The last error of each named task, logged as ``<prefix>.<task>_failed`` when new and
    ``<prefix>.<task>_recovered`` when the task next succeeds. Thread-safe."""

    def __init__(self, prefix: str, **fields: Any) -> None:
        self.prefix = prefix
        self.fields = fields
        self._last: dict[str, str] = {}
        self._lock = threading.Lock()

    def failed(self, task: str, exc: BaseException) -> bool:
        """Note that ``task`` raised ``exc``; log it with its traceback unless it is the error
        logged last for ``task``. Returns whether it was logged (a new error)."""
        text = f"{type(exc).__name__}: {exc}"
        with self._lock:
            if self._last.get(task) == text:
                return False
            self._last[task] = text
        log.error(f"{self.prefix}.{task}_failed", error=text, exc_info=exc, **self.fields)
        return True

    def succeeded(self, task: str) -> None:
        """Note that ``task`` ran without error; log the recovery when it had failed."""
        with self._lock:
            previous = self._last.pop(task, None)
        if previous is not None:
            log.info(f"{self.prefix}.{task}_recovered", after=previous, **self.fields)

    def current(self) -> dict[str, str]:
        """The error of each task that failed last time it ran, by task name."""
        with self._lock:
            return dict(self._last)
