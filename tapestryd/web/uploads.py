"""Uploads: an export streamed to disk under a generated name, imported, its receipt kept.

Nothing the browser sends becomes a path: the stored name is ``upload-<UTC time>-<random>``
plus one of the allowed suffixes (``.json``, ``.jsonl``, ``.zip``), and the original name
is only shown back. The file is staged in ``<data>/cache/uploads/``, imported with the
``ingest`` operation (through the daemon when it runs, so it stays the one writer), then
kept in the inbox's ``processed/YYYY-MM-DD/`` (or ``failed/`` beside ``<name>.error.txt``),
as the inbox does with files dropped there by hand.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable

import structlog

from tapestryd.errors import TapestryError
from tapestryd.operations.results import IngestResult

__all__ = ["ALLOWED_SUFFIXES", "Staged", "UploadJobs", "UploadTooLarge", "as_uploaded", "file_away", "receipt_failure",
           "stage_upload", "upload_name"]

log = structlog.get_logger(__name__)

ALLOWED_SUFFIXES = (".jsonl", ".json", ".zip")
_CHUNK = 1 << 20  # bytes read from the request per step
_KEEP_JOBS = 200


class UploadTooLarge(TapestryError):
    """An upload over the configured size limit (``[web] max_upload_mb``)."""


@dataclass(frozen=True)
class Staged:
    """A staged upload: where it is, its size (bytes), sha256 and the name the browser gave."""

    path: Path
    size: int
    sha256: str
    original: str


def upload_name(original: str, now: datetime) -> str:
    """A fresh safe file name keeping only an allowed suffix of ``original``.

    Raises TapestryError when the name ends in none of ``.json``, ``.jsonl``, ``.zip``.
    """
    lowered = original.lower()
    suffix = next((s for s in ALLOWED_SUFFIXES if lowered.endswith(s)), "")
    if not suffix:
        raise TapestryError(f"{_display(original)!r}: only .json, .jsonl and .zip exports can be uploaded")
    return f"upload-{now.astimezone(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(6)}{suffix}"


def _display(name: str) -> str:
    return "".join(ch for ch in name.replace("\\", "/").rsplit("/", 1)[-1] if ch.isprintable())[:200]


def stage_upload(stream: IO[bytes], folder: Path, name: str, original: str, *, limit: int) -> Staged:
    """Copy ``stream`` into ``folder/name`` (at most ``limit`` bytes), hashing as it goes.

    Raises UploadTooLarge (and removes the partial file) past ``limit``; TapestryError for
    an empty upload.
    """
    folder.mkdir(parents=True, exist_ok=True)
    target, digest, size = folder / name, hashlib.sha256(), 0
    with target.open("xb") as out:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                out.close()
                target.unlink()
                raise UploadTooLarge(f"{_display(original)!r} is larger than the {limit >> 20} MB upload limit")
            digest.update(chunk)
            out.write(chunk)
    if size == 0:
        target.unlink()
        raise TapestryError(f"{_display(original)!r} is empty")
    return Staged(target, size, digest.hexdigest(), _display(original))


def file_away(staged: Path, inbox: Path, error: str, now: datetime) -> Path:
    """Move an imported upload to ``inbox/processed/YYYY-MM-DD/`` or, with an error, ``inbox/failed/``."""
    folder = inbox / "failed" if error else inbox / "processed" / now.date().isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / staged.name
    shutil.move(str(staged), target)
    if error:
        (folder / f"{staged.name}.error.txt").write_text(error + "\n", encoding="utf-8")
    return target


def as_uploaded(receipt: IngestResult, staged: Staged) -> IngestResult:
    """``receipt`` with the staged file's path and name replaced by the name the browser gave.

    The user chose ``export.json``; ``upload-20261129T…-ab12cd.json`` means nothing to them.
    """
    def named(text: str) -> str:
        return text.replace(str(staged.path), staged.original).replace(staged.path.name, staged.original)

    files = tuple(replace(f, path=named(f.path), errors=tuple(named(e) for e in f.errors)) for f in receipt.files)
    return replace(receipt, files=files)


def receipt_failure(receipt: IngestResult) -> str:
    """Why an ingest receipt says nothing could be imported ('' when something was)."""
    if not receipt.failed:
        return ""
    errors = [e for f in receipt.files for e in f.errors]
    return "nothing could be imported: " + ("; ".join(errors[:3]) or "no message found")


Importer = Callable[[Staged, str, str], IngestResult]


class UploadJobs:
    """Imports running in background threads, by job id, with their state and receipt.

    A job is ``{"id", "name", "size", "sha256", "agent", "parser", "state", "receipt",
    "error"}``; ``state`` goes ``importing`` → ``done`` or ``failed``.
    """

    def __init__(self, importer: Importer) -> None:
        self._importer = importer
        self._jobs: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def submit(self, staged: Staged, agent: str, parser: str) -> dict[str, Any]:
        """Start importing ``staged`` in a thread; returns the new job."""
        job_id = secrets.token_hex(8)
        job: dict[str, Any] = {"id": job_id, "name": staged.original, "size": staged.size, "sha256": staged.sha256,
               "agent": agent, "parser": parser, "state": "importing", "receipt": None, "error": ""}
        with self._lock:
            self._jobs[job_id] = job
            for old in list(self._jobs)[:-_KEEP_JOBS]:
                del self._jobs[old]
        threading.Thread(target=self._run, args=(job, staged), name=f"upload-{job_id}", daemon=True).start()
        return dict(job)

    def get(self, job_id: str) -> dict[str, Any] | None:
        """A copy of the job, or None when unknown."""
        with self._lock:
            job = self._jobs.get(job_id)
            return dict(job) if job else None

    def _run(self, job: dict[str, Any], staged: Staged) -> None:
        try:
            uploaded = as_uploaded(self._importer(staged, job["agent"], job["parser"]), staged)
            receipt, error = uploaded.to_json(), receipt_failure(uploaded)
            state = "failed" if error else "done"
        except TapestryError as exc:
            receipt, state, error = None, "failed", exc.message
        except Exception as exc:  # a thread must report, never die silently
            log.exception("upload.import_crashed", job=job["id"])
            receipt, state, error = None, "failed", f"internal error: {exc}"
        with self._lock:
            job.update(state=state, receipt=receipt, error=error)
        log.info("upload.imported", job=job["id"], state=state, size=job["size"])
