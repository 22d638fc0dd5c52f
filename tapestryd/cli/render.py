"""Plain-text renderings of query results for the terminal."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from tapestryd.plural import counted

if TYPE_CHECKING:  # the fast path imports this module: the results are named for mypy only
    from tapestryd.operations.results import ConversationsResult, IngestResult, ShowResult, StatsResult

__all__ = ["ECHO_CHARS", "ERROR_ECHO_CHARS", "cut_echo", "cut_quoted", "render_conversation", "render_conversations",
           "render_hits", "render_receipt", "render_stats"]


_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (but newline and tab) and bidirectional
    overrides shown as escapes (``\\x1b``, ``\\u202e``), so a stored message can never move the
    cursor, recolour the screen or reorder what is shown around it."""
    return _UNSAFE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                       text)


ECHO_CHARS = 80
ERROR_ECHO_CHARS = 200  # longer than any path a person types, shorter than a pasted paragraph


def cut_echo(text: str, chars: int = ECHO_CHARS) -> str:
    """``text`` as echoed back to a person: at most ``chars`` characters, cut with '…'."""
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


_QUOTED = re.compile(r"'[^'\n]{%d,}'|\"[^\"\n]{%d,}\"" % (ERROR_ECHO_CHARS + 1, ERROR_ECHO_CHARS + 1))


def cut_quoted(message: str) -> str:
    """An error ``message`` with each quoted value longer than :data:`ERROR_ECHO_CHARS` cut with '…' (a
    paragraph pasted as a date or an agent), so the line stays readable and its hint stays in view."""
    return _QUOTED.sub(lambda m: m.group()[0] + cut_echo(m.group()[1:-1], ERROR_ECHO_CHARS) + m.group()[0], message)


def render_hits(result: dict[str, Any]) -> str:
    """Search hits: how a time phrase was read, then local time, agent@machine, role or level, title, snippet.

    ``result`` is the search (or similar) answer's JSON, as the socket sends it: the fast path
    prints it without building the typed result (so it never imports dataclasses).
    """
    hits = result.get("hits", [])
    span = result.get("time")
    head = [f"reading {cut_echo(span['phrase'])!r} as {span['label']}"] if span else []
    if result.get("conversation"):  # a short --conversation, resolved
        head.append(f"in conversation {result['conversation']}")
    if not hits:
        return "\n".join(head + [f"no matches for {cut_echo(str(result.get('query', '')))!r}"])
    blocks = []
    outside = [bool(h.get("extra", {}).get("outside_range")) for h in hits]
    inside = outside.count(False)
    behind = all(outside[inside:])  # other times only follow the range's matches
    if span and not behind:
        blocks.append(f"── {inside} matches in {span['phrase']!r}; strong matches from other times rank among "
                      "them, marked (outside the range) ──")
    for n, h in enumerate(hits):
        if span and behind and n == inside and inside < len(hits):
            blocks.append(f"── {n} matches in {span['phrase']!r}; matches from other times follow ──")
        who = h["role"] if h.get("kind", "message") == "message" else h.get("level", "summary")
        near = ("  (next to a match)" if h.get("extra", {}).get("next_to_match") else
                "  (its conversation's title matches)" if h.get("extra", {}).get("title_match") else
                "  (similar in meaning)" if h.get("extra", {}).get("meaning_match") else "")
        if outside[n] and not behind:
            near += "  (outside the range)"
        if h.get("extra", {}).get("quoted_by"):
            near += f"  (quoted by {', '.join(h['extra']['quoted_by'])})"
        name = h.get("title") or h["conversation"] or h.get("key", "")
        agent = f"{h['agent']}@{h['origin']}" if h.get("origin") else h["agent"]
        head_line = f"{h['local_time']}  {agent}  {who}  {name}{near}"
        where = h.get("key") or h["conversation"]
        blocks.append(f"{head_line}\n  {where}\n  {' '.join(str(h['snippet']).split())}")
    if result.get("conversations"):
        blocks.append(_ranked_conversations(result["conversations"]))
    return "\n\n".join(["\n".join(head)] + blocks if head else blocks)


def _ranked_conversations(rows: list[dict[str, Any]]) -> str:
    """Hybrid search's conversation ranking: title, key, candidates found, outside-range mark."""
    lines = ["conversations, best first:"]
    for n, r in enumerate(rows, start=1):
        outside = "  (outside the range)" if r.get("outside_range") else ""
        lines.append(f"{n:>3}. {r.get('title') or '(untitled)'}  [{r['conversation']}]  {r['hits']} hits{outside}")
    return "\n".join(lines)


def render_conversations(result: ConversationsResult) -> str:
    """One line per conversation: last activity, agent, message count, title and key."""
    if not result.conversations:
        return "no conversations"
    return "\n".join(
        f"{(r.last_ts or '')[:16]}  {r.agent:<12} {r.message_count:>5}  "
        f"{r.title or '(untitled)'}  [{r.key}]"
        for r in result.conversations
    )


def render_conversation(conv: ShowResult) -> str:
    """A whole conversation: header, then each message with local time and role."""
    lines = [f"# {conv.title or '(untitled)'}", f"{conv.key}  ({conv.agent}, "
             f"{counted(conv.message_count, 'message')})"]
    if conv.cwd:
        lines.append(f"cwd: {conv.cwd}  branch: {conv.git_branch or '-'}")
    for m in conv.messages:
        marker = " (subagent)" if m.sidechain else ""
        lines.append(f"\n── {m.local_time}  {m.role}{marker}\n{m.text}")
    return "\n".join(lines)


def render_stats(data: StatsResult) -> str:
    """Totals, then one line per agent and the role counts."""
    lines = [f"{counted(data.conversations, 'conversation')}, {counted(data.messages, 'message')}"]
    for name, a in sorted(data.agents.items()):
        lines.append(f"  {name:<12} {a.conversations:>6} conversations {a.messages:>8} messages"
                     f"  {(a.first or '')[:10]} → {(a.last or '')[:10]}")
    if data.roles:
        lines.append("  roles: " + ", ".join(f"{k} {v}" for k, v in sorted(data.roles.items())))
    return "\n".join(lines)


def render_receipt(receipt: IngestResult) -> str:
    """The import receipt: per file counts, skipped reasons and errors, then totals."""
    lines: list[str] = []
    for f in receipt.files:
        if not f.parser:  # never read (missing, unreadable, not an export): its errors say it all
            lines.extend(f"error: {e}" for e in f.errors)
            continue
        conv, msg = f.conversations, f.messages
        lines.append(f"{f.path}  [{f.parser or '?'} → {f.agent or '?'}]")
        lines.append(f"  conversations: {conv.new} new, {conv.updated} updated, "
                     f"{conv.known} already known")
        lines.append(f"  messages:      {msg.new} new, {msg.known} already known")
        if f.skipped:
            lines.append("  skipped:       " + ", ".join(f"{k} {v}" for k, v in sorted(f.skipped.items())))
        lines.extend(f"  error: {e}" for e in f.errors)
    t = receipt.totals
    lines.extend(_passed_over(receipt))
    lines.append(f"total: {counted(t.messages_new, 'new message')}, {t.messages_known} already known, "
                 f"{counted(t.errors, 'error')} in {counted(t.files, 'file')}")
    return "\n".join(lines)


def _passed_over(receipt: IngestResult) -> list[str]:
    """A line for the files of a folder or ZIP that were not imported at all (totals minus the files' own skips)."""
    reasons = dict(receipt.totals.skipped)
    for f in receipt.files:
        for reason, n in f.skipped.items():
            reasons[reason] = reasons.get(reason, 0) - n
    reasons = {k: v for k, v in reasons.items() if v > 0}
    if not reasons:
        return []
    listed = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    return [f"passed over {counted(sum(reasons.values()), 'file')} ({listed})"]
