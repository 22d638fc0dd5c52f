"""Every front end names only operations and fields the table of operations has.

The table (:data:`tapestryd.operations.registry.OPERATIONS`) is the one place an operation and
its options are declared. The typer CLI and the calendar build requests from it; the fast
path and the hook name operations and fields as strings, so they are read here and held to
it; and the fast path's options are held to the typer commands', so an option cannot exist
in one path and not the other. The typed results are held the same way: the CLI, the
calendar and MCP read their attributes (checked by mypy), and the code that reads a result's
JSON instead (the fast path, the hook, the hit renderer, the search page's template) is read
here and may name only fields the result types declare.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
import typing
from pathlib import Path
from typing import Any

import pytest
import typer

from tapestryd.cli.fast import COMMANDS, FULL_ONLY
from tapestryd.cli.main import COMMAND_MODULES
from tapestryd.operations import requests as request_types
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.result_parts import ConversationRank, Hit, TimeRange
from tapestryd.operations.results import ContextResult, SearchResult, SimilarResult

PACKAGE = Path(__file__).resolve().parents[2] / "tapestryd"
FRONT_ENDS = sorted([*(PACKAGE / "cli").glob("*.py"), *(PACKAGE / "web").glob("*.py"), *(PACKAGE / "mcp").glob("*.py")])
CALLERS = {"call": 1, "call_result": 1, "_call_when_free": 1, "call_json": 1,
           "call_with": 1}  # name → index of the request type
NAMED_BY_STRING = {"request": 1, "ask": 0}  # the socket client's request(sock, "op", args); MCP's ask("op", args)
CLI_PARAM_FIELD = {"fmt": "format"}  # a typer parameter named otherwise than its request field


def fields_of(request: type[Any]) -> set[str]:
    return {f.name for f in dataclasses.fields(request)}


def typer_options(name: str) -> dict[str, Any]:
    """Option string → typer's (click) parameter, for the command ``name``."""
    from tapestryd.cli.app import app

    for module in COMMAND_MODULES:
        importlib.import_module(module)
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    return {opt: param for param in command.params if param.param_type_name == "option"
            for opt in [*param.opts, *param.secondary_opts]}


def test_each_operation_takes_its_request_and_answers_its_result() -> None:
    """The function an entry loads is annotated with the entry's request and result types."""
    for name, operation in OPERATIONS.items():
        function = operation.load()
        hints = typing.get_type_hints(function)
        first = next(iter(hints))
        assert hints[first] is operation.request and hints["return"] is operation.result, name
        assert dataclasses.is_dataclass(operation.request) and operation.request.__dataclass_params__.frozen, name
        assert operation.result.__dataclass_params__.frozen, name  # type: ignore[attr-defined]


def test_each_request_type_belongs_to_one_operation() -> None:
    """No request class is left out of the table, none serves two operations."""
    declared = {getattr(request_types, name) for name in request_types.__all__}
    assert declared == {op.request for op in OPERATIONS.values()}
    assert len(declared) == len(OPERATIONS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_fast_path_names_operations_and_fields_of_the_table(command: str) -> None:
    """Each fast command runs an operation of the table and sets only fields its request has."""
    spec = COMMANDS[command]
    assert spec["op"] in OPERATIONS, f"fast path command {command!r} names no operation {spec['op']!r}"
    fields = fields_of(OPERATIONS[spec["op"]].request)
    named = {*spec.get("options", {}).values(), *spec.get("flags", {}).values(), *spec.get("numbers", {})}
    named |= {spec["positional"]} if spec.get("positional") else set()
    named |= {"format"} if spec.get("send_format") else set()
    assert named <= fields, f"fast path {command!r} names fields {sorted(named - fields)} its request lacks"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_fast_path_and_the_typer_command_have_the_same_options(command: str) -> None:
    """An option of the typer command is read by the fast path (same field, same range) or listed in FULL_ONLY."""
    spec = COMMANDS[command]
    formats = {"-f": "format", "--format": "format"} if spec.get("formats") else {}
    fast = {**formats, **spec.get("options", {}), **spec.get("flags", {})}
    options = typer_options(command)
    unknown = set(fast) - set(options)
    assert not unknown, f"the fast path reads {sorted(unknown)}, which `tapestryctl {command}` does not have"
    unread = set(options) - set(fast) - set(FULL_ONLY.get(command, ())) - {"--help"}
    assert not unread, f"`tapestryctl {command}` has {sorted(unread)}: read it in cli/fast.py or list it in FULL_ONLY"
    for option, field in fast.items():
        param = options[option]
        assert CLI_PARAM_FIELD.get(str(param.name), param.name) == field, (command, option)
        if field in spec.get("numbers", {}):
            bounds = _bounds(param)
            assert bounds == spec["numbers"][field], f"{command} {option}: typer's range {bounds}"


def _bounds(param: Any) -> tuple[int | None, int | None]:
    """An integer option's (min, max): on the parameter (typer 0.29) or on its click IntRange (0.28)."""
    holder = param if hasattr(param, "min") else getattr(param, "type", None)
    return getattr(holder, "min", None), getattr(holder, "max", None)


def _dict_keys(node: ast.AST | None, assigned: dict[str, ast.AST]) -> set[str]:
    """The literal keys of a dict expression, or of the dict last assigned to a name."""
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    if not isinstance(node, ast.Dict):
        return set()
    return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def _calls(path: Path) -> list[tuple[str, ast.Call, dict[str, ast.AST]]]:
    """Each call in ``path`` with the dicts assigned to names in its function."""
    found = []
    for function in ast.walk(ast.parse(path.read_text())):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        assigned = {t.id: n.value for n in ast.walk(function) if isinstance(n, ast.Assign)
                    for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                found.append((name, node, assigned))
    return found


def _request_type(node: ast.AST) -> str:
    """The request type a call names: ``SearchRequest`` or ``rq.SearchRequest`` (``""``: neither)."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name if name.endswith("Request") else ""


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_front_ends_name_only_operations_and_fields_of_the_table(path: Path) -> None:
    """``call(ctx, SearchRequest, {...})`` sets fields of SearchRequest; ``request(sock, "op", {...})``
    and MCP's ``ask("op", {...})`` name an operation and its fields."""
    by_type = {op.request.__name__: op.request for op in OPERATIONS.values()}
    for name, call, assigned in _calls(path):
        if name in CALLERS and len(call.args) > CALLERS[name] + 1:
            kind = _request_type(call.args[CALLERS[name]])
            if not kind:
                continue
            assert kind in by_type, f"{path.name}:{call.lineno}: {kind} is no request of the table"
            keys = _dict_keys(call.args[CALLERS[name] + 1], assigned)
            extra = keys - fields_of(by_type[kind])
            assert not extra, f"{path.name}:{call.lineno}: {kind} has no field {sorted(extra)}"
        elif (at := NAMED_BY_STRING.get(name)) is not None and len(call.args) > at \
                and isinstance(call.args[at], ast.Constant):
            op = call.args[at].value
            assert op in OPERATIONS, f"{path.name}:{call.lineno}: no operation {op!r}"
            extra = _dict_keys(call.args[at + 1] if len(call.args) > at + 1 else None, assigned) - fields_of(
                OPERATIONS[op].request)
            assert not extra, f"{path.name}:{call.lineno}: {op} has no field {sorted(extra)}"


def test_the_check_reads_what_front_ends_send() -> None:
    """The scan above finds the CLI's search fields and the hook's context fields (so it can fail)."""
    seen: dict[str, set[str]] = {}
    for path in FRONT_ENDS:
        for name, call, assigned in _calls(path):
            at = NAMED_BY_STRING.get(name)
            if at is not None and len(call.args) > at + 1 and isinstance(call.args[at], ast.Constant):
                seen.setdefault(str(call.args[at].value), set()).update(_dict_keys(call.args[at + 1], assigned))
            if name in CALLERS and len(call.args) > 2 and _request_type(call.args[1]):
                seen.setdefault(_request_type(call.args[1]), set()).update(_dict_keys(call.args[2], assigned))
    assert {"exclude_session", "now_only", "format"} <= seen["context"]  # the hook's
    assert {"query", "regex", "widen", "mode"} <= seen["SearchRequest"]


JSON_READERS: dict[tuple[str, str], dict[str, tuple[type[Any], ...]]] = {
    ("cli/render.py", "render_hits"): {"result": (SearchResult, SimilarResult), "h": (Hit,), "span": (TimeRange,)},
    ("cli/render.py", "_ranked_conversations"): {"r": (ConversationRank,)},
    ("cli/fast.py", "_note_hits"): {"result": (SearchResult, SimilarResult)},
    ("cli/fast.py", "_emit"): {"result": (SearchResult, SimilarResult, ContextResult)},
    ("cli/hook.py", "remember"): {"result": (ContextResult,)},
}
"""Functions that read a result's JSON as the socket sends it (the stdlib-only fast path never
builds the typed result): variable → the result or part types whose fields its keys are."""


def _json_keys(function: ast.AST, name: str) -> set[str]:
    """The literal keys read from ``name`` as ``name["key"]`` or ``name.get("key", ...)``."""
    keys = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
                and isinstance(node.slice, ast.Constant):
            keys.add(str(node.slice.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name and node.args \
                and isinstance(node.args[0], ast.Constant):
            keys.add(str(node.args[0].value))
    return keys


@pytest.mark.parametrize("where", sorted(JSON_READERS), ids=lambda w: f"{w[0]}:{w[1]}")
def test_json_readers_name_only_fields_of_the_results(where: tuple[str, str]) -> None:
    """The fast path, the hook and the hit renderer read only keys the typed results declare."""
    path, name = where
    tree = ast.parse((PACKAGE / path).read_text())
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    for variable, types in JSON_READERS[where].items():
        keys = _json_keys(function, variable)
        assert keys, f"{path}:{name} reads no key of {variable!r}: the table above is out of date"
        known = {f.name for kind in types for f in dataclasses.fields(kind)}
        assert keys <= known, f"{path}:{name} reads {sorted(keys - known)} of {variable!r}, which no result has"


def test_the_search_page_names_only_fields_of_the_search_result() -> None:
    """The calendar's search template reads ``result.<field>`` of SearchResult and ``h.<field>`` of Hit."""
    template = (PACKAGE / "web" / "templates" / "search.html").read_text()
    for variable, kind in (("result", SearchResult), ("h", Hit)):
        names = set(re.findall(rf"\b{variable}\.(\w+)", template))
        assert names, f"search.html reads nothing of {variable}"
        unknown = names - {f.name for f in dataclasses.fields(kind)}
        assert not unknown, f"search.html reads {sorted(unknown)} of {variable}, which {kind.__name__} lacks"
