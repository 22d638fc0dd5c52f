"""Exports saved again as UTF-16 (a Windows editor, PowerShell's ``>``) import as their UTF-8 originals do."""

from __future__ import annotations

import codecs
import io
import json
from pathlib import Path

import pytest
from sources_helpers import CHATGPT, CLAUDE_AI, ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.projections import Projector
from tapestryd.sources.transcode import Utf8FromUtf16, utf16_of


def _saved_as(source: Path, folder: Path, codec: str, mark: bytes) -> Path:
    """``source`` (a UTF-8 export) written again in ``codec`` after ``mark``."""
    text = source.read_text(encoding="utf-8")
    path = folder / f"{codec}-{source.parent.name}" / source.name
    path.parent.mkdir(parents=True)
    path.write_bytes(mark + text.encode(codec))
    return path


def _stored(projector: Projector) -> list[tuple[str, str, str]]:
    projector.catch_up()
    return rows(projector.conn, "SELECT conversation, message_key, text FROM messages ORDER BY conversation, id")


@pytest.mark.parametrize(("codec", "mark"), [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE),
                                             ("utf-16-le", b""), ("utf-16-be", b"")])
@pytest.mark.parametrize("export", [CHATGPT, CLAUDE_AI], ids=["chatgpt", "claude-ai"])
def test_a_utf16_export_imports_as_its_utf8_original(tmp_path: Path, store: EventStore, settings: Settings,
                                                      projector: Projector, export: Path, codec: str,
                                                      mark: bytes) -> None:
    """Both byte orders, with and without a byte order mark: the same messages as the original, none an error; the
    original imported after it adds nothing (same messages), and the UTF-16 file again is known by its bytes."""
    receipt = ingest(store, settings, _saved_as(export, tmp_path, codec, mark))["totals"]
    assert receipt["errors"] == 0 and receipt["messages_new"] > 0, receipt
    stored = _stored(projector)
    assert ingest(store, settings, export)["totals"]["messages_new"] == 0
    assert _stored(projector) == stored
    again = ingest(store, settings, _saved_as(export, tmp_path / "again", codec, mark))["totals"]
    assert again["messages_new"] == 0 and again["errors"] == 0, again


def test_utf16_is_told_from_other_text() -> None:
    """A mark or a zero beside each ASCII character is UTF-16; UTF-8, UTF-32 and binary are not."""
    text = json.dumps({"title": "é 😀"})
    assert utf16_of(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == "utf-16"
    assert utf16_of(text.encode("utf-16-be")) == "utf-16-be"
    assert utf16_of(text.encode("utf-8")) == utf16_of(codecs.BOM_UTF32_LE + text.encode("utf-32-le")) == ""
    assert utf16_of(bytes(range(64))) == utf16_of(b"") == ""


def test_the_utf8_stream_keeps_characters_split_across_chunks() -> None:
    """A surrogate pair or character cut by a read boundary comes out whole, in reads of any size."""
    text = "😀é" * 50_000
    stream = io.BufferedReader(Utf8FromUtf16(io.BytesIO(codecs.BOM_UTF16_LE + text.encode("utf-16-le")), "utf-16"),
                               7)
    assert stream.read().decode("utf-8") == text
