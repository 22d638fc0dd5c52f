"""Type names served by family modules, each imported on first use of one of its names (PEP 562).

:mod:`tapestryd.operations.requests` and :mod:`tapestryd.operations.results` name every request
and result type; the types live in one module per family of operations (``requests_query``,
``results_sync`` …), so a command builds the dataclasses of its own family only. Standard
library only: the registry imports it.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

__all__ = ["FamilyModules"]


class FamilyModules:
    """The family modules ``tapestryd.operations.<prefix>_<family>`` of ``families`` (family → the names its
    module defines)."""

    def __init__(self, prefix: str, families: dict[str, tuple[str, ...]]) -> None:
        self.prefix = prefix
        self.families = families
        self._family_of = {name: family for family, names in families.items() for name in names}

    def module(self, family: str) -> ModuleType:
        """The module of ``family`` (imported now); KeyError for a name that is not a family."""
        if family not in self.families:
            raise KeyError(family)
        return import_module(f"tapestryd.operations.{self.prefix}_{family}")

    def attribute(self, facade: str, name: str) -> Any:
        """``name`` from its family's module, imported now; AttributeError naming module ``facade`` for a name no
        family defines."""
        family = self._family_of.get(name)
        if family is None:
            raise AttributeError(f"module {facade!r} has no attribute {name!r}")
        return getattr(self.module(family), name)
