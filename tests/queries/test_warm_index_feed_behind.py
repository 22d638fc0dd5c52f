"""The warm index fitted while the similarity feed lags behind the messages: no second fit.

A home imported with the messages projection alone (``bench/search_bench.py`` builds them so)
has its hierarchy and similarity projections caught up at the daemon's first start, while the
index is fitted. The feed then lists every message as changed; the fit read them already, so
refreshing passes over those rows instead of refitting the whole store (at 1M messages each
such refit read the store again, one after another, while the catch-up went on).
"""

from __future__ import annotations

from datetime import datetime

from query_helpers import PARIS, History

from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.projections import MessagesProjection, Projector, default_projections
from tapestryd.projections.tfidf import SimilarityIndex


def at(h: int) -> datetime:
    return datetime(2026, 3, 2, h, 0, tzinfo=PARIS)


def test_rows_the_fit_read_already_are_passed_over_and_later_ones_still_count(history: History) -> None:
    texts = ["A recipe for braided bread with honey", "Tie a bowline knot on the sailing rope",
             "The watchdog observer test is flaky", "Sourdough starter notes for the weekend"]
    for n, text in enumerate(texts):
        history.message(f"chatgpt:c{n}", at(9 + n), text, agent="chatgpt")
    paths = paths_for(history.settings)
    paths.ensure()
    with EventStore(paths.events_db) as store:
        store.append(history.pending)
        history.pending.clear()
        messages_only = Projector(store, paths.projections_db, [MessagesProjection()])
        messages_only.catch_up()
        messages_only.close()
        index = SimilarityIndex(paths.projections_db, refit_min=2, refit_fraction=0.0)
        try:
            index.build()
            first_fit = index.last_fit
            everything = Projector(store, paths.projections_db,
                                   default_projections(history.settings.timezone, history.settings.first_day_of_week))
            everything.catch_up()  # the feed now lists the four messages, changed after the fit's feed position
            assert index.refresh() == 0
            assert index.status()["delta"] == 0 and index.status()["seq"] == everything.checkpoint("similarity")

            history.message("chatgpt:c9", at(15), "The bowline knot slipped again", agent="chatgpt")
            store.append(history.pending)
            everything.catch_up()
            everything.close()
            assert index.refresh() == 1
            assert {m.doc for m in index.query("bowline knot")} == {"m:2", "m:5"}
        finally:
            index.stop()  # waits for a refit thread, had one been started
    assert index.last_fit is first_fit
