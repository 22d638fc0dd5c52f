"""The warm index on disk: what a fit of :class:`~tapestryd.projections.tfidf.SimilarityIndex`
computed, saved so that the next start loads it instead of fitting every document again.

The file is ``cache/similarity-index.npz`` in the folder of ``projections.db``
(:func:`index_file`; the home's cache folder, :attr:`tapestryd.paths.Paths.cache`): a numpy
``.npz`` archive (a zip of ``.npy`` arrays, each member with a CRC-32 that reading checks; read
with ``allow_pickle=False``). It holds the fitted block (the terms × documents counts as CSR
``data``/``indices``/``indptr``, and per document its length, norm, kind, ref, time, agent, role
and conversation), the idf, the terms in column order, the node keys, the code table, and a
header (JSON): the :data:`FORMAT`, the analyzer's fingerprint (:func:`analyzer_stamp`), the
similarity feed's seq and the messages and hierarchy checkpoints the fit read through.

:func:`write` writes a temporary file (mode 0600) in the same folder and renames it over the old
one, so a reader finds the old file or the new one, whole. :func:`read` returns the saved index,
or :class:`Unusable` saying why not (missing, a damaged or truncated file, another format or
analyzer); whether it is still current for the database is for the index to decide. The similarity
feed removes the file (:func:`discard`) when something is forgotten and when its projection is
cleared (rebuild, repair, restore), so the file never keeps forgotten text.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tapestryd.projections.analysis import STOPWORDS, TOKEN
from tapestryd.projections.termmatrix import Block, Codes

__all__ = ["FORMAT", "Saved", "Stamp", "Unusable", "analyzer_stamp", "discard", "index_file", "read", "write"]

FORMAT = 1
"""Version of the file's layout and of what a fit computes (termcount, termmatrix, warmdocs, the min_df rule of
tfidf): change it with any of them, and every saved index is refitted once."""

FILE_NAME = "similarity-index.npz"
_TEMP_PREFIX = ".similarity-index."
_COLUMNS = (("lengths", "float32"), ("norms", "float32"), ("kinds", "int8"), ("refs", "int64"), ("ts", "int64"),
            ("agent", "int32"), ("role", "int32"), ("conversation", "int32"))


def index_file(projections_db: Path) -> Path:
    """Where the warm index of ``projections_db`` is saved: ``<its folder>/cache/similarity-index.npz``."""
    return projections_db.parent / "cache" / FILE_NAME


def analyzer_stamp() -> str:
    """A fingerprint (hex) of what the analyzer makes of text: its token pattern, stop words, Porter
    stemmer version and Unicode tables. A saved index stamped with another one counts other terms."""
    import Stemmer

    parts = (TOKEN.pattern, " ".join(sorted(STOPWORDS)), "porter", Stemmer.version(), unicodedata.unidata_version)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Stamp:
    """What a saved index was fitted on: ``seq`` the similarity feed's head, ``messages`` and
    ``summaries`` the messages and hierarchy checkpoints, read before the documents were."""

    seq: int
    messages: int
    summaries: int


@dataclass(frozen=True)
class Saved:
    """A fitted index as saved: ``terms`` in column order, the ``idf`` (float32, one a term), the
    ``fitted`` block (no row hidden), ``node_keys`` (a node's ref is its position), ``codes`` (of the
    agent, role and conversation :class:`~tapestryd.projections.termmatrix.Codes`) and its :class:`Stamp`."""

    terms: list[str]
    idf: Any
    fitted: Block
    node_keys: list[str]
    codes: Codes
    stamp: Stamp


@dataclass(frozen=True)
class Unusable:
    """Why no saved index was read: ``reason`` (one line), ``damaged`` when the file is there but
    cannot be read (it is to be replaced)."""

    reason: str
    damaged: bool = False


def write(path: Path, saved: Saved) -> int:
    """Save ``saved`` to ``path`` atomically (temporary file, mode 0600, renamed over ``path``); returns
    its size in bytes; a missing folder is created (0700). Raises OSError when it cannot be written,
    ValueError when a name holds a NUL character (the separator of the saved name lists)."""
    import numpy as np

    # one copy of each growing list: the running index may add codes and node keys meanwhile
    block, codes, keys = saved.fitted, list(saved.codes.names), list(saved.node_keys)
    arrays = {"header": _pack_json(_header(saved, len(keys), len(codes))), "idf": saved.idf,
              "data": block.counts.data, "indices": block.counts.indices, "indptr": block.counts.indptr,
              "terms": _pack(saved.terms), "node_keys": _pack(keys), "codes": _pack(codes),
              **{name: np.asarray(getattr(block, name), dtype=dtype) for name, dtype in _COLUMNS}}
    path.parent.mkdir(mode=0o700, exist_ok=True)
    _remove_temporaries(path)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=_TEMP_PREFIX, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def read(path: Path) -> Saved | Unusable:
    """The index saved at ``path``, or why it cannot be used (never raises for a bad file)."""
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            header = json.loads(bytes(archive["header"]).decode())
            refused = _refused(header)
            if refused:
                return Unusable(refused)
            return _checked(header, {name: archive[name] for name in archive.files if name != "header"})
    except FileNotFoundError:
        return Unusable("no saved index")
    except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError, AttributeError, zipfile.BadZipFile) as exc:
        return Unusable(f"{type(exc).__name__}: {exc}", damaged=True)


def discard(path: Path) -> bool:
    """Remove the saved index at ``path`` and any temporary file a write left; returns whether the index was there."""
    _remove_temporaries(path)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def _remove_temporaries(path: Path) -> None:
    for leftover in path.parent.glob(f"{_TEMP_PREFIX}*.tmp") if path.parent.is_dir() else ():
        leftover.unlink(missing_ok=True)


def _header(saved: Saved, node_keys: int, codes: int) -> dict[str, Any]:
    return {"format": FORMAT, "analyzer": analyzer_stamp(), "seq": saved.stamp.seq,
            "messages": saved.stamp.messages, "summaries": saved.stamp.summaries, "terms": len(saved.terms),
            "node_keys": node_keys, "codes": codes}


def _refused(header: dict[str, Any]) -> str:
    """Why a readable file of another format or analyzer is not used ('' when it may be)."""
    if header.get("format") != FORMAT:
        return f"saved in format {header.get('format')!r}, this version reads {FORMAT}"
    if header.get("analyzer") != analyzer_stamp():
        return "saved with another analyzer (tokens, stop words or stemmer changed)"
    return ""


def _checked(header: dict[str, Any], arrays: dict[str, Any]) -> Saved:
    """The saved index from its arrays; raises ValueError (or KeyError for a missing array) when
    they do not agree with each other, so a damaged file is never used."""
    import numpy as np
    import scipy.sparse as sp

    terms, docs = int(header["terms"]), len(arrays["lengths"])
    node_keys, codes = _unpack(arrays["node_keys"], header["node_keys"]), _unpack(arrays["codes"], header["codes"])
    data, indices, indptr = arrays["data"], arrays["indices"], arrays["indptr"]
    kinds, refs = arrays["kinds"], arrays["refs"]
    nodes = kinds >= 0
    problems = {
        "per-document arrays differ in length": any(len(arrays[name]) != docs for name, _ in _COLUMNS),
        "idf and terms differ in length": len(arrays["idf"]) != terms,
        "bad row pointers": len(indptr) != terms + 1 or indptr[0] != 0 or indptr[-1] != len(data)
                            or bool(np.any(np.diff(indptr) < 0)),
        "bad counts": len(indices) != len(data) or bool(len(data) and (indices.min() < 0 or indices.max() >= docs
                                                                        or not data.min() >= 1)),
        "bad kinds or refs": bool(docs and (kinds.min() < -1 or kinds.max() > 4
                                            or (nodes.any() and refs[nodes].max() >= len(node_keys)))),
        "bad codes": any(bool(docs and arrays[name].max() >= len(codes)) for name in ("agent", "role", "conversation")),
    }
    wrong = [name for name, bad in problems.items() if bad]
    if wrong:
        raise ValueError("; ".join(wrong))
    counts = sp.csr_matrix((data, indices, indptr), shape=(terms, docs))
    fitted = Block(counts, dead=np.zeros(docs, bool), **{name: arrays[name] for name, _ in _COLUMNS})
    stamp = Stamp(int(header["seq"]), int(header["messages"]), int(header["summaries"]))
    return Saved(_unpack(arrays["terms"], terms), arrays["idf"], fitted, node_keys, Codes.of(codes), stamp)


def _pack(names: list[str]) -> Any:
    """Names as one UTF-8 array (uint8), NUL-separated. Raises ValueError for a name holding NUL."""
    import numpy as np

    if any("\0" in name for name in names):
        raise ValueError("a name holds a NUL character")
    return np.frombuffer("\0".join(names).encode(), dtype=np.uint8)


def _unpack(packed: Any, expected: int) -> list[str]:
    """The ``expected`` names of :func:`_pack`'s array. Raises ValueError when there are not that many."""
    names = bytes(packed).decode().split("\0") if expected else []
    if len(names) != expected:
        raise ValueError(f"{len(names)} names where {expected} were saved")
    return names


def _pack_json(value: dict[str, Any]) -> Any:
    import numpy as np

    return np.frombuffer(json.dumps(value).encode(), dtype=np.uint8)
