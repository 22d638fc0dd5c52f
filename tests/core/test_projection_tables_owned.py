"""Each projection owns its tables: SQL naming one of them appears only in that projection's modules.

Queries, operations, quality, the web page and the other projections call the owner's read
functions instead (issue 13, "Projections own their tables"). The scanner reads the string
literals of every module (f-strings with their placeholders blanked; docstrings left out, so
prose may name a table) and finds a table after FROM, JOIN, INTO, UPDATE or TABLE.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tapestryd"

OWNERS: dict[str, tuple[str, ...]] = {
    "messages": ("messages", "messages_read", "messages_search", "forgetting", "unsplit", "blocks", "windows",
                 "speaker_names", "backfill"),
    "hierarchy": ("hierarchy", "hierarchy_read", "hierarchy_views", "hierarchy_calendar", "hierarchy_checks",
                  "hierarchy_forget", "hierarchy_schema", "hierarchy_state"),
    "similarity": ("similarity",),
    "vectors": ("vectors",),
    "runner": ("runner", "checkpoint_read"),
}
"""Projection → its modules under ``tapestryd/projections/``."""

TABLES: dict[str, str] = {
    **dict.fromkeys(("conversations", "messages", "messages_fts", "messages_unsplit", "forget_rules", "forgotten_keys",
                     "conversation_blocks", "block_members", "blocks_fts", "windows_fts", "windows_indexed",
                     "windows_stale", "windows_format", "windows_shards", "windows_retired", "blocks_shards",
                     "blocks_retired", "blocks_format", "message_vocatives", "messages_backfill"),
                    "messages"),
    **dict.fromkeys(("nodes", "node_sources", "nodes_fts", "closed_days", "summarizer_usage"), "hierarchy"),
    "similarity_feed": "similarity",
    **dict.fromkeys(("message_vectors", "vectors_dropped"), "vectors"),
    "checkpoints": "runner",
}
"""Every table of ``projections.db`` → the projection that owns it."""

_SQL = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?(?:(?:main|temp)\.)?"
                  r"(?P<table>" + "|".join(sorted(TABLES, key=len, reverse=True)) + r")\b", re.I)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings (of the module, a class or a function)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _literals(source: str) -> list[str]:
    """The module's string literals, f-strings with ``{}`` for each placeholder, docstrings left out."""
    tree = ast.parse(source)
    skip, texts = _docstrings(tree), []
    inside_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            texts.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
              and id(node) not in inside_fstrings):
            texts.append(node.value)
    return texts


def tables_named(source: str) -> set[str]:
    """The projection tables that SQL in ``source``'s string literals names."""
    return {m["table"].lower() for text in _literals(source) for m in _SQL.finditer(text)}


def owner_of(path: Path) -> str:
    """The projection a module belongs to ('' for a module outside the projections' modules)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if len(parts) != 2 or parts[0] != "projections":
        return ""
    return next((name for name, modules in OWNERS.items() if parts[1] in modules), "")


def test_the_scanner_finds_sql_and_skips_prose() -> None:
    """SQL in a literal or an f-string names its table; a docstring or a comment naming one does not."""
    snippet = '''
"""Reads FROM messages, in prose."""
# SELECT * FROM nodes
def f(conn, cols):
    """JOIN conversations here is prose too."""
    conn.execute(f"SELECT {cols} FROM node_sources s JOIN Messages m ON m.id = s.source")
    conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('delete-all')")
    conn.execute("CREATE TABLE IF NOT EXISTS temp.similarity_feed (doc TEXT)")
    return "messages_fts_config and the word messages alone are not SQL"
'''
    assert tables_named(snippet) == {"node_sources", "messages", "nodes_fts", "similarity_feed"}


def test_a_module_outside_its_projection_fails_the_rule() -> None:
    """A query module holding SQL on messages would be reported (so the rule below can fail)."""
    owner = owner_of(PACKAGE / "queries" / "search.py")
    bad = {t for t in tables_named('conn.execute("SELECT id FROM messages")') if TABLES[t] != owner}
    assert owner == "" and bad == {"messages"}
    assert owner_of(PACKAGE / "projections" / "hierarchy_forget.py") == "hierarchy"


def test_every_table_of_the_projections_has_an_owner() -> None:
    """Each table the projections create in projections.db is in TABLES (a new one must be given an owner here)."""
    created, create = set(), re.compile(r"CREATE (?:VIRTUAL )?TABLE IF NOT EXISTS (?!temp\.)(\w+)")
    for path in (PACKAGE / "projections").glob("*.py"):
        for text in _literals(path.read_text()):
            created.update(m.lower() for m in create.findall(text))
    assert created and created <= set(TABLES), sorted(created - set(TABLES))


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_sql_on_a_projection_table_stays_in_its_projection(path: Path) -> None:
    """A module names in SQL only the tables of the projection it belongs to (none outside the projections)."""
    owner = owner_of(path)
    bad = sorted(t for t in tables_named(path.read_text()) if TABLES[t] != owner)
    assert not bad, (f"{path.relative_to(ROOT)} holds SQL on {bad}: call the read functions of "
                     f"{sorted({TABLES[t] for t in bad})} (tapestryd/projections/*_read.py) instead")
