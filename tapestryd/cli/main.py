"""Entry point of ``tapestryctl`` (also installed as ``tapestry``).

Command modules register themselves on :data:`tapestryd.cli.app.app` when imported.
"""

from __future__ import annotations

import sys

__all__ = ["main"]

COMMAND_MODULES = (
    "tapestryd.cli.core",
    "tapestryd.cli.web",
    "tapestryd.cli.quality",
)


def main() -> None:
    """Run tapestryctl and exit with its code."""
    import importlib

    from tapestryd.cli.app import run

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    sys.exit(run())
