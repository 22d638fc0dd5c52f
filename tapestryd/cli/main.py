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
    "tapestryd.cli.daemon_cmds",
    "tapestryd.cli.safety",
    "tapestryd.cli.hierarchy",
    "tapestryd.cli.queries",
    "tapestryd.cli.demo",
    "tapestryd.cli.mcp_cmds",
    "tapestryd.cli.archive",
    "tapestryd.cli.sync_cmds",
)


def main() -> None:
    """Run tapestryctl and exit with its code."""
    from tapestryd.cli.fast import try_fast

    fast = try_fast(sys.argv[1:])  # status/context/search answered by the daemon without importing typer
    if fast is not None:
        sys.exit(fast)
    import importlib

    from tapestryd.cli.app import run

    for name in COMMAND_MODULES:
        importlib.import_module(name)
    sys.exit(run())
