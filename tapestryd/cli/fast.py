"""The fast path of tapestryctl: status, context, search, similar, pause, resume, reload through the socket.

``tapestryctl`` tries :func:`try_fast` before it imports typer: when the command line is
one this module fully understands and the daemon answers, the answer is printed here
and the process exits, having imported only the standard library (plus the stdlib-only
:mod:`tapestryd.wire`, :mod:`tapestryd.errors` and, for search and similar,
:mod:`tapestryd.cli.render`). A shell prompt or an editor hook then pays little more than
the interpreter's own start-up.

:data:`COMMANDS` says, for each command, which operation of the table
(:data:`tapestryd.operations.registry.OPERATIONS`) it runs and which request field each
option sets; :data:`FULL_ONLY` names the options it leaves to the full CLI. A test holds
both to the table and to the typer commands: every option of a command is in one of the
two, with the field the full CLI sends (``tests/operations/test_front_ends.py``).

Anything else returns None and the full CLI answers: an option in FULL_ONLY or unknown
(even ``--help``), a number outside the full CLI's range, no daemon (the full CLI says so
on stderr and answers from the database read-only), or ``TAPESTRY_FAST=0`` in the
environment. Output is byte for byte what the full CLI prints (the same renderers;
``-f json`` indented by 2, ``jsonl`` compact).

``context --hook`` (the Claude Code hook, :mod:`tapestryd.cli.hook`) is always answered
here, daemon or not, and always exits 0.
"""

from __future__ import annotations

import json
import os
import sys

from tapestryd.cli.render import cut_quoted, printable
from tapestryd.plural import counted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["COMMANDS", "FULL_ONLY", "emit", "parse", "render_context", "render_control", "render_status", "try_fast"]

TIMEOUT = 10.0  # seconds a fast query may wait for the daemon
FORMATS = ("text", "json", "jsonl")

COMMANDS: dict[str, dict[str, Any]] = {
    "status": {"op": "status", "formats": FORMATS},
    "context": {"op": "context", "formats": ("text", "markdown", "json"), "send_format": True,
                "options": {"--agent": "agent", "--date": "date", "--max-tokens": "max_tokens", "--project": "project",
                            "--recent": "recent", "--machine": "machine"},
                "flags": {"--now": "now_only"}, "numbers": {"max_tokens": (1, None), "recent": (1, 500)}},
    "search": {"op": "search", "positional": "query", "formats": FORMATS,
               "options": {"--agent": "agent", "--role": "role", "--conversation": "conversation", "-n": "limit",
                           "--limit": "limit", "--level": "level", "--since": "since", "--until": "until",
                           "--sort": "sort", "--now": "now", "--machine": "machine"},
               "flags": {"--widen": "widen", "--no-subagents": "no_subagents"}, "numbers": {"limit": (None, None)}},
    "similar": {"op": "similar", "positional": "query", "formats": FORMATS,
                "options": {"--level": "level", "--top": "top", "-n": "top"},
                "numbers": {"top": (1, 1000)}},
    "pause": {"op": "pause"},
    "resume": {"op": "resume"},
    "reload": {"op": "reload"},
}
"""Command → ``op`` (its operation), ``options`` (option → request field), ``flags`` (option →
field set true), ``positional`` (the field the words fill), ``formats`` (of ``-f``; none: no ``-f``),
``send_format`` (``format`` is a request field), ``numbers`` (integer field → the full CLI's
(min, max), None for no bound)."""

FULL_ONLY: dict[str, tuple[str, ...]] = {
    "context": ("--hook",),  # answered by the hook here, before any parsing
    "search": ("--regex", "--hybrid"),
}
"""Options of these commands that the full CLI alone reads (the fast path hands the line over)."""


def parse(argv: list[str]) -> tuple[str | None, str, dict[str, Any]] | None:
    """``(home, command, args)`` of a command line this module can answer, else None."""
    home, rest = _take_home(argv)
    if not rest or rest[0] not in COMMANDS or os.environ.get("TAPESTRY_FAST") == "0":
        return None
    command = rest[0]
    args = _options(COMMANDS[command], rest[1:])
    return None if args is None else (home, command, args)


def _take_home(argv: list[str]) -> tuple[str | None, list[str]]:
    if argv and argv[0].startswith("--home="):
        return argv[0].split("=", 1)[1], argv[1:]
    if len(argv) >= 2 and argv[0] == "--home":
        return argv[1], argv[2:]
    return None, argv


def _options(spec: dict[str, Any], tokens: list[str]) -> dict[str, Any] | None:
    formats = {"-f": "format", "--format": "format"} if spec.get("formats") else {}
    options: dict[str, str] = {**formats, **spec.get("options", {})}
    flags: dict[str, str] = spec.get("flags", {})
    args: dict[str, Any] = {"format": "text"}
    words: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in flags:
            args[flags[token]] = True
        elif token.startswith("-") and token != "-":
            name, eq, value = token.partition("=")
            if name not in options or (not eq and i + 1 >= len(tokens)):
                return None
            if not eq:
                i, value = i + 1, tokens[i + 1]
            args[options[name]] = value
        else:
            words.append(token)
        i += 1
    return _checked(spec, args, words)


def _checked(spec: dict[str, Any], args: dict[str, Any], words: list[str]) -> dict[str, Any] | None:
    positional = spec.get("positional", "")
    if args["format"] not in spec.get("formats", ("text",)) or (words and not positional) or (positional and not words):
        return None
    for field, (least, most) in spec.get("numbers", {}).items():
        if field in args:
            if not str(args[field]).isdigit():
                return None
            args[field] = int(args[field])
            if (least is not None and args[field] < least) or (most is not None and args[field] > most):
                return None
    if positional:
        args[positional] = " ".join(words)
    if args.get("project"):
        args["project"] = os.path.abspath(os.path.expanduser(args["project"]))
    return args


def try_fast(argv: list[str]) -> int | None:
    """Answer ``argv`` through the daemon and return the exit code, or None to use the full CLI."""
    home, rest = _take_home(argv)
    if rest[:1] == ["context"] and "--hook" in rest:
        from tapestryd.cli.hook import run_hook

        return run_hook(home)
    parsed = parse(argv)
    if parsed is None:
        return None
    home, command, args = parsed
    from tapestryd.errors import DaemonError, DaemonNotRunning
    from tapestryd.wire.address import socket_path
    from tapestryd.wire.client import request

    spec = COMMANDS[command]
    fmt = args["format"] if spec.get("send_format") else args.pop("format")
    try:
        result = request(socket_path(home), spec["op"], args, timeout=TIMEOUT)
    except DaemonNotRunning:
        return None
    except DaemonError as exc:
        if exc.code in ("unknown_op", "shutting_down", "closed", "socket"):
            return None
        sys.stderr.write(f"error: {cut_quoted(exc.message)}\n")
        return 1
    _emit(command, result, fmt)
    return 0


def _emit(command: str, result: Any, fmt: str) -> None:
    if command in ("search", "similar"):
        from tapestryd.cli.render import render_hits

        _note_hits(command, result, fmt)
        emit(result if fmt == "text" else result["hits"], fmt, render_hits)
    elif command == "context":
        emit({k: v for k, v in result.items() if k != "rendered"} if fmt == "json" else result, fmt, render_context)
        if result.get("budget_note"):
            sys.stderr.write(f"({result['budget_note']})\n")
    elif command == "status":
        emit(result, fmt, render_status)
    else:
        emit(result, "text", lambda data: render_control(command, data))


def _note_hits(command: str, result: dict[str, Any], fmt: str) -> None:
    """The note the full CLI prints on stderr before hits: how a time phrase was read, or a cold index."""
    if command == "search" and fmt != "text" and result.get("time"):
        sys.stderr.write(f"reading {result['time']['phrase']!r} as {result['time']['label']}\n")
    index = result.get("index", {})
    if command == "similar" and not index.get("warm"):
        sys.stderr.write(f"no warm index (tapestryd is {index.get('reason', 'not running')}): "
                         "answered from the full-text index\n")


def render_control(command: str, result: dict[str, Any]) -> str:
    """What pause, resume and reload print (a restart-needed note goes to stderr)."""
    if command == "pause":
        return "tapestryd paused; `tapestryctl resume` catches up with what changed meanwhile"
    if command == "resume":
        return "tapestryd resumed"
    held = result.get("restart_needed") or []
    if held:
        sys.stderr.write(f"changed settings that need a restart: {', '.join(map(str, held))}\n")
    for line in result.get("warnings") or []:
        sys.stderr.write(f"warning: {line}\n")
    if result.get("web_problem"):
        sys.stderr.write(f"{result['web_problem']}\n")
    return f"tapestryd reloaded {result.get('config_file', '')}"


def emit(data: Any, fmt: str, text: Callable[[Any], str]) -> None:
    """Print as the full CLI's ``emit`` does: indented JSON, JSON lines, or ``text(data)``."""
    if fmt == "json":
        out = json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"
    elif fmt == "jsonl":
        items = data if isinstance(data, list) else [data]
        out = "".join(json.dumps(i, ensure_ascii=False, separators=(",", ":"), default=str) + "\n" for i in items)
    else:
        out = printable(text(data)) + "\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def render_context(data: dict[str, Any]) -> str:
    """The context as the daemon rendered it (text or markdown), without its final newline."""
    return str(data.get("rendered", "")).removesuffix("\n")


def render_status(data: dict[str, Any]) -> str:
    """Status as text: daemon, store, projections, sources, inbox, errors, then extra sections."""
    lines = _daemon_lines(data.get("daemon") or {})
    store, proj = data.get("store", {}), data.get("projections", {})
    lines.append(f"store: {counted(store.get('conversations', 0), 'conversation')}, "
                 f"{counted(store.get('messages', 0), 'message')}; "
                 f"log at seq {proj.get('last_seq', 0)}")
    machines = store.get("machines") or {}
    if machines:
        lines.append("machines: " + ", ".join(f"{name} {counted(n, 'message')}" for name, n in machines.items()))
    lag = proj.get("lag", {})
    lines.append("projections: " + (", ".join(f"{k} {v} behind" for k, v in lag.items()) or "none yet"))
    upgrading = proj.get("upgrading") or {}
    if upgrading:
        parts = ", ".join(f"{part} {n['done']:,} of {n['total']:,}" for part, n in upgrading.items())
        how = ("written in the background by the daemon" if (data.get("daemon") or {}).get("running") else
               "stopped with the daemon: it goes on when the daemon starts, or a write command finishes it")
        lines.append(f"upgrading: {parts} messages ({how})")
    elif proj.get("upgrade_pending"):
        lines.append("upgrade pending: made by an older version; the daemon upgrades it in the background when it"
                     " starts, a write command (e.g. tapestryctl ingest) before it returns")
    for name, value in data.items():
        if name not in ("daemon", "store", "projections"):
            lines.extend(_section(name, value))
    return "\n".join(lines)


def _daemon_lines(d: dict[str, Any]) -> list[str]:
    if not d.get("running"):
        return ["tapestryd: not running"]
    lines = [f"tapestryd: running, pid {d['pid']}, up {_duration(d.get('uptime_s', 0))}"
             f"{', PAUSED' if d.get('paused') else ''} (socket {d.get('socket', '?')})"]
    src = d.get("sources", {})
    roots = ", ".join(f"{r['path']} ({r['watch']})" for r in src.get("roots", [])) or "none"
    lines.append(f"watching: {roots}; {d.get('files', 0)} session files; events: {src.get('mode', '?')}")
    tail = d.get("tail", {})
    lines.append(f"tailed: {tail.get('lines', 0)} lines, {tail.get('new', 0)} new events, "
                 f"{tail.get('problems', 0)} problems{_since(tail.get('last_at'))}")
    inbox = d.get("inbox", {})
    last = inbox.get("last") or {}
    lines.append(f"inbox: {src.get('inbox', '?')}; {inbox.get('imported', 0)} imported, {inbox.get('failed', 0)} failed"
                 + (f"; last {os.path.basename(last.get('source', ''))} → {last.get('moved_to', '')}" if last else ""))
    lines.extend(f"config warning: {line}" for line in d.get("config_warnings", []))
    errors = d.get("errors", [])
    if errors:
        lines.append(f"last errors ({len(errors)}):")
        lines.extend(f"  {e['at']}  {e['source']}: {e['message']}" for e in errors[-5:])
    return lines


def _since(moment: str | None) -> str:
    return f", last at {moment}" if moment else ""


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def _section(name: str, value: Any, indent: str = "") -> list[str]:
    if not isinstance(value, dict):
        return [f"{indent}{name}: {value}"]
    lines = [f"{indent}{name}:"]
    for key, sub in value.items():
        lines.extend(_section(str(key), sub, indent + "  "))
    return lines
