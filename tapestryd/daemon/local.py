"""Run an operation in this process, as the CLI does when no daemon runs.

Read ops get a read-only Reader; write ops take the writer lock through a Runtime for the
length of the call, so the CLI and a daemon never write the same home at once.
"""

from __future__ import annotations

from typing import Any

from tapestryd.config import Settings
from tapestryd.daemon.ops import OPS
from tapestryd.daemon.runtime import Runtime
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader

__all__ = ["call_local"]


def call_local(settings: Settings, op: str, args: dict[str, Any]) -> Any:
    """Run operation ``op`` with ``args`` here; raises TapestryError for an unknown op."""
    spec = OPS.get(op)
    if spec is None:
        raise TapestryError(f"unknown operation {op!r}")
    if spec.kind == "write":
        with Runtime.open(settings, role="cli") as runtime:
            return spec.fn(runtime, args)
    with Reader.open(settings) as reader:
        return spec.fn(reader, args)
