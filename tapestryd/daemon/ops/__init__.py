"""Operations served over the socket and run locally by the CLI.

Each operation lives in one module of this package, named in :data:`MODULES`; importing
that module registers it (:mod:`tapestryd.daemon.ops.registry`). Importing this package
loads none of them:

* :func:`find_op` loads only the module of the op asked for, so ``tapestryctl search``
  without a daemon never imports numpy or the summarizers (``hierarchy_ops`` does);
* ``OPS`` (``from tapestryd.daemon.ops import OPS``, as the daemon does) loads every
  module first and is the full registry.
"""

from __future__ import annotations

import importlib
from typing import Any

from tapestryd.daemon.ops.registry import OPS as _REGISTERED
from tapestryd.daemon.ops.registry import OpSpec, read_op, write_op

__all__ = ["MODULES", "OPS", "OpSpec", "all_ops", "find_op", "read_op", "write_op"]

MODULES: dict[str, tuple[str, ...]] = {
    "core": ("ping", "search", "conversations", "show", "messages", "stats", "ingest", "rebuild", "catch_up"),
    "daemon_ops": ("status", "pause", "resume", "reload"),
    "hierarchy_ops": ("iterate", "generate", "close_days", "repair", "tree", "hierarchy_status"),
    "quality_ops": ("eval", "drift"),
    "query_ops": ("context", "similar", "recall", "node"),
    "safety_ops": ("forget", "compact", "backup"),
}
"""Module of this package → the operations it registers (a test holds this equal to the registry)."""

_MODULE_OF = {op: module for module, ops in MODULES.items() for op in ops}


def find_op(name: str) -> OpSpec | None:
    """The operation called ``name``, importing only its module; None for an unknown name."""
    if name not in _REGISTERED and name in _MODULE_OF:
        importlib.import_module(f"{__name__}.{_MODULE_OF[name]}")
    return _REGISTERED.get(name)


def all_ops() -> dict[str, OpSpec]:
    """The full registry (name → OpSpec), every module of :data:`MODULES` imported."""
    for module in MODULES:
        importlib.import_module(f"{__name__}.{module}")
    return _REGISTERED


def __getattr__(name: str) -> Any:
    """``OPS``: the full registry, loaded on first use (PEP 562)."""
    if name == "OPS":
        return all_ops()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
