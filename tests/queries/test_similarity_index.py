"""The warm TF-IDF index: fitted once, kept current from the feed, refitted in the background."""

from __future__ import annotations

from datetime import datetime
from typing import Iterator

import pytest
from query_helpers import NOW, PARIS, History, wait_until

from tapestryd.config import load_settings
from tapestryd.events import Forgotten, NewEvent, event_id
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import MESSAGE, SimilarityIndex
from tapestryd.queries.reader import Reader
from tapestryd.queries.similar import similar


def at(d: int, h: int = 10) -> datetime:
    return datetime(2026, 3, d, h, 0, tzinfo=PARIS)


@pytest.fixture
def index(seeded: History) -> Iterator[SimilarityIndex]:
    built = SimilarityIndex(paths_for(seeded.settings).projections_db)
    built.build()
    yield built
    built.stop()


def test_the_most_similar_documents_come_first_and_zero_scores_are_dropped(index: SimilarityIndex) -> None:
    """Cosine ranks the watchdog message and summary above the rest; unrelated text finds nothing."""
    found = index.query("flaky watchdog observer", top=10)
    assert {m.doc for m in found[:2]} == {"m:2", "n:L1:claude-code:2026-03-03"}
    assert all(m.score > 0 for m in found) and len(found) == 2
    assert found == sorted(found, key=lambda m: -m.score)
    assert index.query("quantum chromodynamics") == []


def test_kinds_keep_messages_or_one_level(index: SimilarityIndex) -> None:
    """The level filter keeps messages only, or summaries of one level."""
    assert [m.doc for m in index.query("watchdog observer", kinds={MESSAGE})] == ["m:2"]
    assert [m.doc for m in index.query("watchdog observer", kinds={1})] == ["n:L1:claude-code:2026-03-03"]


def test_new_messages_are_found_without_a_refit(seeded: History, index: SimilarityIndex) -> None:
    """A message recorded after the fit is folded in from the feed, with the fitted vocabulary."""
    fitted = index.status()["fitted"]
    seeded.message("claude-code:s3", at(4), "The bowline knot slipped on the rope again", session="s3")
    seeded.commit()
    assert index.refresh() == 1
    found = index.query("bowline knot rope")
    assert {m.doc for m in found} >= {"m:3", "m:4"}
    assert index.status()["fitted"] == fitted and index.status()["delta"] == 1


def test_a_new_summary_replaces_the_old_one(seeded: History, index: SimilarityIndex) -> None:
    """Re-summarizing a node hides its old vector: old words no longer find it, new ones do."""
    seeded.summary("L1:claude-code:2026-03-03", "Sailing", "Practised sailing knots all afternoon.")
    seeded.commit()
    index.refresh()
    assert "n:L1:claude-code:2026-03-03" not in {m.doc for m in index.query("flaky watchdog observer")}
    assert index.query("sailing knots afternoon")[0].doc == "n:L1:claude-code:2026-03-03"


def test_enough_change_refits_in_the_background(seeded: History) -> None:
    """Past the threshold the index refits on its own thread and the delta empties."""
    index = SimilarityIndex(paths_for(seeded.settings).projections_db, refit_min=2, refit_fraction=0.0)
    index.build()
    for n in range(5):
        seeded.message(f"chatgpt:new{n}", at(4, 9 + n), f"Notes on sourdough starter number {n}", agent="chatgpt")
    seeded.commit()
    index.refresh()
    wait_until(lambda: index.status()["fitted"] == 9 and index.status()["delta"] == 0)
    assert index.query("sourdough starter")[0].doc.startswith("m:")
    index.stop()


def test_forgetting_refits_and_the_forgotten_are_never_returned(seeded: History, index: SimilarityIndex) -> None:
    """A Forgotten event resets the index; the forgotten conversation disappears from answers."""
    with Runtime.open(seeded.settings) as runtime:
        runtime.store.append([NewEvent(event_id("forget", "1"), Forgotten(conversation="chatgpt:c1"), NOW, "", "cli")])
        runtime.projector.catch_up()
    index.refresh()
    wait_until(lambda: index.status()["fitted"] == 3 and not index.status()["refitting"])
    assert index.query("braided bread honey sesame") == []


def test_similar_uses_the_warm_index_it_is_given(seeded: History, index: SimilarityIndex) -> None:
    """Given a warm index the query never fits; without one FTS5 answers at once and says so."""
    with Reader.open(load_settings(seeded.settings.home)) as reader:
        cold = similar(reader, "bowline knot")
        assert cold["index"]["warm"] is False and cold["index"]["engine"] == "fts5"
        assert cold["hits"][0]["message_key"] == "m3" and cold["hits"][0]["score"] > 0
        fits = index.last_fit["fit_seconds"]
        warm = similar(reader, "bowline knot", level="messages", top=1, index=index)
        assert warm["index"]["warm"] is True and index.last_fit["fit_seconds"] == fits
        assert [h["message_key"] for h in warm["hits"]] == ["m3"] and 0 < warm["hits"][0]["score"] <= 1


def test_the_cli_without_a_daemon_answers_from_the_full_text_index_and_says_so(seeded: History) -> None:
    """tapestryctl similar: the results on stdout, which index answered on stderr; nothing is fitted."""
    import json
    import subprocess
    import sys

    home = seeded.settings.home
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "similar", "bowline", "knot", "--top", "1", "-f",
                           "json"], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [h["message_key"] for h in json.loads(done.stdout)] == ["m3"]
    assert "no warm index (tapestryd is not running): answered from the full-text index" in done.stderr


def test_many_conversations_and_summaries_fit(history: History) -> None:
    """Codes of agents, roles and conversations share one table: hundreds of them still fit."""
    for n in range(300):
        history.message(f"chatgpt:many{n}", at(1 + n % 4, 8 + n % 12), f"note number {n} about kites", agent="chatgpt")
    history.commit()
    history.summary("L1:chatgpt:2026-03-01", "Kites", "Many notes about kites.")
    history.commit()
    index = SimilarityIndex(paths_for(history.settings).projections_db)
    index.build()
    assert index.status()["fitted"] == 301
    assert index.query("kites", kinds={1})[0].doc == "n:L1:chatgpt:2026-03-01"
    index.stop()


def test_cosine_equals_scikit_learn_tfidf(seeded: History, index: SimilarityIndex) -> None:
    """The warm index's scores are scikit-learn's TfidfVectorizer cosine (sublinear tf, smooth idf, L2)."""
    import sqlite3

    from sklearn.feature_extraction.text import TfidfVectorizer

    from tapestryd.projections.analysis import Analyzer

    with sqlite3.connect(paths_for(seeded.settings).projections_db) as conn:
        texts = [t for (t,) in conn.execute("SELECT text FROM messages WHERE text != '' ORDER BY id")]
        texts += [f"{t}\n{s}" for t, s in conn.execute("SELECT title, summary FROM nodes WHERE summary != ''"
                                                      " ORDER BY key")]
    vectorizer = TfidfVectorizer(analyzer=Analyzer(), sublinear_tf=True)
    matrix = vectorizer.fit_transform(texts)
    expected = (matrix @ vectorizer.transform(["flaky watchdog observer test"]).T).toarray().ravel()
    found = {m.doc: m.score for m in index.query("flaky watchdog observer test", top=10)}
    assert found["m:2"] == pytest.approx(expected[1], abs=1e-5)
    assert found["n:L1:claude-code:2026-03-03"] == pytest.approx(expected[3], abs=1e-5)


def test_a_cold_query_while_the_index_is_fitted_answers_at_once(seeded: History) -> None:
    """A daemon just started hands its index over before fitting it: a query then answers from FTS5, not waiting."""
    with Reader.open(load_settings(seeded.settings.home)) as reader:
        unfitted = SimilarityIndex(reader.paths.projections_db)
        try:
            cold = similar(reader, "bowline knot", level="messages", top=1, index=unfitted)
        finally:
            unfitted.stop()
    assert cold["index"]["warm"] is False and cold["index"]["reason"] == "still fitting its index"
    assert [h["message_key"] for h in cold["hits"]] == ["m3"]
