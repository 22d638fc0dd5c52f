"""The dependency rule of DESIGN.md, checked by walking every module's imports with ast.

Arrows point down, never up: sources only add facts, projections only read facts, queries
never write, and only the daemon knows everything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "tapestryd"
BASE = {"config", "paths", "errors", "clock", "db", "dotenv", "filemodes", "templates"}
CLIENT_SIDE = {"daemon.client", "daemon.protocol", "daemon.local", "daemon.ops", "daemon.install", "queries",
               "config", "paths", "errors", "clock", "filemodes", "privacy"}

# What each layer may import from tapestryd (besides itself). cli and web reach the daemon
# only through its client, protocol, and the in-process op runner used when no daemon runs.
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "clock": {"errors"},  # UnsupportedDateError: a date outside the supported range is a user mistake
    "filemodes": set(),
    "db": {"errors", "filemodes"},
    "dotenv": set(),
    "config": {"errors", "dotenv"},
    "paths": {"config", "filemodes"},
    "events": {"db", "errors"},
    "privacy": {"config", "errors", "events"},
    "projections": {"events", "db", "clock", "errors", "privacy"},
    "summarize": {"config", "errors", "privacy"},
    "sources": {"events", "db", "config", "paths", "errors", "filemodes", "privacy", "clock"},
    "queries": {"projections", "events", "db", "config", "paths", "errors", "clock", "privacy"},
    "quality": {"queries", "projections", "summarize", "events", "db", "config", "paths", "errors", "clock", "privacy"},
    "daemon": {"sources", "projections", "summarize", "queries", "events", "db", "config", "paths", "clock", "errors",
               "privacy", "quality", "web"} | BASE,
    "cli": CLIENT_SIDE | {"web", "mcp"},  # tapestryctl calendar serves the web app, tapestryctl mcp the MCP server
    "web": CLIENT_SIDE,
    "mcp": CLIENT_SIDE,  # the MCP server: a front end like the CLI
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imported(tree: ast.AST, module: str) -> set[str]:
    """Dotted tapestryd targets (without the 'tapestryd.' prefix) a module imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tapestryd"):
            names.add(node.module.removeprefix("tapestryd").lstrip("."))
        elif isinstance(node, ast.Import):
            names.update(a.name.removeprefix("tapestryd.") for a in node.names if a.name.startswith("tapestryd."))
    return {n for n in names if n}


def allowed(layer: str, target: str) -> bool:
    rules = ALLOWED[layer]
    return target.split(".")[0] == layer or target.split(".")[0] in rules or any(
        target == r or target.startswith(r + ".") for r in rules if "." in r)


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_respects_the_dependency_rule(path: Path) -> None:
    """Each module imports only from the layers below its own."""
    module = "tapestryd." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
    layer = layer_of(module)
    if layer == "" or layer == "__init__":
        return
    assert layer in ALLOWED, f"{module}: layer {layer!r} has no rule in this test; add one that follows DESIGN.md"
    bad = sorted(t for t in imported(ast.parse(path.read_text()), module) if not allowed(layer, t))
    assert not bad, f"{module} ({layer}) may not import {bad}"
