"""Export ZIPs (ChatGPT, Claude.ai), read in place with :mod:`zipfile`.

Members are streamed straight from the archive: nothing is extracted, and no name from
inside an archive ever becomes a path on disk (a member is shown as
``archive.zip!/member/name``). An archive is refused with :class:`ArchiveError` naming
it, the limit and the ``tapestry.toml`` setting that raises it, before anything is read,
when it cannot be read or passes one of its :class:`ZipLimits`: members that would
expand beyond ``[sources] zip_max_expanded_mb`` (1,024 MiB), more members than
``zip_max_entries`` (50,000), or a member over 1 MiB claiming a compression ratio beyond
``zip_max_ratio`` (100:1; exports compress about 5 to 20:1, a 1.6 MB archive of 412 MB of
repeated text is 258:1). Reads never exceed the sizes the archive declares (zipfile stops
at them and checks the CRC).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from tapestryd.errors import ArchiveError

__all__ = ["Archive", "ZipLimits"]

_MIB = 1024**2
_RATIO_FLOOR = _MIB


@dataclass(frozen=True)
class ZipLimits:
    """What an archive may hold: expanded bytes of all members, members, and the compression ratio
    of one member over 1 MiB (expanded / compressed). Set by ``[sources] zip_max_expanded_mb``,
    ``zip_max_entries`` and ``zip_max_ratio``."""

    max_expanded: int = 1024 * _MIB
    max_entries: int = 50_000
    max_ratio: float = 100.0


class Archive:
    """An open ZIP whose members passed the size checks; use as a context manager.

    ``members`` lists the file members (folders and macOS ``__MACOSX/`` resource forks
    left out) in archive order. Raises ArchiveError from the constructor.
    """

    def __init__(self, path: Path, limits: ZipLimits = ZipLimits()) -> None:
        self.path = path
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ArchiveError(f"not a readable ZIP archive ({exc})", str(path)) from exc
        self.members = [m for m in self.zip.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
        try:
            self._check(limits)
        except ArchiveError:
            self.zip.close()
            raise

    def _check(self, limits: ZipLimits) -> None:
        if len(self.members) > limits.max_entries:
            raise ArchiveError(f"refused: it holds {len(self.members):,} files, over the limit of "
                               f"{limits.max_entries:,} (raise [sources] zip_max_entries in tapestry.toml to import "
                               f"it)", str(self.path))
        total = sum(m.file_size for m in self.members)
        if total > limits.max_expanded:
            raise ArchiveError(f"refused: it would expand to {total:,} bytes ({total / _MIB:,.0f} MiB), over the limit "
                               f"of {limits.max_expanded / _MIB:,.0f} MiB (raise [sources] zip_max_expanded_mb in "
                               f"tapestry.toml to import it)", str(self.path))
        for member in self.members:
            ratio = member.file_size / max(member.compress_size, 1)
            if member.file_size > _RATIO_FLOOR and ratio > limits.max_ratio:
                raise ArchiveError(f"refused: member {member.filename!r} claims a compression ratio of {ratio:,.0f}:1 "
                                   f"(limit {limits.max_ratio:g}:1), the mark of a ZIP bomb (raise [sources] "
                                   f"zip_max_ratio in tapestry.toml to import it)", str(self.path))

    def display(self, member: zipfile.ZipInfo) -> str:
        """How a member is named in receipts and event sources: ``archive.zip!/name``."""
        return f"{self.path}!/{member.filename}"

    def open(self, member: zipfile.ZipInfo) -> IO[bytes]:
        """A stream of the member's bytes; raises ArchiveError if it is encrypted or unreadable."""
        if member.flag_bits & 0x1:
            raise ArchiveError(f"member {member.filename!r} is encrypted (password-protected); "
                               f"tapestry reads only ZIPs without a password", str(self.path))
        try:
            return self.zip.open(member)
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as exc:
            raise ArchiveError(f"cannot read member {member.filename!r} ({exc})", str(self.path)) from exc

    def close(self) -> None:
        """Close the archive."""
        self.zip.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
