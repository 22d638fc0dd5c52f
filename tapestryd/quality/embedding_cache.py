"""Sentence embeddings kept on disk, so an evaluation embeds each distinct text once across runs.

The embedding judge compares the same facts and raw sentences run after run; only the
summaries change. :class:`CachedEncoder` wraps any encoder (``encode(texts) -> array``) and
keeps every vector it computed in a SQLite file, keyed by the sha256 of the text under a
``model`` name (float32 blobs), so a later run encodes only the texts it has not seen. The
file is a cache: deleting it changes no figure, only the time the next run takes.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from tapestryd.db import in_chunks

__all__ = ["CachedEncoder"]


class CachedEncoder:
    """``encoder`` with a vector cache in the SQLite file ``path`` (created with its folder when missing)."""

    def __init__(self, encoder: Any, path: Path, model: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.encoder, self.model = encoder, model
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
                          "vector BLOB NOT NULL, PRIMARY KEY (model, key))")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array ``(len(texts), dim)``: cached rows read back, the others encoded and stored."""
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found = self._read(set(keys))
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if missing:
            vectors = np.asarray(self.encoder.encode(missing), dtype=np.float32)
            fresh = {keys[texts.index(t)]: v for t, v in zip(missing, vectors)}
            with self.conn:
                self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                      [(self.model, k, v.tobytes()) for k, v in fresh.items()])
            found.update(fresh)
        return np.array([found[k] for k in keys], dtype=np.float32).reshape(len(texts), -1)

    def _read(self, keys: set[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        wanted = sorted(keys)
        for chunk, marks in in_chunks(wanted):
            rows = self.conn.execute(f"SELECT key, vector FROM vectors WHERE model = ? AND key IN ({marks})",
                                     [self.model, *chunk])
            out.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        return out
