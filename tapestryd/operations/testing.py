"""Run an operation by name on JSON ``args`` against an open Runtime or Reader, as the daemon does.

For tests and benchmarks that hold a home open themselves: a read or control op gets a
:class:`~tapestryd.queries.reader.Reader` (a Runtime's projector connection is wrapped in one),
a write op needs the Runtime. The answer is the result's JSON, what the socket would send.
"""

from __future__ import annotations

from typing import Any, Mapping

from tapestryd.clock import Clock, SystemClock
from tapestryd.operations.base import WRITE, ReadDeps, WriteDeps
from tapestryd.operations.codec import decode
from tapestryd.operations.dispatch import in_process_summarizer
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.runtime import Runtime
from tapestryd.queries.reader import Reader

__all__ = ["run_json"]


def run_json(name: str, target: Runtime | Reader, args: Mapping[str, Any] | None = None, *,
             clock: Clock | None = None, peer_uid: int | None = None) -> Any:
    """The JSON answer of operation ``name`` to ``args`` (extra keys ignored, as on the socket).

    Raises KeyError for an unknown name, TypeError when a write op is given a Reader.
    """
    operation = OPERATIONS[name]
    request = decode(operation.request, args or {})
    clock = clock or SystemClock()
    if operation.kind == WRITE:
        if not isinstance(target, Runtime):
            raise TypeError(f"{name} writes: give it a Runtime")
        return operation.run(request, WriteDeps(target, clock, in_process_summarizer, peer_uid=peer_uid)).to_json()
    reader = target if isinstance(target, Reader) else Reader(target.settings, target.paths, target.projector.conn)
    return operation.run(request, ReadDeps(reader, clock)).to_json()
