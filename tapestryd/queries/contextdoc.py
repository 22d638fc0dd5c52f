"""The context answer: gathered items rendered as text or markdown, fitted to a budget.

``context_answer`` is what the ``context`` operation returns: the items (level, period,
agent, key, title, text, state), the "where we are now" block, the tokens used and what
the budget cut, and (for text and markdown) the rendered document itself, so a client
prints it without rendering code of its own. The budget's accounting ("300 of 2400
tokens; …") is a separate ``budget_note``, never part of the document: the document is
what a model reads (the Claude Code hook, the MCP server), the note is for the person.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from tapestryd.errors import TapestryError
from tapestryd.queries.budget import RAW_RANK, Piece, fit_budget
from tapestryd.queries.context import LEVEL_RANK, ContextItem, ContextScope, gather_context
from tapestryd.queries.nowblock import first_sentence, where_we_are
from tapestryd.queries.reader import Reader
from tapestryd.queries.tokens import estimate_tokens, shorten

__all__ = ["FORMATS", "ContextRequest", "context_answer"]

FORMATS = ("text", "markdown", "json")
_SHORT_MESSAGE = 160  # characters a shortened raw message keeps


@dataclass(frozen=True)
class ContextRequest:
    """What to build: anchor day, agent, project path, budget (tokens), format, raw count.

    ``now_only`` asks for the "where we are now" block alone; ``exclude_session`` leaves
    one Claude Code session out of that block; ``machine`` keeps the messages one machine
    captured (raw messages and the block; summaries cover every machine).
    """

    anchor: date | None = None
    agent: str = ""
    project: str = ""
    max_tokens: int | None = None
    fmt: str = "text"
    recent: int = 30
    now_only: bool = False
    exclude_session: str = ""
    machine: str = ""


def context_answer(reader: Reader, request: ContextRequest, *, now: datetime) -> dict[str, Any]:
    """The context for ``request`` at instant ``now`` (aware), as a JSON-ready dict.

    Keys: anchor, timezone, agent, machine, project, notes, items (each with its text in the json
    format only), now, tokens ({used, max, cut}), budget_note (one line such as "300 of 2400
    tokens; 1 shortened, 0 dropped"; '' without a budget) and rendered (text or markdown,
    ending with a newline; '' for json). Raises TapestryError for an unknown format or a budget smaller than the header
    and the short block need.
    """
    if request.fmt not in FORMATS:
        raise TapestryError(f"unknown context format {request.fmt!r}; use one of {', '.join(FORMATS)}")
    scope, items = gather_context(reader, now=now, anchor=request.anchor, agent=request.agent,
                                  project=request.project, recent=request.recent, items=not request.now_only,
                                  machine=request.machine)
    block = where_we_are(reader, scope, exclude_session=request.exclude_session)
    markdown = request.fmt != "text"
    several = len({item.origin for item in items if item.kind == "message"}) > 1
    pieces = [_piece(item, markdown, several) for item in items]
    head = "" if request.now_only else _header(scope, reader.settings.timezone, markdown)
    tail = _now_section(block, markdown, request.now_only)
    raw_head = _raw_heading(scope.anchor, items, markdown)
    fixed = sum(estimate_tokens(t) for t in (head, raw_head, tail))
    if request.max_tokens is not None and fixed > request.max_tokens:
        raise TapestryError(f"--max-tokens {request.max_tokens} is too small: the header and the "
                            f"'where we are now' block alone take {fixed} tokens")
    used, cuts = fit_budget(pieces, max_tokens=request.max_tokens, fixed_tokens=fixed)
    rendered = head + _body(pieces, raw_head) + tail
    return {
        "anchor": scope.anchor.isoformat(), "timezone": reader.settings.timezone, "agent": scope.agent,
        "machine": scope.machine, "project": scope.project, "notes": scope.notes, "now": block,
        "items": [_item_dict(item, piece, with_text=request.fmt == "json") for item, piece in zip(items, pieces)
                  if piece.state != "dropped"],
        "tokens": {"used": used, "max": request.max_tokens, "cut": cuts},
        "budget_note": _budget_note(used, request.max_tokens, cuts) if request.max_tokens else "",
        "rendered": rendered if request.fmt != "json" else "",
    }


def _piece(item: ContextItem, markdown: bool, origins: bool) -> Piece:
    """The item as a budgeted piece; ``origins``: messages name their machine (they come from several)."""
    rank = LEVEL_RANK[item.level]
    return Piece(item.key, item.level, item.period, _render(item, item.text, markdown, origins),
                 _render(item, _short_text(item), markdown, origins), rank, item.start)


def _short_text(item: ContextItem) -> str:
    if item.kind == "message":
        return shorten(" ".join(item.text[: 4 * _SHORT_MESSAGE].split()), _SHORT_MESSAGE)
    return first_sentence(item.text) if item.text else ""


def _render(item: ContextItem, text: str, markdown: bool, origins: bool) -> str:
    if item.kind == "message":
        who = f"{item.agent}@{item.origin}" if origins and item.origin else item.agent
        return (f"- **{item.period}** {who} · {item.role}: {text}\n" if markdown
                else f"{item.period} {who} {item.role}: {text}\n")
    title = item.title + (" (not summarized yet)" if item.kind == "pending" else "")
    label = f"{item.level} {item.period} · {item.agent}"
    if markdown:
        return f"### {label} — {title}\n\n{text}\n\n" if text else f"### {label} — {title}\n\n"
    return f"[{label}] {title}\n{text}\n\n" if text else f"[{label}] {title}\n\n"


def _header(scope: ContextScope, timezone: str, markdown: bool) -> str:
    where = "".join(f", {k} {v}" for k, v in (("agent", scope.agent), ("machine", scope.machine),
                                              ("project", scope.project)) if v)
    notes = "".join(f"({note})\n" for note in scope.notes)
    title = f"Memory context for {scope.anchor:%a %d %b %Y} ({timezone}{where})"
    return f"# {title}\n\n{notes}" if markdown else f"{title}\n{notes}\n"


def _raw_heading(anchor: date, items: list[ContextItem], markdown: bool) -> str:
    count = sum(1 for i in items if i.level == "raw")
    if not count:
        return ""
    label = f"{anchor.isoformat()}: the {count} most recent messages"
    return f"## Today, {label}\n\n" if markdown else f"[today {label}]\n"


def _now_section(block: str, markdown: bool, alone: bool) -> str:
    if alone:
        return block + "\n"
    return f"\n## Where we are now\n\n{block}\n" if markdown else f"\n[now]\n{block}\n"


def _body(pieces: list[Piece], raw_head: str) -> str:
    summaries = "".join(p.text() for p in pieces if p.rank < RAW_RANK)
    raw = "".join(p.text() for p in pieces if p.rank >= RAW_RANK)
    return summaries + (raw_head + raw if raw_head else "")


def _budget_note(used: int, budget: int | None, cuts: list[dict[str, Any]]) -> str:
    shortened = sum(1 for c in cuts if c["action"] == "shortened")
    return f"{used} of {budget} tokens; {shortened} shortened, {len(cuts) - shortened} dropped"


def _item_dict(item: ContextItem, piece: Piece, *, with_text: bool) -> dict[str, Any]:
    """An item's labels, state and tokens; its text too for the json format (the others carry it rendered)."""
    entry = {"level": item.level, "period": item.period, "agent": item.agent, "key": item.key, "title": item.title,
             "kind": item.kind, "role": item.role, "origin": item.origin, "start": item.start,
             "state": piece.state, "tokens": piece.tokens()}
    if with_text:
        entry["text"] = item.text if piece.state == "full" else _short_text(item)
    return entry
