"""Uploads through the route: staged under a generated name, imported, receipt shown, file kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from waiting import wait_for

from tapestryd.config import Settings

from calendar_history import csrf_of


def post_file(app: Flask, client: FlaskClient, data: bytes, name: str, **query: str) -> Any:
    args = "&".join(f"{k}={v}" for k, v in {"name": name, **query}.items())
    return client.post(f"/api/upload?{args}", data=data, content_type="application/octet-stream",
                       headers={"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)})


def wait_job(client: FlaskClient, job_id: str) -> dict[str, Any]:
    """The upload job once it is no longer importing."""
    def done() -> dict[str, Any] | None:
        job: dict[str, Any] = client.get(f"/api/upload/{job_id}").get_json()["job"]
        return job if job["state"] != "importing" else None

    return wait_for(done)  # type: ignore[no-any-return]


def test_a_chatgpt_export_is_imported_and_its_receipt_returned(app: Flask, client: FlaskClient, history: Settings,
                                                               corpus: Path) -> None:
    """A real ChatGPT export: new messages counted, the file kept in processed/ under a generated name."""
    export = corpus / "chatgpt" / "echomine-003_with_code.json"
    response = post_file(app, client, export.read_bytes(), "../../" + export.name, agent="chatgpt", parser="chatgpt")
    assert response.status_code == 202
    job = wait_job(client, response.get_json()["job"]["id"])
    assert job["state"] == "done", job
    assert job["receipt"]["totals"]["messages_new"] > 0 and job["name"] == export.name
    assert [f["path"] for f in job["receipt"]["files"]] == [export.name]
    kept = list((history.sources.inbox / "processed").rglob("upload-*.json"))
    assert len(kept) == 1 and kept[0].read_bytes() == export.read_bytes()
    assert not any((history.data_dir / "cache" / "uploads").iterdir())
    again = wait_job(client, post_file(app, client, export.read_bytes(), export.name).get_json()["job"]["id"])
    assert again["receipt"]["totals"]["messages_new"] == 0 and again["receipt"]["totals"]["messages_known"] > 0


def test_a_file_that_is_no_export_fails_with_its_reason(app: Flask, client: FlaskClient, history: Settings) -> None:
    """Nothing importable: the job fails with the importer's reason and the file lands in failed/."""
    job = wait_job(client, post_file(app, client, b'{"hello": "world"}', "notes.json").get_json()["job"]["id"])
    assert job["state"] == "failed" and "notes.json" in job["error"] and "upload-" not in job["error"]
    failed = history.sources.inbox / "failed"
    assert [p.suffix for p in sorted(failed.iterdir())] == [".json", ".txt"]
    assert client.get("/api/upload/nope").status_code == 404
