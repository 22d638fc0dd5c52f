"""Export ZIPs (ChatGPT, Claude.ai), read in place with :mod:`zipfile`.

Members are streamed straight from the archive: nothing is extracted, and no name from
inside an archive ever becomes a path on disk (a member is shown as
``archive.zip!/member/name``). An archive is refused with :class:`ArchiveError` naming
it when it cannot be read, when its members would expand beyond ``max_total`` bytes
(default 2 GiB), or when a member over 1 MiB claims a compression ratio beyond
``max_ratio`` (default 1000:1), the mark of a ZIP bomb. Reads never exceed the sizes
the archive declares (zipfile stops at them and checks the CRC).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import BinaryIO

from tapestryd.errors import ArchiveError

__all__ = ["Archive", "MAX_RATIO", "MAX_TOTAL"]

MAX_TOTAL = 2 * 1024**3
MAX_RATIO = 1000
_RATIO_FLOOR = 1024**2


class Archive:
    """An open ZIP whose members passed the size checks; use as a context manager.

    ``members`` lists the file members (folders and macOS ``__MACOSX/`` resource forks
    left out) in archive order. Raises ArchiveError from the constructor.
    """

    def __init__(self, path: Path, *, max_total: int = MAX_TOTAL, max_ratio: int = MAX_RATIO) -> None:
        self.path = path
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ArchiveError(f"not a readable ZIP archive ({exc})", str(path)) from exc
        self.members = [m for m in self.zip.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
        try:
            self._check(max_total, max_ratio)
        except ArchiveError:
            self.zip.close()
            raise

    def _check(self, max_total: int, max_ratio: int) -> None:
        total = sum(m.file_size for m in self.members)
        if total > max_total:
            raise ArchiveError(f"refused: it would expand to {total:,} bytes, over the limit of {max_total:,}",
                               str(self.path))
        for member in self.members:
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > _RATIO_FLOOR and ratio > max_ratio:
                raise ArchiveError(f"refused: member {member.filename!r} claims a compression ratio of {ratio:,.0f}:1 "
                                   f"(limit {max_ratio}:1), the mark of a ZIP bomb", str(self.path))

    def display(self, member: zipfile.ZipInfo) -> str:
        """How a member is named in receipts and event sources: ``archive.zip!/name``."""
        return f"{self.path}!/{member.filename}"

    def open(self, member: zipfile.ZipInfo) -> BinaryIO:
        """A stream of the member's bytes; raises ArchiveError if it is encrypted or unreadable."""
        if member.flag_bits & 0x1:
            raise ArchiveError(f"member {member.filename!r} is encrypted (password-protected); "
                               f"tapestry reads only ZIPs without a password", str(self.path))
        try:
            return self.zip.open(member)  # type: ignore[return-value]
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as exc:
            raise ArchiveError(f"cannot read member {member.filename!r} ({exc})", str(self.path)) from exc

    def close(self) -> None:
        """Close the archive."""
        self.zip.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
