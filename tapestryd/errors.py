"""The error tree of tapestryd.

Every error a user can cause derives from :class:`TapestryError`; the CLI prints its
message without a traceback. Third-party exceptions are translated at the boundary where
they occur (``raise ... from exc``).

::

    TapestryError                 user-facing; the CLI prints .message and exits non-zero
    ├── ConfigError               tapestry.toml or environment is invalid
    ├── StoreError                a database cannot be opened, read or written
    │   └── StoreLockedError      another process holds the writer lock
    ├── ParseError                an input file (or a part of it) cannot be understood
    │   ├── UnknownFormatError    content matches none of the parsers
    │   └── ArchiveError          a ZIP is unreadable, unsafe or too large
    ├── DaemonError               the daemon cannot be reached or answered with an error
    │   └── DaemonNotRunning      no daemon listens on the socket
    └── ProviderError             a summarizer provider failed (network, HTTP, budget)

Expected conditions (a duplicate event, a half-written line) are return values and log
lines, never exceptions.
"""

from __future__ import annotations

__all__ = [
    "TapestryError",
    "ConfigError",
    "DiskFullError",
    "StoreError",
    "StoreLockedError",
    "ParseError",
    "UnknownFormatError",
    "ArchiveError",
    "SyncError",
    "DaemonError",
    "DaemonNotRunning",
    "ProviderError",
]


class TapestryError(Exception):
    """Base of every error a user can cause or fix; ``message`` is printed as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigError(TapestryError):
    """The configuration file or an environment variable holds an invalid value."""


class StoreError(TapestryError):
    """A database file cannot be opened, read or written (disk full, read-only, corrupt)."""


class DiskFullError(StoreError):
    """A database could not grow: its file system is full. ``database`` is the file's path."""

    def __init__(self, message: str, database: str) -> None:
        super().__init__(message)
        self.database = database


class StoreLockedError(StoreError):
    """Another process holds the single-writer lock; ``pid`` names it when known."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


class ParseError(TapestryError):
    """An input cannot be parsed; ``location`` names the file, line or conversation."""

    def __init__(self, message: str, location: str = "") -> None:
        super().__init__(f"{location}: {message}" if location else message)
        self.location = location
        self.reason = message


class UnknownFormatError(ParseError):
    """The file's content matches none of the known export formats."""


class ArchiveError(ParseError):
    """A ZIP archive is unreadable, holds an unsafe member, or expands beyond the limit."""


class DaemonError(TapestryError):
    """The daemon answered with an error, or the socket call failed or timed out."""

    def __init__(self, message: str, code: str = "internal") -> None:
        super().__init__(message)
        self.code = code


class DaemonNotRunning(DaemonError):
    """No daemon is listening on the socket."""

    def __init__(self, message: str = "tapestryd is not running") -> None:
        super().__init__(message, code="not_running")


class ProviderError(TapestryError):
    """A summarizer provider failed; ``retryable`` says whether a later try may succeed."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class SyncError(TapestryError):
    """Sync with the hub failed: no key, a bad key, or the hub unreachable, slow or refusing.

    Local capture, search and summaries never depend on it; the next sync round retries.
    """
