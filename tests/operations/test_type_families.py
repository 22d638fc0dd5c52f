"""Request and result types are built by family, on first use: a command builds the dataclasses of its
own request and answer only.

``operations.requests`` and ``operations.results`` (and ``result_parts``) name every type; each
lives in the module of its family (``requests_<family>``, ``results_<family>``), imported when
one of its names is first asked for. The tables of families are held to the modules, and a fresh
interpreter shows what importing the table of operations, and finding one entry, builds.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from tapestryd.operations import requests, result_parts, results
from tapestryd.operations.registry import OPERATIONS, operation_for
from tapestryd.operations.shape import Listing, Record

ROOT = Path(__file__).resolve().parents[2]


def test_each_family_module_defines_the_names_the_table_gives_it() -> None:
    """A family's module defines exactly its names, each a frozen dataclass made there (a result a
    record or listing)."""
    for facade in (requests, results):
        for family, names in facade.FAMILIES.items():
            module = facade.family_module(family)
            assert sorted(module.__all__) == sorted(names), family
            for name in names:
                found = getattr(module, name)
                assert found.__module__ == module.__name__ and found.__dataclass_params__.frozen, name
                assert facade is requests or issubclass(found, (Record, Listing)), name
                assert getattr(facade, name) is found
    assert sorted(n for names in requests.FAMILIES.values() for n in names) == sorted(requests.__all__)


def test_a_request_type_is_named_for_its_operation_and_finds_its_entry() -> None:
    """``SyncRoundRequest`` is ``sync_round``'s: what :func:`operation_for` reads, for every entry."""
    for name, operation in OPERATIONS.items():
        assert operation.request.__name__ == name.title().replace("_", "") + "Request", name
        assert operation_for(object.__new__(operation.request)) is operation


def test_the_results_and_the_parts_are_all_named_once() -> None:
    """Every name is in one family; the results module names the results, result_parts the parts."""
    named = [name for names in results.FAMILIES.values() for name in names]
    assert len(named) == len(set(named))
    assert sorted(named) == sorted([n for n in results.__all__ if n not in ("Listing", "Record")]
                                   + result_parts.__all__)
    assert {op.result.__name__ for op in OPERATIONS.values()} <= set(results.__all__)
    assert all(dataclasses.is_dataclass(getattr(result_parts, name)) for name in result_parts.__all__)


def _built_after(code: str) -> list[str]:
    """The family modules imported once ``code`` has run in a fresh interpreter (``requests_query`` ...)."""
    probe = code + "\nimport sys, json\nprint(json.dumps(sorted(m.rsplit('.', 1)[1] for m in sys.modules" \
                   " if m.startswith(('tapestryd.operations.results_', 'tapestryd.operations.requests_')))))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout))


def test_the_table_builds_no_type_and_one_entry_builds_its_families_alone() -> None:
    """Importing the registry (the CLI's start) builds none; finding ``status``'s entry and its result
    builds the control families only; a part, its family."""
    assert _built_after("import tapestryd.operations.registry") == []
    assert _built_after("from tapestryd.operations.registry import operation_for\n"
                        "from tapestryd.operations.requests import StatusRequest\n"
                        "operation_for(StatusRequest()).result") == ["requests_control", "results_control"]
    assert _built_after("from tapestryd.operations.result_parts import Hit") == ["results_query"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    """A name no family has raises AttributeError (so ``hasattr`` and ``from … import`` behave)."""
    assert not hasattr(results, "NoSuchResult") and not hasattr(result_parts, "SearchResult")
    assert not hasattr(requests, "SearchResult")
