"""The calendar's guards: Host, Origin and CSRF on changes, upload limits and safe names."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tapestryd.clock import FixedClock
from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.web import create_app
from tapestryd.web.security import bind_warning, host_allowed, is_loopback
from tapestryd.web.uploads import UploadTooLarge, stage_upload, upload_name

from calendar_history import TODAY, csrf_of, reload_settings

COLOR = {"agent": "chatgpt", "color": "#123456"}


def test_a_change_without_origin_is_refused(app: Flask, client: FlaskClient) -> None:
    """A POST carrying the token but no Origin or Referer is refused."""
    response = client.post("/api/agents/color", json=COLOR, headers={"X-CSRF-Token": csrf_of(app)})
    assert response.status_code == 403 and "Origin" in response.get_json()["error"]


def test_a_change_from_another_site_is_refused(app: Flask, client: FlaskClient, history: Settings) -> None:
    """A page on another origin cannot change the service, even if it had the token."""
    before = history.config_file.read_text()
    response = client.post("/api/agents/color", json=COLOR,
                           headers={"Origin": "http://evil.example", "X-CSRF-Token": csrf_of(app)})
    assert response.status_code == 403 and "evil.example" in response.get_json()["error"]
    assert history.config_file.read_text() == before


def test_a_change_without_the_csrf_token_is_refused(client: FlaskClient) -> None:
    """Same origin but no token (or a wrong one): refused, and told to reload."""
    for headers in ({"Origin": "http://localhost"}, {"Origin": "http://localhost", "X-CSRF-Token": "guess"}):
        response = client.post("/api/agents/color", json=COLOR, headers=headers)
        assert response.status_code == 403 and "CSRF" in response.get_json()["error"]


def test_a_form_post_from_another_site_cannot_upload(client: FlaskClient, history: Settings) -> None:
    """A cross-site form POST to the upload endpoint stores nothing."""
    response = client.post("/api/upload?name=x.json", data=b"{}", headers={"Origin": "https://evil.example"},
                           content_type="text/plain")
    assert response.status_code == 403
    assert not (history.data_dir / "cache" / "uploads").exists()


def test_a_foreign_host_header_is_refused(client: FlaskClient) -> None:
    """DNS rebinding: a request naming another host is refused even for reading."""
    assert client.get("/month/2026-03", headers={"Host": "attacker.example:5008"}).status_code == 421
    assert client.get("/month/2026-03", headers={"Host": "127.0.0.1:5008"}).status_code == 200


def test_loopback_checks() -> None:
    """Loopback names and addresses are told apart from the rest."""
    assert is_loopback("127.0.0.1") and is_loopback("127.8.9.1") and is_loopback("[::1]") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.com")
    assert host_allowed("localhost:5008", "127.0.0.1") and host_allowed("[::1]:5008", "127.0.0.1")
    assert not host_allowed("evil.example:5008", "127.0.0.1")
    assert host_allowed("box.lan:5008", "0.0.0.0")


def test_binding_beyond_loopback_warns_on_the_page(history: Settings) -> None:
    """Served on 0.0.0.0 the calendar says, on every page, who can read it."""
    assert bind_warning("127.0.0.1") == ""
    client = create_app(history, host="0.0.0.0", clock=FixedClock(TODAY)).test_client()
    page = client.get("/month/2026-03", headers={"Host": "box.lan:5008"}).get_data(as_text=True)
    assert 'class="warning"' in page and "beyond this machine" in page


def test_an_upload_over_the_limit_is_refused_with_the_limit(home: Path) -> None:
    """With max_upload_mb = 1, a 2 MB upload gets 413 and a message naming the limit and setting."""
    (home / "tapestry.toml").write_text((home / "tapestry.toml").read_text() + "[web]\nmax_upload_mb = 1\n")
    app = create_app(reload_settings(home), clock=FixedClock(TODAY))
    response = app.test_client().post("/api/upload?name=big.json", data=b"x" * (2 << 20),
                                      headers={"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)},
                                      content_type="application/octet-stream")
    assert response.status_code == 413
    assert "1 MB" in response.get_json()["error"]
    assert not any((home / "cache").rglob("*.json"))


def test_an_upload_of_another_kind_of_file_is_refused(app: Flask, client: FlaskClient) -> None:
    """Only .json, .jsonl and .zip are taken."""
    response = client.post("/api/upload?name=notes.exe", data=b"MZ",
                           headers={"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)},
                           content_type="application/octet-stream")
    assert response.status_code == 400 and ".zip" in response.get_json()["error"]


def test_unknown_parser_or_agent_is_refused(app: Flask, client: FlaskClient) -> None:
    """The agent and parser must be ones the service knows."""
    headers = {"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)}
    assert client.post("/api/upload?name=a.json&parser=word", data=b"{}", headers=headers).status_code == 400
    assert client.post("/api/upload?name=a.json&agent=../../x", data=b"{}", headers=headers).status_code == 400


def test_upload_names_never_come_from_the_browser() -> None:
    """Only the suffix of the browser's name survives; the rest is generated."""
    now = datetime(2026, 3, 21, 12, 0, tzinfo=timezone.utc)
    name = upload_name("../../etc/passwd.JSONL", now)
    assert name.startswith("upload-20260321T120000-") and name.endswith(".jsonl") and "/" not in name
    assert upload_name("a.json", now) != upload_name("a.json", now)
    with pytest.raises(TapestryError):
        upload_name("../../.bashrc", now)


def test_staging_stops_at_the_limit_and_leaves_nothing(tmp_path: Path) -> None:
    """A stream longer than the limit is cut off and its partial file removed."""
    with pytest.raises(UploadTooLarge):
        stage_upload(io.BytesIO(b"x" * 3000), tmp_path, "upload-1.json", "a.json", limit=2000)
    assert not any(tmp_path.iterdir())
    staged = stage_upload(io.BytesIO(b"{}"), tmp_path, "upload-2.json", "dir/a.json", limit=2000)
    assert staged.size == 2 and staged.original == "a.json" and staged.path == tmp_path / "upload-2.json"
