"""The operation registry: every request the socket (or the CLI, locally) can make.

An operation is a plain function registered under a name with :func:`read_op` or
:func:`write_op`:

* a **read** op takes ``(reader: Reader, args: dict)``; the daemon runs it on a server
  thread with its own read connection, the CLI runs it on a read-only Reader;
* a **write** op takes ``(runtime: Runtime, args: dict)``; the daemon runs it on its one
  writer thread, the CLI after taking the writer lock.

Both return JSON-ready values. A user mistake raises a TapestryError, which the server
turns into an error response with a code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["OPS", "OpSpec", "read_op", "write_op"]


@dataclass(frozen=True)
class OpSpec:
    """One operation: its name, function and kind (``read`` or ``write``)."""

    name: str
    fn: Callable[[Any, dict[str, Any]], Any]
    kind: str


OPS: dict[str, OpSpec] = {}


def _register(name: str, kind: str) -> Callable[[Callable[[Any, dict[str, Any]], Any]], Callable[[Any, dict[str, Any]], Any]]:
    def decorate(fn: Callable[[Any, dict[str, Any]], Any]) -> Callable[[Any, dict[str, Any]], Any]:
        OPS[name] = OpSpec(name, fn, kind)
        return fn

    return decorate


def read_op(name: str) -> Callable[[Callable[[Any, dict[str, Any]], Any]], Callable[[Any, dict[str, Any]], Any]]:
    """Register a read-only operation ``fn(reader, args)``."""
    return _register(name, "read")


def write_op(name: str) -> Callable[[Callable[[Any, dict[str, Any]], Any]], Callable[[Any, dict[str, Any]], Any]]:
    """Register a writing operation ``fn(runtime, args)``."""
    return _register(name, "write")
