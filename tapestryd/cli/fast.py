"""The fast path of tapestryctl: status, context, search, pause, resume, reload through the socket.

``tapestryctl`` tries :func:`try_fast` before it imports typer: when the command line is
one this module fully understands and the daemon answers, the answer is printed here
and the process exits, having imported only the standard library (plus the stdlib-only
:mod:`tapestryd.daemon.client`, :mod:`tapestryd.daemon.protocol`, :mod:`tapestryd.errors`
and, for search, :mod:`tapestryd.cli.render`). A shell prompt or an editor hook then
pays little more than the interpreter's own start-up.

Anything else returns None and the full CLI answers: an option not listed here (even
``--help``), no daemon (the full CLI says so on stderr and answers from the database
read-only), or ``TAPESTRY_FAST=0`` in the environment. Output is byte for byte what
the full CLI prints (the same renderers; ``-f json`` indented by 2, ``jsonl`` compact).

``context --hook`` (the Claude Code hook, :mod:`tapestryd.cli.hook`) is always answered
here, daemon or not, and always exits 0.

The socket path is computed as :func:`tapestryd.paths.paths_for` does (importing it
would import the config module and double the start-up); a test holds the two equal.
"""

from __future__ import annotations

import json
import os
import sys

from tapestryd.cli.render import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

__all__ = ["render_context", "render_control", "render_status", "socket_path", "try_fast"]

TIMEOUT = 10.0  # seconds a fast query may wait for the daemon
FORMATS = ("text", "json", "jsonl")

# command → (operation, {option: argument name}, positional argument name or "")
_COMMANDS: dict[str, tuple[str, dict[str, str], str]] = {
    "status": ("status", {"-f": "format", "--format": "format"}, ""),
    "context": ("context", {"-f": "format", "--format": "format", "--agent": "agent", "--date": "date",
                            "--max-tokens": "max_tokens", "--project": "project", "--recent": "recent"}, ""),
    "search": ("search", {"-f": "format", "--format": "format", "--agent": "agent", "--role": "role",
                          "--conversation": "conversation", "-n": "limit", "--limit": "limit", "--level": "level",
                          "--since": "since", "--until": "until", "--sort": "sort", "--now": "now"}, "query"),
    "pause": ("pause", {}, ""),
    "resume": ("resume", {}, ""),
    "reload": ("reload", {}, ""),
}
_DEFAULTS: dict[str, dict[str, Any]] = {"status": {}, "context": {"agent": None, "date": None, "max_tokens": None, "project": None, "recent": 30,
                                       "now_only": False},
             "search": {"agent": None, "role": None, "conversation": None, "limit": 20, "level": "all", "since": None,
                        "until": None, "sort": "relevance", "regex": False, "mode": "fts", "widen": False,
                        "no_subagents": False, "now": None},
             "pause": {}, "resume": {}, "reload": {}}
_FLAGS = {"context": {"--now": "now_only"}, "search": {"--widen": "widen", "--no-subagents": "no_subagents"}}  # options without a value
_FORMATS = {"context": ("text", "markdown", "json")}


def socket_path(home: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The daemon's socket for ``--home`` (else ``TAPESTRY_HOME``), as paths_for computes it."""
    env = os.environ if environ is None else environ
    if env.get("TAPESTRY_SOCKET"):
        return env["TAPESTRY_SOCKET"]
    raw = home or env.get("TAPESTRY_HOME", "")
    folder = _runtime_dir(env)
    if not raw:
        return os.path.join(folder, "tapestryd.sock")
    resolved = os.path.realpath(os.path.expanduser(raw))
    return os.path.join(folder, f"tapestryd-{_sha256_hex(resolved)[:12]}.sock")


def _runtime_dir(env: Any) -> str:
    xdg = env.get("XDG_RUNTIME_DIR")
    if xdg and sys.platform.startswith("linux") and os.path.isdir(xdg):
        return os.path.join(xdg, "tapestry")
    return os.path.join(_temp_dir(env), f"tapestry-{os.getuid()}")


def _temp_dir(env: Any) -> str:
    """``tempfile.gettempdir()`` without importing tempfile (7 ms): the first folder of $TMPDIR,
    $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp. tempfile also skips folders it cannot write; where
    that would choose another, no socket is found here and the full CLI answers instead."""
    for candidate in (env.get("TMPDIR"), env.get("TEMP"), env.get("TMP"), "/tmp", "/var/tmp", "/usr/tmp"):
        if candidate and os.path.isdir(candidate):
            return os.path.abspath(candidate)
    return os.getcwd()


def _sha256_hex(text: str) -> str:
    """sha256 of ``text`` from CPython's built-in module: hashlib would load OpenSSL (4 ms)."""
    for name in ("_sha2", "_sha256"):  # CPython 3.12+, 3.11
        try:
            return str(__import__(name).sha256(text.encode()).hexdigest())
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256(text.encode()).hexdigest()


def parse(argv: list[str]) -> tuple[str | None, str, dict[str, Any]] | None:
    """``(home, command, args)`` of a command line this module can answer, else None."""
    home, rest = _take_home(argv)
    if not rest or rest[0] not in _COMMANDS or os.environ.get("TAPESTRY_FAST") == "0":
        return None
    command = rest[0]
    args = _options(command, rest[1:])
    return None if args is None else (home, command, args)


def _take_home(argv: list[str]) -> tuple[str | None, list[str]]:
    if argv and argv[0].startswith("--home="):
        return argv[0].split("=", 1)[1], argv[1:]
    if len(argv) >= 2 and argv[0] == "--home":
        return argv[1], argv[2:]
    return None, argv


def _options(command: str, tokens: list[str]) -> dict[str, Any] | None:
    _, options, positional = _COMMANDS[command]
    args: dict[str, Any] = {"format": "text", **_DEFAULTS[command]}
    words: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _FLAGS.get(command, {}):
            args[_FLAGS[command][token]] = True
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
    return _checked(args, words, positional, _FORMATS.get(command, FORMATS))


def _checked(args: dict[str, Any], words: list[str], positional: str,
             formats: tuple[str, ...] = FORMATS) -> dict[str, Any] | None:
    if args["format"] not in formats or (words and not positional) or (positional and not words):
        return None
    if "limit" in args:
        if not str(args["limit"]).isdigit():
            return None
        args["limit"] = int(args["limit"])
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
    from tapestryd.daemon.client import request
    from tapestryd.errors import DaemonError, DaemonNotRunning

    fmt = args["format"] if command == "context" else args.pop("format")
    try:
        result = request(socket_path(home), _COMMANDS[command][0], args, timeout=TIMEOUT)
    except DaemonNotRunning:
        return None
    except DaemonError as exc:
        if exc.code in ("unknown_op", "shutting_down", "closed", "socket"):
            return None
        sys.stderr.write(f"error: {exc.message}\n")
        return 1
    _emit(command, result, fmt)
    return 0


def _emit(command: str, result: Any, fmt: str) -> None:
    if command == "search":
        from tapestryd.cli.render import render_hits

        if fmt != "text" and result.get("time"):
            sys.stderr.write(f"reading {result['time']['phrase']!r} as {result['time']['label']}\n")
        emit(result if fmt == "text" else result["hits"], fmt, render_hits)
    elif command == "context":
        emit({k: v for k, v in result.items() if k != "rendered"} if fmt == "json" else result, fmt, render_context)
        if result.get("budget_note"):
            sys.stderr.write(f"({result['budget_note']})\n")
    elif command == "status":
        emit(result, fmt, render_status)
    else:
        emit(result, "text", lambda data: render_control(command, data))


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
    lines.append(f"store: {store.get('conversations', 0)} conversations, {store.get('messages', 0)} messages; "
                 f"log at seq {proj.get('last_seq', 0)}")
    lag = proj.get("lag", {})
    lines.append("projections: " + (", ".join(f"{k} {v} behind" for k, v in lag.items()) or "none yet"))
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
