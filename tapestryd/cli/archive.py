"""Archive commands: ``archive list`` and ``archive extract``.

Both only read ``<data>/archive/archive.db`` (:mod:`tapestryd.operations.archive`), so
they run here, beside a running daemon too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, settings, warn
from tapestryd.operations import requests as rq

if TYPE_CHECKING:
    from tapestryd.operations.results import ArchiveListResult

__all__ = ["archive_app"]

archive_app = typer.Typer(help="The raw archive: byte-exact copies of watched transcripts (list, extract).",
                          no_args_is_help=True)
app.add_typer(archive_app, name="archive")


@archive_app.command("list")
def list_files(ctx: typer.Context, fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Archived files: id, version, original and stored size, last capture, path."""
    emit(call(ctx, rq.ArchiveListRequest, {}), fmt, _render_list)


def _render_list(result: ArchiveListResult) -> str:
    if not result.files:
        return "the archive is empty"
    lines = [f"{'id':>5} {'v':>3} {'original':>10} {'stored':>10}  {'last capture':<20} path"]
    for row in result.files:
        flags = "".join(f" [{flag}]" for flag, on in (("replaced", row.state == "replaced"),
                                                      ("edited by forget", row.edited)) if on)
        lines.append(f"{row.id:>5} {row.version:>3} {_size(row.original_bytes):>10} "
                     f"{_size(row.stored_bytes):>10}  {row.last_capture[:19]:<20} {row.path}{flags}")
    return "\n".join(lines)


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    scaled = count / 1024
    for unit in ("KiB", "MiB"):
        if scaled < 1024:
            return f"{scaled:.1f} {unit}"
        scaled /= 1024
    return f"{scaled:.1f} GiB"


@archive_app.command()
def extract(ctx: typer.Context,
            ref: str = typer.Argument(..., help="A file's id (see `archive list`), its path, or its file name."),
            out: Optional[Path] = typer.Option(None, "--out", help="Write here (mode 0600) instead of stdout."),
            version: Optional[int] = typer.Option(None, "--version", help="An older version of the path (default: "
                                                  "the newest).")) -> None:
    """Write an archived file's exact bytes to stdout or --out."""
    from tapestryd.operations.archive import extract_offline

    file, blocks = extract_offline(settings(ctx), ref, version=version)
    if out is None:
        for block in blocks:
            sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()
    else:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)  # an existing file keeps its mode through O_CREAT
        with os.fdopen(fd, "wb") as fh:
            for block in blocks:
                fh.write(block)
        warn(f"wrote {file.size} bytes of {file.path} (version {file.version}) to {out}")
    if file.edited:
        warn("note: forget removed lines from this copy; it is not byte-exact")
