"""Read ``.env`` files (python-dotenv) and warn when one holding a key is readable by others."""

from __future__ import annotations

import stat
from pathlib import Path

from tapestryd.lazylog import get_logger

__all__ = ["read_dotenv"]

log = get_logger(__name__)


def read_dotenv(path: Path) -> dict[str, str]:
    """The ``KEY=value`` pairs of ``path`` (empty when it does not exist).

    Logs ``dotenv.insecure_mode`` (never the values) when group or others may read the file:
    it should be mode 0600.
    """
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    if path.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning("dotenv.insecure_mode", path=str(path), mode=oct(path.stat().st_mode & 0o777), expected="0o600")
    return {k: v for k, v in dotenv_values(path).items() if v is not None}
