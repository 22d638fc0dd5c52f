"""``tapestryctl`` run in the test's own process, seen as a child process would be seen.

:func:`tapestryctl` takes the command line, environment, stdin and working folder a
``subprocess.run([python, "-m", "tapestryd.cli", ...], capture_output=True, text=True)`` would,
runs :func:`tapestryd.cli.main.main` here, and hands back the same ``CompletedProcess``: the exit
code, stdout and stderr (UTF-8, universal newlines). An exception that escapes ``main`` is
printed as the interpreter prints it (``Traceback ...`` on stderr, exit code 1), so a test that
says "no traceback" can still fail.

It is for the many tests about what a command prints, refuses or stores: a child pays an
interpreter and the CLI's imports, about half a CPU-second, every run. Tests about the process
itself (what it imports, a signal, the fast path's start-up, the installed script) start one, and
so do tests of a command whose own children write to the inherited stdout (``demo``): only the
Python streams are captured here, not file descriptors 1 and 2.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

__all__ = ["tapestryctl"]


def tapestryctl(*args: str, env: Mapping[str, str] | None = None, stdin: str = "",
                cwd: str | Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``tapestryctl args`` here with exactly ``env`` as the environment (the current one when
    None), ``stdin`` as its input and ``cwd`` as its working folder; everything is put back after."""
    from tapestryd.cli.main import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.argv, sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    streams = [io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"),
               io.TextIOWrapper(out, encoding="utf-8", write_through=True),
               io.TextIOWrapper(err, encoding="utf-8", write_through=True)]
    code: int = 0
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = ["tapestryctl", *args]
        sys.stdin, sys.stdout, sys.stderr = streams
        try:
            main()
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except BaseException:  # noqa: BLE001  (what the interpreter does with it)
            traceback.print_exc()
            code = 1
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved_streams
        for stream in streams:  # flushed, and unhooked so that dropping it leaves the bytes readable
            stream.detach()
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["tapestryctl", *args], code, _text(out.getvalue()), _text(err.getvalue()))


def _exit_code(code: object) -> int:
    """The process exit code ``sys.exit(code)`` gives (a message is printed on stderr, as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _text(data: bytes) -> str:
    """Bytes read as ``subprocess.run(text=True)`` reads them: UTF-8, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).read()
