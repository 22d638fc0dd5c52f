"""Result types are built by family, on first use: a command builds the dataclasses of its own answer only.

``operations.results`` (and ``result_parts``) name every result and part; each lives in the
module of its family (``results_<family>``), imported when one of its names is first asked
for. The table of families is held to the modules, and a fresh interpreter shows what importing
the table of operations, and asking for one result type, builds.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from tapestryd.operations import result_parts, results
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.shape import Listing, Record

ROOT = Path(__file__).resolve().parents[2]


def test_each_family_module_defines_the_names_the_table_gives_it() -> None:
    """A family's module defines exactly its names, each a frozen record or listing made there."""
    for family, names in results.FAMILIES.items():
        module = results.family_module(family)
        assert sorted(module.__all__) == sorted(names), family
        for name in names:
            found = getattr(module, name)
            assert found.__module__ == module.__name__ and issubclass(found, (Record, Listing)), name
            assert found.__dataclass_params__.frozen, name
            assert getattr(results, name) is found


def test_the_results_and_the_parts_are_all_named_once() -> None:
    """Every name is in one family; the results module names the results, result_parts the parts."""
    named = [name for names in results.FAMILIES.values() for name in names]
    assert len(named) == len(set(named))
    assert sorted(named) == sorted([n for n in results.__all__ if n not in ("Listing", "Record")]
                                   + result_parts.__all__)
    assert {op.result.__name__ for op in OPERATIONS.values()} <= set(results.__all__)
    assert all(dataclasses.is_dataclass(getattr(result_parts, name)) for name in result_parts.__all__)


def _built_after(code: str) -> list[str]:
    """The family modules imported once ``code`` has run in a fresh interpreter."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(m for m in sys.modules" \
                   " if m.startswith('tapestryd.operations.results_'))))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return [name.rsplit("_", 1)[1] for name in json.loads(out.stdout)]


def test_the_table_builds_no_result_type_and_one_asked_for_builds_its_family_alone() -> None:
    """Importing the registry (the CLI's start) builds none; ``status``'s result builds the control family only."""
    assert _built_after("import tapestryd.operations.registry") == []
    assert _built_after("from tapestryd.operations.registry import OPERATIONS\nOPERATIONS['status'].result") == [
        "control"]
    assert _built_after("from tapestryd.operations.result_parts import Hit") == ["query"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    """A name no family has raises AttributeError (so ``hasattr`` and ``from … import`` behave)."""
    assert not hasattr(results, "NoSuchResult") and not hasattr(result_parts, "SearchResult")
