"""The layers' import rule, read from the table in docs/architecture.md and checked by walking
every module's imports with ast, so the document and the code cannot drift apart.

Arrows point down, never up: sources only add facts, projections only read facts, queries
never write, operations are the only doors, and the front ends and the daemon sit on top.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tapestryd"
DOC = ROOT / "docs" / "architecture.md"
ROW = re.compile(r"^\|\s*`(?P<layer>[a-z_]+)`\s*\|[^|]*\|(?P<allowed>[^|]*)\|\s*$")


def read_rules(text: str) -> dict[str, set[str]]:
    """Layer → what it may import, from the rows of the layers table (``| `layer` | what | `a`, `b` |``)."""
    rules: dict[str, set[str]] = {}
    for line in text.splitlines():
        found = ROW.match(line)
        if found:
            rules[found["layer"]] = set(re.findall(r"`([a-z_.]+)`", found["allowed"]))
    return rules


RULES = read_rules(DOC.read_text())


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imported(tree: ast.AST) -> set[str]:
    """Dotted tapestryd targets (without the 'tapestryd.' prefix) a module imports."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tapestryd."):
            names.add(node.module.removeprefix("tapestryd."))
        elif isinstance(node, ast.Import):
            names.update(a.name.removeprefix("tapestryd.") for a in node.names if a.name.startswith("tapestryd."))
    return names


def allowed(layer: str, target: str, rules: dict[str, set[str]]) -> bool:
    top = target.split(".")[0]
    return top == layer or top in rules[layer] or any(
        target == r or target.startswith(r + ".") for r in rules[layer] if "." in r)


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_table_names_every_layer_of_the_package() -> None:
    """Each package and top-level module of tapestryd has a row, and each row a layer that exists."""
    layers = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert set(RULES) == layers
    assert all(target.split(".")[0] in layers for targets in RULES.values() for target in targets)


def test_a_row_is_read_as_written() -> None:
    """The parser reads a row's allowed layers, dotted ones included (so a wrong table fails the rule)."""
    rules = read_rules("| `cli` | front end | `operations`, `daemon.install` |\n| `errors` | tree | — |")
    assert rules == {"cli": {"operations", "daemon.install"}, "errors": set()}
    assert allowed("cli", "daemon.install", rules) and not allowed("cli", "daemon.service", rules)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_respects_the_dependency_rule(path: Path) -> None:
    """Each module imports only its own layer and the layers its row in docs/architecture.md allows."""
    module = "tapestryd." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
    layer = layer_of(module)
    if layer in ("", "__init__"):
        return
    assert layer in RULES, f"{module}: layer {layer!r} has no row in docs/architecture.md"
    bad = sorted(t for t in imported(ast.parse(path.read_text())) if not allowed(layer, t, RULES))
    assert not bad, f"{module} ({layer}) may not import {bad} (docs/architecture.md)"
