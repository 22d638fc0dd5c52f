"""Where the daemon's socket is, computed as :func:`tapestryd.paths.paths_for` does (standard library only).

Importing :mod:`tapestryd.paths` would import the config module and double the start-up of
the fast path and the hook; a test holds the two equal.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["socket_path"]


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
