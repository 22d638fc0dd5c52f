"""The archive's SQLite file: file versions, their compressed blocks, forget rules and a checkpoint.

Tables it owns (in ``<data>/archive/archive.db``, WAL, ``synchronous=NORMAL``: a commit
survives a killed process; a power cut may lose the last commits, whose bytes the source still
holds, so the next pass reads them again; FULL cost ~10 ms of fsync per live append):

* ``files(id, path, version, source, inode, consumed, head, tail, size, stored, edited,
  state, first_capture, last_capture)``: one row per version of a watched file.
  ``consumed`` is how many bytes of the source were read,
  ``head``/``tail`` the first and the last bytes read (up to :data:`SAMPLE`), which tell a
  replaced or truncated file from the one read before; ``size`` and ``stored`` are the
  bytes kept, raw and compressed; ``edited`` says forget removed lines (the copy is no
  longer byte-exact); ``state`` is ``current``, ``replaced`` (a newer version of the path
  exists), ``forgotten`` (a tombstone: the path is never captured again) or ``off`` (the
  file's source is not kept; no bytes).
* ``blocks(file_id, start, length, data)``: the kept bytes in independent zlib streams of
  at most :data:`BLOCK` raw bytes each. An append fills the last block up to
  :data:`BLOCK` (recompressing only that block) and adds new ones: the whole file is
  never recompressed, and any block decompresses alone.
* ``rules(seq, before, match)``: the line rules of Forgotten events applied so far (seq of
  the event); ``checkpoint``: the seq and event id of the last Forgotten event the archive
  has followed (the id tells a log restored from a backup, whose seqs mean other events).
* ``forgotten_messages(source, message)``: the keys of the messages written over several lines
  (:mod:`~tapestryd.sources.archive.parts`; ``source`` is the parser name) a line rule removed a
  line of: every line of them is removed, now and when captured later, also after a restart.

Every change (blocks and the row that counts them) is one transaction, so a process killed
mid-append leaves the archive as it was before that append; the bytes are still in the
source and the next pass reads them again. Compression is the standard library's zlib: no
dependency, and since zlib's window is 32 KiB, 64 KiB blocks lose little against one stream
per file (``bench/archive_bench.py``: 9% more bytes than whole-file zlib on generated Claude
Code sessions appended 3 lines at a time; per-line independent compression would be ~3x).
"""

from __future__ import annotations

import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from tapestryd.db import connect, migrate, transaction, translate_errors
from tapestryd.filemodes import private_dir

__all__ = ["BLOCK", "SAMPLE", "ArchiveStore", "ArchivedFile"]

BLOCK = 64 << 10  # raw bytes per compressed block
SAMPLE = 64  # bytes of a source's head and of its tail kept to recognise it
_LEVEL = 6
_FILE_COLUMNS = ("id, path, version, source, inode, consumed, head, tail, size, stored, edited, state, "
                 "first_capture, last_capture")


@dataclass(frozen=True)
class ArchivedFile:
    """One archived version of a file (a ``files`` row; see the module docstring for each field)."""

    id: int
    path: str
    version: int
    source: str
    inode: int
    consumed: int
    head: bytes
    tail: bytes
    size: int
    stored: int
    edited: bool
    state: str
    first_capture: str
    last_capture: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready fields for ``archive list`` (the head and tail samples left out)."""
        return {"id": self.id, "path": self.path, "version": self.version, "source": self.source,
                "original_bytes": self.size, "stored_bytes": self.stored, "edited": self.edited,
                "state": self.state, "first_capture": self.first_capture, "last_capture": self.last_capture}


def _file(row: tuple[Any, ...]) -> ArchivedFile:
    (fid, path, version, source, inode, consumed, head, tail, size, stored, edited, state, first, last) = row
    return ArchivedFile(int(fid), str(path), int(version), str(source), int(inode), int(consumed),
                        bytes(head), bytes(tail), int(size), int(stored), bool(edited), str(state), str(first),
                        str(last))


def _create_tables(conn: sqlite3.Connection) -> None:
    conn.execute("""CREATE TABLE files (
        id INTEGER PRIMARY KEY, path TEXT NOT NULL, version INTEGER NOT NULL, source TEXT NOT NULL,
        inode INTEGER NOT NULL, consumed INTEGER NOT NULL, head BLOB NOT NULL, tail BLOB NOT NULL,
        size INTEGER NOT NULL, stored INTEGER NOT NULL, edited INTEGER NOT NULL, state TEXT NOT NULL,
        first_capture TEXT NOT NULL, last_capture TEXT NOT NULL, UNIQUE (path, version))""")
    conn.execute("""CREATE TABLE blocks (
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE, start INTEGER NOT NULL,
        length INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (file_id, start))""")
    conn.execute("CREATE TABLE rules (seq INTEGER PRIMARY KEY, before TEXT NOT NULL, match TEXT NOT NULL)")
    conn.execute("CREATE TABLE checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)")


def _checkpoint_event_id(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE checkpoint ADD COLUMN event_id TEXT NOT NULL DEFAULT ''")


def _forgotten_messages(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE forgotten_messages (source TEXT NOT NULL, message TEXT NOT NULL, "
                 "PRIMARY KEY (source, message))")


MIGRATIONS = [_create_tables, _checkpoint_event_id, _forgotten_messages]


class ArchiveStore:
    """The archive database (see the module docstring); one connection, used by one thread at a time.

    ``readonly`` opens an existing file without writing (``list``, ``extract``, status);
    otherwise the folder is created 0700 and the file 0600 (:mod:`tapestryd.filemodes`). Raises StoreError when the file
    cannot be opened.
    """

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        if not readonly:
            private_dir(path.parent)
        self.conn = connect(path, readonly=readonly, durable=False)
        if not readonly:
            migrate(self.conn, MIGRATIONS)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> ArchiveStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Reading

    def ready(self) -> bool:
        """Whether the tables exist (a database a writer has just created may not have them yet)."""
        with translate_errors(self.conn):
            return self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'files'").fetchone() is not None

    def _files(self, where: str, params: tuple[object, ...]) -> list[ArchivedFile]:
        with translate_errors(self.conn):
            rows = self.conn.execute(f"SELECT {_FILE_COLUMNS} FROM files {where}", params).fetchall()
        return [_file(row) for row in rows]

    def latest(self, path: str) -> ArchivedFile | None:
        """The newest version of ``path`` (current or a forgotten tombstone), or None."""
        found = self._files("WHERE path = ? ORDER BY version DESC LIMIT 1", (path,))
        return found[0] if found else None

    def versions(self, path: str) -> list[ArchivedFile]:
        """Every version of ``path``, oldest first."""
        return self._files("WHERE path = ? ORDER BY version", (path,))

    def get(self, file_id: int) -> ArchivedFile | None:
        """The version with this id, or None."""
        found = self._files("WHERE id = ?", (file_id,))
        return found[0] if found else None

    def listing(self) -> list[ArchivedFile]:
        """Every version that holds bytes or is being captured (tombstones and ``off`` rows left out), by path
        and version."""
        return self._files("WHERE state IN ('current', 'replaced') ORDER BY path, version", ())

    def at_inode(self, inode: int) -> list[ArchivedFile]:
        """The current versions last read from a file with this inode."""
        return self._files("WHERE inode = ? AND state = 'current' ORDER BY id", (inode,))

    def current(self) -> dict[str, ArchivedFile]:
        """The newest version of every path, tombstones included: path → file."""
        return {f.path: f for f in self._files("ORDER BY path, version", ())}

    def read(self, file_id: int) -> Iterator[bytes]:
        """The kept bytes of one version, block by block, in order."""
        start = -1
        while True:
            with translate_errors(self.conn):
                row = self.conn.execute("SELECT start, data FROM blocks WHERE file_id = ? AND start > ? "
                                        "ORDER BY start LIMIT 1", (file_id, start)).fetchone()
            if row is None:
                return
            start = row[0]
            yield zlib.decompress(row[1])

    def totals(self) -> dict[str, object]:
        """Counts for ``status``: files, versions, original and stored bytes, last capture."""
        with translate_errors(self.conn):
            row = self.conn.execute(
                "SELECT COUNT(DISTINCT path), COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(stored), 0), "
                "MAX(last_capture) FROM files WHERE state IN ('current', 'replaced')").fetchone()
        return {"files": row[0], "versions": row[1], "original_bytes": row[2], "stored_bytes": row[3],
                "last_capture": row[4] or ""}

    def problems(self) -> list[str]:
        """What is wrong with the stored copies (``[]`` when nothing): SQLite's integrity check, then per
        version blocks that do not follow each other from byte 0, do not decompress to their length,
        or do not add up to the version's sizes. Decompresses every block."""
        with translate_errors(self.conn):
            found = [f"sqlite: {row[0]}" for row in self.conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
        for file in self.listing():
            found.extend(f"{file.path} (id {file.id}, version {file.version}): {problem}"
                         for problem in self._version_problems(file))
        return found

    def _version_problems(self, file: ArchivedFile) -> Iterator[str]:
        at = stored = 0
        with translate_errors(self.conn):
            rows = self.conn.execute("SELECT start, length, data FROM blocks WHERE file_id = ? ORDER BY start",
                                     (file.id,)).fetchall()
        for start, length, data in rows:
            if start != at:
                yield f"block at byte {start} where byte {at} was expected"
            try:
                raw = zlib.decompress(data)
            except zlib.error as exc:
                yield f"block at byte {start} does not decompress ({exc})"
                raw = b""
            if len(raw) != length:
                yield f"block at byte {start} holds {len(raw)} bytes, not {length}"
            at, stored = start + length, stored + len(data)
        if (at, stored) != (file.size, file.stored):
            yield f"blocks hold {at} bytes ({stored} stored), the version says {file.size} ({file.stored} stored)"

    def rules(self) -> list[tuple[str, str]]:
        """The ``(before, match)`` line rules applied so far, in log order."""
        with translate_errors(self.conn):
            return [(b, m) for b, m in self.conn.execute("SELECT before, match FROM rules ORDER BY seq")]

    def forgotten_messages(self, source: str) -> frozenset[str]:
        """The keys of the messages of ``source`` (a parser name) whose every line is removed (none in an archive
        opened read-only before its upgrade added the table)."""
        with translate_errors(self.conn):
            if self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'forgotten_messages'").fetchone() is None:
                return frozenset()
            return frozenset(row[0] for row in self.conn.execute(
                "SELECT message FROM forgotten_messages WHERE source = ?", (source,)))

    def checkpoint(self) -> tuple[int, str]:
        """``(seq, event id)`` of the last Forgotten event followed (``(0, "")`` at first)."""
        with translate_errors(self.conn):
            row = self.conn.execute("SELECT seq, event_id FROM checkpoint WHERE id = 1").fetchone()
        return (int(row[0]), str(row[1])) if row else (0, "")

    # Writing

    def start_version(self, path: str, source: str, inode: int, now: str, *, state: str = "current") -> ArchivedFile:
        """A new, empty version of ``path`` (the one before it becomes ``replaced``)."""
        with transaction(self.conn):
            self.conn.execute("UPDATE files SET state = 'replaced' WHERE path = ? AND state = 'current'", (path,))
            version = self.conn.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM files WHERE path = ?",
                                        (path,)).fetchone()[0]
            cur = self.conn.execute("INSERT INTO files (path, version, source, inode, consumed, head, tail, size, "
                                    "stored, edited, state, first_capture, last_capture) "
                                    "VALUES (?, ?, ?, ?, 0, x'', x'', 0, 0, 0, ?, ?, ?)",
                                    (path, version, source, inode, state, now, now))
            file_id = int(cur.lastrowid or 0)
        found = self.get(file_id)
        assert found is not None
        return found

    def append(self, file: ArchivedFile, data: bytes, *, consumed: int, inode: int, head: bytes, tail: bytes,
               edited: bool, now: str) -> ArchivedFile:
        """Add ``data`` (kept bytes) to ``file`` and move its source position, in one transaction.

        ``consumed``, ``inode``, ``head`` and ``tail`` describe the source after this read;
        ``edited`` is set when forget rules left some of the bytes read out. Returns the
        updated row.
        """
        with transaction(self.conn):
            stored = file.stored + self._add_blocks(file.id, file.size, data)
            self.conn.execute("UPDATE files SET consumed = ?, inode = ?, head = ?, tail = ?, size = ?, stored = ?, "
                              "edited = ?, last_capture = ? WHERE id = ?",
                              (consumed, inode, head, tail, file.size + len(data), stored,
                               int(edited or file.edited), now, file.id))
        found = self.get(file.id)
        assert found is not None
        return found

    def _add_blocks(self, file_id: int, size: int, data: bytes) -> int:
        """Fill the last block up to BLOCK and add new ones; returns the change in stored bytes."""
        if not data:
            return 0
        delta = 0
        last = self.conn.execute("SELECT start, length, data FROM blocks WHERE file_id = ? ORDER BY start DESC "
                                 "LIMIT 1", (file_id,)).fetchone()
        start = size
        if last is not None and last[1] < BLOCK:
            start, delta = last[0], -len(last[2])
            data = zlib.decompress(last[2]) + data
            self.conn.execute("DELETE FROM blocks WHERE file_id = ? AND start = ?", (file_id, last[0]))
        for at in range(0, len(data), BLOCK):
            packed = zlib.compress(data[at:at + BLOCK], _LEVEL)
            self.conn.execute("INSERT INTO blocks VALUES (?, ?, ?, ?)",
                              (file_id, start + at, len(data[at:at + BLOCK]), packed))
            delta += len(packed)
        return delta

    def rewrite(self, file: ArchivedFile, chunks: Iterator[bytes]) -> None:
        """Replace the kept bytes of ``file`` by ``chunks`` and mark it edited.

        The new blocks are compressed first (``chunks`` may read the old ones), then swapped in
        one transaction; the compressed copy is held in memory meanwhile.
        """
        packed, size, pending = [], 0, b""
        for chunk in chunks:
            pending += chunk
            while len(pending) >= BLOCK:
                packed.append((size, BLOCK, zlib.compress(pending[:BLOCK], _LEVEL)))
                size, pending = size + BLOCK, pending[BLOCK:]
        if pending:
            packed.append((size, len(pending), zlib.compress(pending, _LEVEL)))
            size += len(pending)
        with transaction(self.conn):
            self.conn.execute("DELETE FROM blocks WHERE file_id = ?", (file.id,))
            self.conn.executemany("INSERT INTO blocks VALUES (?, ?, ?, ?)",
                                  [(file.id, start, length, data) for start, length, data in packed])
            self.conn.execute("UPDATE files SET size = ?, stored = ?, edited = 1 WHERE id = ?",
                              (size, sum(len(data) for _, _, data in packed), file.id))

    def move(self, old: str, new: str) -> None:
        """Every version of path ``old`` becomes a version of path ``new`` (which has none)."""
        with transaction(self.conn):
            self.conn.execute("UPDATE files SET path = ? WHERE path = ?", (new, old))

    def drop(self, file: ArchivedFile) -> None:
        """Delete one version row and its blocks."""
        with transaction(self.conn):
            self.conn.execute("DELETE FROM files WHERE id = ?", (file.id,))

    def forget_path(self, path: str, now: str) -> int:
        """Drop every version of ``path`` and leave a tombstone so it is never captured again.

        Returns how many versions held bytes.
        """
        with transaction(self.conn):
            dropped = self.conn.execute(
                "SELECT COUNT(*) FROM files WHERE path = ? AND state IN ('current', 'replaced')", (path,)).fetchone()[0]
            newest = self.conn.execute("SELECT MAX(version) FROM files WHERE path = ?", (path,)).fetchone()[0]
            self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
            self.conn.execute("INSERT INTO files (path, version, source, inode, consumed, head, tail, size, stored, "
                              "edited, state, first_capture, last_capture) VALUES (?, ?, '', 0, 0, x'', x'', 0, 0, "
                              "0, 'forgotten', ?, ?)", (path, (newest or 0) + 1, now, now))
        return int(dropped)

    def add_rule(self, seq: int, before: str, match: str) -> None:
        """Record a line rule of the Forgotten event ``seq`` (again: no-op)."""
        with transaction(self.conn):
            self.conn.execute("INSERT OR IGNORE INTO rules VALUES (?, ?, ?)", (seq, before, match))

    def forget_messages(self, source: str, keys: Iterable[str]) -> None:
        """Record that every line of these messages of ``source`` is removed (keys already recorded: no-op)."""
        with transaction(self.conn):
            self.conn.executemany("INSERT OR IGNORE INTO forgotten_messages VALUES (?, ?)",
                                  [(source, key) for key in keys])

    def set_checkpoint(self, seq: int, event_id: str) -> None:
        """Record that every Forgotten event up to ``seq`` (whose id is ``event_id``) has been followed."""
        with transaction(self.conn):
            self.conn.execute("INSERT INTO checkpoint VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE "
                              "SET seq = excluded.seq, event_id = excluded.event_id", (seq, event_id))
