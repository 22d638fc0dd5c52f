"""Every file of ../shared/corpus imports with the message counts counted by hand.

How the counts were made: each file was read line by line (Claude Code) or node by node
(ChatGPT, Claude.ai); a message counts when it carries user-visible text after the
documented skips (tool calls and results, thinking, meta lines, hidden or empty system
nodes, nodes off the visible branch). Streamed parts sharing a message id count once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.projections import Projector

# file → (parser, messages, errors, conversations)
EXPECTED: dict[str, tuple[str, int, int, int]] = {
    # 3 lines without "type", only usage and cost: 0 messages, 3 skipped as untyped.
    "claude-code/ccusage-usage-only.jsonl": ("claude-code", 0, 0, 0),
    # lines 1-8 user/assistant text (both branches of the rewind are kept), 9 system
    # compact_boundary and 10 isCompactSummary skipped, 11-12 text: 10.
    "claude-code/daaain-dag_compact_after_rewind.jsonl": ("claude-code", 10, 0, 1),
    # text on lines 1, 2, 3, 6, 9, 12 = 6; lines 4, 5, 17 tool only; 7 (a slash command's
    # envelopes) and 8 (a local command's stdout) are not turns; errors: 10 (contenst),
    # 11 (message a string), 13 (string), 14 (no type), 15 (int), 16 (list), 18 (content
    # block a string) = 7; line 19 is the summary (title).
    "claude-code/daaain-edge_cases.jsonl": ("claude-code", 6, 7, 1),
    # text on lines 1, 2, 3, 6, 7, 10, 11 = 7; 4 and 8 tool_use, 5 and 9 tool_result.
    "claude-code/daaain-representative_messages.jsonl": ("claude-code", 7, 0, 1),
    # three text lines.
    "claude-code/daaain-session_b.jsonl": ("claude-code", 3, 0, 1),
    # text on lines 3 (msg_017zj, its tool_use line 4 joins it) and 6 = 2; 1, 2, 5 tools.
    "claude-code/daaain-sidechain_integrated-v2.0.46.jsonl": ("claude-code", 2, 0, 1),
    # string content on lines 1 and 8, text on 2, 5, 9 = 5; the rest TodoWrite traffic.
    "claude-code/daaain-todowrite_examples.jsonl": ("claude-code", 5, 0, 1),
    # two string-content lines; the summary record titles the session.
    "claude-code/polylogue-lineage-acompact.jsonl": ("claude-code", 2, 0, 1),
    # main: lines 1, 2, 9, 13 (13 has no uuid) = 4; other session: 5 and 12 = 2;
    # line 4 is the /status command's envelope (not a turn); line 6 repeats uuid main-u1
    # and is the same event (not stored twice); 7 isMeta, 8 an interrupt marker, 3 and 10
    # tool results, 11 queue-operation: 6 in 2 sessions.
    "claude-code/polylogue-normalization-main.jsonl": ("claude-code", 6, 0, 2),
    # two sidechain lines of the parent session.
    "claude-code/polylogue-subagent-acompact.jsonl": ("claude-code", 2, 0, 1),
    # lines 2, 3 (text + tool_use), 7, 8 = 4; 4-6 tool traffic; line 1 the title.
    "claude-code/simonw-sample_session.jsonl": ("claude-code", 4, 0, 1),
    # branch: hidden system, hidden profile, hidden system, user, empty assistant,
    # hidden system, assistant = 2.
    "chatgpt/echomine-001_simple_text.json": ("chatgpt", 2, 0, 1),
    # user (image + text), empty assistant skipped, assistant, user, assistant = 4.
    "chatgpt/echomine-002_with_images.json": ("chatgpt", 4, 0, 1),
    # user, empty, code to web (tool call), hidden tool, assistant, user, assistant,
    # user, assistant = 6.
    "chatgpt/echomine-003_with_code.json": ("chatgpt", 6, 0, 1),
    # 15 nodes: text, multimodal, code, execution_output, app_pairing, system_error,
    # brand_new_type, python code = 8; thoughts, recap, user_editable_context, image
    # pointer, image without text, and the scraped pages (tether_quote, tether_browsing)
    # are skipped.
    "chatgpt/echomine-openai_content_types.json": ("chatgpt", 8, 0, 1),
    # hidden system skipped; "Hello" and the visible system message = 2.
    "chatgpt/echomine-openai_hidden.json": ("chatgpt", 2, 0, 1),
    # single, three parts, mixed parts; the empty-parts assistant is skipped = 3.
    "chatgpt/echomine-openai_multipart.json": ("chatgpt", 3, 0, 1),
    # empty system skipped; user and assistant = 2.
    "chatgpt/pionxzh-readme-2023.json": ("chatgpt", 2, 0, 1),
    # visible branch: context (skipped), user, thoughts (skipped), tool call to
    # browser.search (skipped), tool result, recap (skipped), answer = 3; the inactive
    # answer is off the branch.
    "chatgpt/polylogue-native-branching-2026.json": ("chatgpt", 3, 0, 1),
    # 6 messages; "msg-empty-filename" has only a file and no text: kept as a
    # "[file: (unnamed)]" placeholder = 6.
    "claude-ai/echomine-attachments.json": ("claude", 6, 0, 1),
    # conversations 1, 3, 4, 6 hold 1 + 1 + 2 + 1 = 5; conversation 2 has no uuid and
    # a message of conversation 4 has no uuid or sender (2 errors); 5 is empty.
    "claude-ai/echomine-malformed_export.json": ("claude", 5, 2, 4),
    # 2 + 4 + 2 + 2 + 2 = 12 across 5 conversations.
    "claude-ai/echomine-sample_export.json": ("claude", 12, 0, 5),
    # thinking + text = 1; thinking-only and token_budget-only messages are skipped.
    "claude-ai/echomine-thinking.json": ("claude", 1, 0, 1),
    # text-bearing messages 4 + 2 + 3 + 4 = 13; tool-result-only and tool-use-only
    # messages are skipped.
    "claude-ai/echomine-tool_messages.json": ("claude", 13, 0, 4),
    # one voice note transcript.
    "claude-ai/echomine-voice_note.json": ("claude", 1, 0, 1),
    # 4 messages of a single conversation object.
    "claude-ai/osteele-bakery-single-conversation-2024.json": ("claude", 4, 0, 1),
    # 10 messages: 1-6 and 10 have text (content, or the text field when content is
    # null, empty or holds only a null text); 7 unknown block and 9 tool_use skipped;
    # 8 has text 12345 (an error) = 7.
    "claude-ai/osteele-conversation-with-errors.json": ("claude", 7, 1, 1),
    # 20 messages in one conversation.
    "claude-ai/simonw-artifacts-2024.json": ("claude", 20, 0, 1),
    # 2 messages with only the text field.
    "claude-ai/simonw-example-2024.json": ("claude", 2, 0, 1),
}


def corpus_files(corpus: Path) -> list[str]:
    return sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def test_the_table_names_every_corpus_file(corpus: Path) -> None:
    """A file added to the corpus must be counted by hand here too."""
    assert corpus_files(corpus) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file_imports_with_counted_messages(name: str, corpus: Path, store: EventStore,
                                                   settings: Settings) -> None:
    """Detection, message count, error count and conversation count match the hand count."""
    parser, messages, errors, conversations = EXPECTED[name]
    receipt = ingest(store, settings, corpus / name)
    entry = receipt["files"][0]
    assert (entry["parser"], entry["messages"]["new"], receipt["totals"]["errors"]) == (parser, messages, errors)
    assert entry["conversations"]["new"] == conversations
    assert not receipt["failed"]


def test_whole_corpus_projects_every_message(corpus: Path, store: EventStore, settings: Settings,
                                             projector: Projector) -> None:
    """A folder import lands every counted message in the projection; SOURCES.md is passed over."""
    receipt = ingest(store, settings, corpus)
    projector.catch_up()
    total = sum(v[1] for v in EXPECTED.values())
    assert receipt["totals"]["messages_new"] == total == 148
    assert receipt["totals"]["skipped"]["not-an-export"] == 1
    assert rows(projector.conn, "SELECT COUNT(*) FROM messages") == [(total,)]
    agents = dict(rows(projector.conn, "SELECT agent, COUNT(*) FROM messages GROUP BY agent"))
    assert agents == {"claude-code": 47, "chatgpt": 30, "claude-ai": 71}


def test_importing_the_corpus_twice_adds_zero_events(corpus: Path, store: EventStore, settings: Settings) -> None:
    """The second import finds everything known and writes nothing, not even a receipt."""
    ingest(store, settings, corpus)
    before = store.count()
    again = ingest(store, settings, corpus)
    assert store.count() == before
    assert again["totals"]["messages_new"] == 0 and again["totals"]["messages_known"] == 148
    assert again["totals"]["conversations_new"] == 0
