"""The calendar's pages through Flask's test client, over a history stored in the real log."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tapestryd.clock import FixedClock
from tapestryd.config import Settings
from tapestryd.web import create_app

from calendar_history import TODAY


def text_of(response: object) -> str:
    return response.get_data(as_text=True)  # type: ignore[attr-defined, no-any-return]


def test_root_redirects_to_the_current_local_month(client: FlaskClient) -> None:
    """Opening the calendar lands on today's month (2026-03 with the fixed clock)."""
    response = client.get("/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/month/2026-03")


def test_month_shows_a_pill_per_agent_with_daily_titles(client: FlaskClient) -> None:
    """A summarized day shows each agent's daily title as a pill of that agent's colour class."""
    page = text_of(client.get("/month/2026-03"))
    assert "March 2026" in page
    day = page.split('data-date="2026-03-04"')[1].split("</td>")[0]
    assert re.search(r'class="pill ag-\d+" data-agent="chatgpt"', day)
    assert "Garden planning day" in day and "SQLite lock debugging" in day


def test_a_day_before_its_summary_shows_activity(client: FlaskClient) -> None:
    """2026-03-20 has two messages but no daily summary yet: an open pill with the message count."""
    day = text_of(client.get("/month/2026-03")).split('data-date="2026-03-20"')[1].split("</td>")[0]
    assert 'class="pill ag-0 open"' in day or 'open" data-agent="chatgpt"' in day
    assert "2 msg" in day


def test_week_month_and_year_titles_are_shown(client: FlaskClient) -> None:
    """Week rows carry their weekly titles; the month and year headers carry theirs."""
    page = text_of(client.get("/month/2026-03"))
    assert "Week of garden plans" in page
    assert "March in the garden" in page and "2026: growing food" in page


def test_arrows_move_between_months_and_the_picker_opens_a_day(client: FlaskClient) -> None:
    """Previous/next links name the neighbouring months, across a year boundary too."""
    page = text_of(client.get("/month/2026-01"))
    assert 'href="/month/2025-12"' in page and 'href="/month/2026-02"' in page
    response = client.get("/go?date=2026-03-04")
    assert response.headers["Location"].endswith("/month/2026-03?day=2026-03-04")


def test_bad_month_and_day_are_refused_clearly(client: FlaskClient) -> None:
    """A malformed month is a 404 and a malformed day a 400, not a traceback."""
    assert client.get("/month/2026-13").status_code == 404
    assert client.get("/month/2026-03?day=yesterday").status_code == 400


def test_months_and_days_outside_the_supported_dates_are_404_not_500(client: FlaskClient) -> None:
    """Year 9999 (and days before 1970) are refused with the supported range named."""
    for path in ("/month/9999-12", "/month/0001-01", "/day/9999-12-31", "/month/2026-03?day=0001-01-01"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "1970-01-01 to 2999-12-31" in text_of(response)
    assert client.get("/month/2999-12").status_code == 200


def test_day_panel_shows_daily_summary_and_segments(client: FlaskClient) -> None:
    """The panel of 2026-03-04: daily summary, each segment's summary, time range and message count."""
    page = text_of(client.get("/month/2026-03?day=2026-03-04"))
    panel = page.split('id="day-panel"')[1]
    assert "Garden planning day" in panel and "I planned the <strong>garlic</strong> bed." in panel
    assert "I asked how deep to plant garlic: 5 cm." in panel
    assert "10:00–10:30" in panel and "2 messages" in panel
    assert "/conversation?key=chatgpt%3Agarden&amp;day=2026-03-04" in panel


def test_raw_conversation_day_lists_messages_in_order_with_roles(client: FlaskClient) -> None:
    """Only the day's messages, in time order, with local timestamps and roles."""
    page = text_of(client.get("/conversation?key=claude-code:s1&day=2026-03-04"))
    assert page.index("The sqlite lock test fails again") < page.index("WAL mode fixes the lock.")
    assert "Next day: the lock is back" not in page
    assert "2026-03-04 14:00:00" in page and ">user<" in page and ">assistant<" in page


def test_conversation_html_is_escaped_never_executed(client: FlaskClient) -> None:
    """Script tags, event handlers and javascript: links from a conversation arrive as text."""
    page = text_of(client.get("/conversation?key=chatgpt:garden&day=2026-03-04"))
    assert "<script>window.__pwned" not in page and "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    assert 'onerror="window' not in page
    assert 'href="javascript:' not in page
    assert "<strong>garlic</strong>" in page


def test_private_spans_never_reach_a_page(client: FlaskClient) -> None:
    """Text inside <private> tags is stripped by the privacy filter before rendering."""
    page = text_of(client.get("/conversation?key=chatgpt:tomato&day=2026-03-20"))
    assert "More light?" in page and "4711" not in page and "door code" not in page


def test_node_view_links_up_to_parent_and_down_to_sources(client: FlaskClient) -> None:
    """A daily links up to its week and down to its segment; a segment down to its raw messages."""
    daily = text_of(client.get("/node?key=L1:chatgpt:2026-03-04"))
    assert 'id="node-up" href="/node?key=L2%3Achatgpt%3A2026-03-02w"' in daily
    assert "/node?key=L0%3Achatgpt%3A2026-03-04%3Achatgpt%3Agarden" in daily
    assert "&lt;script&gt;" in daily and "<script>window" not in daily
    segment = text_of(client.get("/node?key=L0:chatgpt:2026-03-04:chatgpt:garden"))
    assert 'id="node-raw" href="/conversation?key=chatgpt%3Agarden&amp;day=2026-03-04"' in segment
    assert client.get("/node?key=L1:chatgpt:1999-01-01").status_code == 404


def test_agent_filter_hides_other_agents_everywhere(client: FlaskClient) -> None:
    """With only chatgpt shown, no claude-code pill or panel remains, and links keep the filter."""
    page = text_of(client.get("/month/2026-03?filtered=1&agent=chatgpt&day=2026-03-04"))
    content = page.split('<main class="content">')[1]
    assert 'data-agent="claude-code"' not in content and "SQLite lock debugging" not in content
    assert "Garden planning day" in page
    assert 'href="/month/2026-04?filtered=1&amp;agent=chatgpt"' in page


def test_search_links_to_the_day_and_the_message(client: FlaskClient) -> None:
    """A hit links to its day in the calendar and to the message inside its conversation-day."""
    page = text_of(client.get("/search?q=garlic"))
    assert 'class="hit-day" href="/month/2026-03?day=2026-03-04"' in page
    assert re.search(r'/conversation\?key=chatgpt%3Agarden&amp;day=2026-03-04#m\d+', page)


def test_search_reads_time_phrases_and_says_how(client: FlaskClient) -> None:
    """"this month" narrows to March 2026 (today is 2026-03-21) and is echoed; "yesterday" drops the 4th."""
    page = text_of(client.get("/search?q=garlic this month"))
    assert 'id="search-interpreted"' in page and "this month" in page.split('id="search-interpreted"')[1][:200]
    assert "/conversation?key=chatgpt%3Agarden" in page
    assert "/conversation?key=chatgpt%3Agarden" not in text_of(client.get("/search?q=garlic yesterday"))


def test_a_search_of_only_punctuation_says_so_without_naming_a_cli_flag(client: FlaskClient) -> None:
    """The page has no --regex: the search operation's usage error would name it."""
    page = text_of(client.get("/search?q=%3F%21"))
    assert 'role="alert"' in page and "nothing to search for in &#39;?!&#39;" in page and "--regex" not in page


def test_summary_hits_link_to_their_node(client: FlaskClient) -> None:
    """A hit in a summary opens that node's readable view."""
    assert "/node?key=L1%3Achatgpt%3A2026-03-04" in text_of(client.get("/search?q=planned garlic bed"))


def test_status_reports_daemon_lag_nodes_and_last_import(client: FlaskClient) -> None:
    """Standalone: the daemon is down, the projector has caught up, node states are counted."""
    status = client.get("/api/status").get_json()
    assert status["daemon"]["running"] is False
    assert set(status["lag"].values()) == {0}
    assert sum(status["nodes"].values()) > 0
    assert status["last_import"] is None


def test_empty_home_renders_an_invitation_to_import(settings: Settings) -> None:
    """Before anything is stored the month renders and says how to import."""
    client = create_app(settings, clock=FixedClock(TODAY)).test_client()
    page = text_of(client.get("/month/2026-03"))
    assert "Nothing is stored yet" in page
    assert client.get("/api/status").get_json()["last_seq"] == 0


def test_every_response_carries_a_strict_content_security_policy(client: FlaskClient) -> None:
    """No inline script can run even if escaping ever failed."""
    policy = client.get("/month/2026-03").headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def test_agent_colours_are_stored_in_the_config_file(app: Flask, client: FlaskClient, history: Settings) -> None:
    """The colour picker writes [agents.NAME] color to tapestry.toml and the stylesheet follows."""
    from calendar_history import csrf_of

    response = client.post("/api/agents/color", json={"agent": "chatgpt", "color": "#12ABEF"},
                           headers={"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)})
    assert response.status_code == 200
    assert 'color = "#12abef"' in history.config_file.read_text()
    assert "--agent: #12abef" in text_of(client.get("/agents.css"))
    bad = client.post("/api/agents/color", json={"agent": "chatgpt", "color": "red; x"},
                      headers={"Origin": "http://localhost", "X-CSRF-Token": csrf_of(app)})
    assert bad.status_code == 400 and "#rrggbb" in bad.get_json()["error"]


def test_search_highlights_matches_instead_of_printing_brackets(client: FlaskClient) -> None:
    """The snippet's marked words are <mark>ed; a bracket that is the text's own stays, and nothing is unescaped."""
    page = text_of(client.get("/search?q=garlic"))
    snippets = re.findall(r'<p class="snippet">(.*?)</p>', page, re.S)
    assert snippets and all("[garlic]" not in s.lower() for s in snippets)
    assert any("<mark>garlic</mark>" in s for s in snippets)
    assert "<script>" not in "".join(snippets) and "&lt;script&gt;" in "".join(snippets)


def test_the_calendar_serves_a_favicon(client: FlaskClient) -> None:
    """Browsers ask /favicon.ico; every page links the same icon."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
    assert icon.get_data(as_text=True).startswith("<svg")
    link = re.search(r'<link rel="icon" href="([^"]+)"', text_of(client.get("/month/2026-03")))
    assert link and client.get(link.group(1)).status_code == 200


def test_only_the_query_s_words_are_marked() -> None:
    """A bracketed word of the text itself ([1], a link label) is left alone; HTML in the snippet stays escaped."""
    from tapestryd.web.render import highlight

    shown = highlight("See [1] and [Garlic] <b>[planting]</b> [click](x)", "planted garlic")
    assert str(shown) == ("See [1] and <mark>Garlic</mark> &lt;b&gt;<mark>planting</mark>&lt;/b&gt; [click](x)")
