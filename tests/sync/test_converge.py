"""Three homes standing for three machines capture at once, sync through one hub, and converge."""

from __future__ import annotations

import threading
from pathlib import Path

from sync_helpers import capture, event_ids, log_rows, make_home, search, sync_here, write_session


def test_three_machines_converge_to_one_log_and_the_same_answers(tmp_path: Path, hub_url: str) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    server, _ = make_home(tmp_path, "server", hub_url, key)
    homes = [laptop, desktop, server]
    shared = write_session(tmp_path / "export", "shared-session", [f"shared export line {i} zebra" for i in range(6)])
    errors: list[BaseException] = []

    def machine(n: int) -> None:
        try:
            settings = homes[n]
            for round_ in range(3):
                own = write_session(tmp_path / f"src{n}", f"m{n}-r{round_}",
                                    [f"machine {n} round {round_} message {i} walrus{n}" for i in range(5)], day=4 + n)
                capture(settings, own, *([shared] if n < 2 and round_ == 1 else []))
                sync_here(settings)
        except BaseException as exc:  # reported below: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=machine, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors
    for settings in homes:  # one more round each: everything pushed is now on the hub
        sync_here(settings)
    for settings in homes:
        report = sync_here(settings)
        assert report["push"]["new"] == 0 and report["pull"]["new"] == 0
    logs = [log_rows(s) for s in homes]
    # the same events everywhere; one captured on two machines (the shared export's messages and import
    # receipts) keeps, in each log, the origin and times of its own capture; every other is identical
    facts = [{(row[0], row[1], row[7] if row[1] == "MessageRecorded" else "") for row in log} for log in logs]
    assert facts[0] == facts[1] == facts[2]
    single = [{row for row in log if "shared-session" not in row[6] + row[7]} for log in logs]
    assert single[0] == single[1] == single[2]
    assert {row[-1] for row in logs[0]} == {"laptop", "desktop", "server"}
    for settings in homes:
        ids = event_ids(settings)
        assert len(ids) == len(set(ids)) == len(logs[0])
    shared_events = [row for row in logs[0] if row[1] == "MessageRecorded" and "shared export line 0" in row[7]]
    assert len(shared_events) == 1  # the same export imported on two machines is one set of messages
    for query in ("walrus0", "walrus2", "zebra"):
        answers = [search(s, query) for s in homes]
        assert answers[0] and answers[0] == answers[1] == answers[2], query
    for query in ("round", "shared export line 3"):  # hits of equal score come in each log's own order
        answers = [sorted(search(s, query), key=repr) for s in homes]
        assert answers[0] and answers[0] == answers[1] == answers[2], query
