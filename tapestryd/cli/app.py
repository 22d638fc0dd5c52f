"""The typer application every command module adds itself to, and the helpers they share.

A command is a few lines: read options, :func:`call` an operation (through the daemon's
socket when it runs, else in this process), and :func:`emit` the result. A
TapestryError becomes one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from typer.core import TyperOption

from tapestryd.cli.render import cut_quoted, printable
from tapestryd.config import Settings, load_settings, resolve_home
from tapestryd.errors import TapestryError
from tapestryd.lazylog import warnings_to_stderr, when_loaded
from tapestryd.operations.shape import to_plain

if TYPE_CHECKING:
    from tapestryd.operations.base import Progress

__all__ = ["Format", "app", "call", "emit", "emit_lines", "settings", "warn"]

app = typer.Typer(
    name="tapestryctl",
    help="tapestryd's command line: import, search and read your AI conversation memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _flag_type(option: TyperOption, ctx: Any) -> Optional[str]:
    """What ``--help`` shows after an option: nothing for a flag, which takes no value.

    typer 0.29 shows ``<bool>`` there, which reads as ``--now true`` (then refused as an
    extra argument); typer 0.28 (pinned: 0.29 needs pydantic, which costs every command a
    fifth more CPU) and the plain (non-rich) help already leave flags bare.
    """
    return None if option.is_flag or _VALUE_TYPE is None else _VALUE_TYPE(option, ctx)


_VALUE_TYPE: Optional[Callable[[TyperOption, Any], Optional[str]]] = getattr(TyperOption, "display_type_rich", None)
if _VALUE_TYPE is not None:
    setattr(TyperOption, "display_type_rich", _flag_type)


class Format(str, Enum):
    """Output formats of listing commands."""

    text = "text"
    json = "json"
    jsonl = "jsonl"


def _print_version(value: bool) -> None:
    if value:
        from tapestryd import __version__

        typer.echo(f"tapestryctl {__version__}")
        raise typer.Exit()


@app.callback()
def _root(ctx: typer.Context,
          home: Optional[str] = typer.Option(None, "--home", envvar="TAPESTRY_HOME",
                                             help="Directory holding config and data (default: platformdirs)."),
          version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                       help="Print the version and exit.")) -> None:
    ctx.obj = {"home": home}
    if ctx.invoked_subcommand in LAZY_LOGS:
        when_loaded(warnings_to_stderr)
    else:
        warnings_to_stderr()


def settings(ctx: typer.Context) -> Settings:
    """The settings of the home chosen by ``--home`` / ``TAPESTRY_HOME`` (loaded once).

    Warnings about the config file (unknown keys) are printed on stderr when it is loaded.
    """
    obj = ctx.find_root().obj if ctx.find_root().obj is not None else {}
    if "settings" not in obj:
        _check_home(obj.get("home"))
        obj["settings"] = load_settings(obj.get("home"))
        ctx.find_root().obj = obj
        for line in obj["settings"].warnings:
            warn(f"warning: {line}")
    loaded: Settings = obj["settings"]
    return loaded


def _check_home(home: Optional[str]) -> None:
    """Raise TapestryError when the home (``--home`` / ``TAPESTRY_HOME``) names a file."""
    root = resolve_home(home)
    if root is not None and root.exists() and not root.is_dir():
        raise TapestryError(f"the home {root} is a file, not a folder (check --home or TAPESTRY_HOME)")


def warn(message: str) -> None:
    """Print a note on stderr (never on stdout, which may be parsed)."""
    typer.echo(message, err=True)


def call(ctx: typer.Context, request: type[Any], args: dict[str, Any], *, progress: Optional[Progress] = None,
         timeout: float = 30.0) -> Any:
    """Run the operation whose request type is ``request``, with fields ``args``, through the
    daemon when it listens, else in this process; returns the typed result.

    Read ops answered locally say so on stderr. ``progress`` is used only when the op runs here.
    A key of ``args`` that is not a field of ``request`` raises TapestryError.
    """
    from tapestryd.operations.dispatch import call_with

    conf = settings(ctx)
    return call_with(conf, request, args, timeout=timeout, progress=progress,
                     on_local=lambda name: _say_local(conf, name))


def _say_local(conf: Settings, op: str) -> None:
    """Before a read op runs here: say so, and warn when the projections lag behind the log
    (an import cut short), since the answer then misses what they have not applied."""
    from tapestryd.operations.base import READ
    from tapestryd.operations.registry import OPERATIONS
    from tapestryd.paths import paths_for
    from tapestryd.queries.status import events_behind

    if OPERATIONS[op].kind != READ:
        return
    warn("tapestryd is not running; answering from the database read-only")
    behind = events_behind(paths_for(conf))
    if behind:
        warn(f"warning: the projections are {behind} events behind the log (an import cut short?), so answers "
             "may miss them; start the daemon (`tapestryd`) or run `tapestryctl rebuild` to bring them up to date")


def emit(data: Any, fmt: Format, text: Callable[[Any], str]) -> None:
    """Print ``data`` (JSON values or typed results) as JSON, JSON lines (one item of a list per
    line) or ``text(data)``."""
    if fmt is Format.json:
        typer.echo(json.dumps(to_plain(data), ensure_ascii=False, indent=2, default=str))
    elif fmt is Format.jsonl:
        plain = to_plain(data)
        emit_lines(plain if isinstance(plain, list) else [plain])
    else:
        typer.echo(printable(text(data)))


def emit_lines(items: Any) -> None:
    """Print each item as one compact JSON line."""
    for item in items:
        sys.stdout.write(json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")


def run() -> int:
    """Run the CLI; returns the exit code (1 for a TapestryError, printed without traceback).

    An OSError about a named file (permission denied, read-only file system) is printed the
    same way: it is the machine's state, not a bug.

    Usage errors and ``typer.Exit`` are handled by typer itself (it exits the process).
    """
    try:
        app()
    except TapestryError as exc:
        warn(f"error: {cut_quoted(exc.message)}")
        return 1
    except OSError as exc:  # the environment, not the code: a read-only or foreign folder, a full disk
        if exc.filename is None:
            raise
        if isinstance(exc, FileExistsError) and Path(exc.filename).is_file():
            warn(f"error: {exc.filename} is a file, not a folder")
        else:
            warn(f"error: {exc.filename}: {exc.strerror}")
        return 1
    return 0


LAZY_LOGS = frozenset({"search", "similar", "context", "status", "stats", "conversations"})
"""Commands whose modules log through :mod:`tapestryd.lazylog` alone: structlog (about 0.2 CPU-s to
import) is set up at their first log line, so answering from the database without the daemon
never imports it when nothing is logged (issue 13: at most 0.5 CPU-s a command at 100k messages).
Every other command sets it up before it runs, since modules it imports log through structlog."""
