"""The MCP tools: search, timeline, get_messages, context and similar, each a thin front end
of one operation.

Each tool validates its typed arguments (pydantic, through the SDK: a bad argument is a
tool error naming it), builds the typed request of one operation of the table
(:mod:`tapestryd.operations.requests`, so every field it sets is one the table knows), asks
it through ``caller`` (the daemon's socket when it runs, else the database read-only:
:func:`tapestryd.operations.dispatch.call`), and returns a compact, bounded answer:
``limit`` hits, or entries under ``max_tokens``, each conversation title cut to
:data:`TITLE_CHARS` characters (an export's own title is stored whole). The docstring of each tool is its
description, written for the AI that reads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from tapestryd.errors import TapestryError
from tapestryd.mcp.budget import fit_entries
from tapestryd.operations.requests import (
    ContextRequest,
    MessagesRequest,
    RecallRequest,
    SearchRequest,
    ShowRequest,
    SimilarRequest,
)
from tapestryd.operations.result_parts import (Conversation, ConversationDay, Hit, Message, RangeConversation,
                                               SummaryNode)
from tapestryd.operations.results import (ContextResult, MessagesResult, RecallResult, SearchResult, ShowResult,
                                          SimilarResult)
from tapestryd.queries.substring import has_terms
from tapestryd.queries.tokens import estimate_tokens, shorten

__all__ = ["TITLE_CHARS", "Caller", "Tools"]

TITLE_CHARS = 200

Caller = Callable[[Any], Any]
"""Runs one operation: ``caller(request)`` returns its typed result or raises TapestryError."""

Role = Literal["user", "assistant", "system", "tool"]
MessageId = Annotated[int, Field(ge=1, le=2 ** 63 - 1)]
"""A message id as search hits give it: a positive SQLite integer (a larger one was an OverflowError)."""
Level = Literal["all", "messages", "summaries", "L0", "L1", "L2", "L3", "L4"]

_AGENT = Field(max_length=200, description="Only this agent's conversations, e.g. 'claude-code', 'chatgpt', "
                                           "'claude-ai'.")
_PROJECT = Field(max_length=4096, description=(
    "A directory path: only Claude Code sessions whose working directory is inside it (usually the current "
    "project's root; a relative path is read from this server's working directory)."))


class Tools:
    """The tools over one ``caller``; each public method is registered as an MCP tool."""

    def __init__(self, caller: Caller) -> None:
        self._call = caller

    def ask(self, request: Any) -> Any:
        """Run ``request``; a TapestryError (a bad date, an unknown agent, …) becomes a tool error."""
        try:
            return self._call(request)
        except TapestryError as exc:
            raise ToolError(exc.message) from exc

    def search(self,
               query: Annotated[str, Field(min_length=1, max_length=1000, description=(
                   "Words to find. May include a time phrase such as 'yesterday', 'last week', 'in July', "
                   "'since March', 'last 3 months' or '2025-06-14..', which narrows the range."))],
               agent: Annotated[str | None, _AGENT] = None,
               project: Annotated[str | None, _PROJECT] = None,
               role: Annotated[Role | None, Field(description="Only messages by this role.")] = None,
               since: Annotated[str | None, Field(max_length=200, description=(
                   "Start: ISO date/time or a phrase."))] = None,
               until: Annotated[str | None, Field(max_length=200, description="End: ISO date/time or a phrase.")]
               = None,
               limit: Annotated[int, Field(ge=1, le=50, description="Most hits returned.")] = 10,
               machine: Annotated[str | None, Field(max_length=200, description=(
                   "Only messages captured on this machine (each hit's `machine`); summaries are then left out."
               ))] = None) -> dict[str, Any]:
        """Search the user's past conversations with AI assistants (Claude Code sessions, ChatGPT and
        Claude.ai chats), and the day/week/month summaries built from them, by words, best match first.
        Use it when the user refers to something discussed, decided or done before, or when earlier work
        would help. Each hit gives a message `id`, the `conversation` id and title, agent, local time,
        role, the machine it was captured on, and a short snippet with the matched words in [brackets]; a
        summary hit gives its `node` key
        and level instead of an id. The snippet is only a glimpse: pass the ids to `get_messages` (with
        before/after) to read the verbatim messages. A time phrase read from the query is echoed in `time`."""
        _not_blank(query, "query")
        result: SearchResult = self.ask(SearchRequest(
            query=query, agent=agent or "", project=_directory(project), role=role or "", since=since or "",
            until=until or "", limit=limit, machine=machine or ""))
        answer: dict[str, Any] = {"query": query, "hits": [_hit(h) for h in result.hits]}
        if result.time:
            answer["time"] = {"phrase": result.time.phrase, "reading": result.time.label}
        for key, value in (("outside", result.outside), ("project", result.project),
                           ("conversation", result.conversation)):
            if value:
                answer[key] = value
        return answer

    def timeline(self,
                 when: Annotated[str, Field(min_length=1, max_length=200, description=(
                     "A date (2026-03-04), period (2026-03, 2026, 2026-03-30w), phrase ('yesterday', 'last week', "
                     "'July 2025', 'last 3 months') or range ('2026-03-01..2026-03-15', '2026-01..', '..2025-12')."))],
                 agent: Annotated[str | None, _AGENT] = None,
                 days_per_node: Annotated[int, Field(ge=0, le=50, description=(
                     "Conversation-days listed under each summary (0 for none)."))] = 10,
                 max_tokens: Annotated[int, Field(ge=100, le=20_000, description=(
                     "Budget for the answer (about 4 characters a token); later nodes are left out first."))] = 2000,
                 ) -> dict[str, Any]:
        """What the user did with AI assistants during a date, period or range: the best summaries that
        cover it (a year, month, week or day summary, or one conversation-day), in time order. Each node
        gives its level (L4 year … L1 day, L0 one conversation on one day), period, title and summary,
        with the conversation-days inside it (conversation id, date, title) to read next with
        `get_messages` or to search within. Use it for questions like 'what was I working on last
        week?' or 'what happened in March?'. When nothing is summarized yet, the period's conversations
        are listed instead."""
        result: RecallResult = self.ask(RecallRequest(when=when, agent=agent or "", limit=200, days=days_per_node))
        nodes, left = fit_entries([_node(n) for n in result.nodes], max_tokens, text_field="summary")
        answer: dict[str, Any] = {"when": when, "range": result.range.label, "nodes": nodes,
                                  "more_nodes": left + result.more if nodes else 0}
        if not nodes:
            convs, more = fit_entries([_titled(c) for c in result.conversations], max_tokens, text_field="title")
            answer |= {"conversations": convs, "more_conversations": more + result.more}
        return answer

    def get_messages(self,
                     conversation: Annotated[str | None, Field(max_length=1000, description=(
                         "A conversation id from search or timeline (or a unique end of one): its messages from "
                         "the start, in order."))] = None,
                     message_ids: Annotated[list[MessageId] | None, Field(min_length=1, max_length=100, description=(
                         "Message ids from search hits: those messages with their neighbours."))] = None,
                     before: Annotated[int, Field(ge=0, le=50, description=(
                         "With message_ids: earlier messages of the same conversation to include."))] = 2,
                     after: Annotated[int, Field(ge=0, le=50, description=(
                         "With message_ids: later messages of the same conversation to include."))] = 2,
                     max_tokens: Annotated[int, Field(ge=100, le=50_000, description=(
                         "Budget for the answer; messages past it are left out and counted."))] = 4000,
                     ) -> dict[str, Any]:
        """Read the verbatim text of past messages, in order. Give either `conversation` (a conversation id
        from search or timeline: its messages from the start) or `message_ids` (ids from search hits:
        each with `before`/`after` neighbours from its conversation, so an answer is read in context).
        Each message has its id, conversation id and title, agent, role, local time and full text;
        `asked` marks the ids requested. Messages beyond `max_tokens` are left out and counted in
        `more`; to continue a conversation, call again with the last id shown in message_ids,
        before=0 and a larger after."""
        if (conversation is None) == (message_ids is None):
            raise ToolError("give exactly one of conversation or message_ids")
        missing: tuple[int, ...] = ()
        if conversation is not None:
            shown: ShowResult = self.ask(ShowRequest(conversation=conversation))
            messages = [_message(m.id, shown.key, shown, m.role, m.local_time, m.text) for m in shown.messages]
        else:
            found: MessagesResult = self.ask(MessagesRequest(ids=tuple(message_ids or ()), before=before,
                                                             after=after))
            messages = [_message(m.id, m.conversation, m, m.role, m.local_time, m.text, asked=m.asked)
                        for m in found.messages]
            missing = found.missing
        kept, left = fit_entries(messages, max_tokens, text_field="text")
        answer: dict[str, Any] = {"messages": kept, "more": left}
        if missing:
            answer["missing_ids"] = list(missing)
        return answer

    def context(self,
                date: Annotated[str | None, Field(max_length=200, description=(
                    "Build the context as of this day: 2026-03-04, 'yesterday', 'last Tuesday' (default today)."))]
                = None,
                project: Annotated[str | None, _PROJECT] = None,
                agent: Annotated[str | None, _AGENT] = None,
                max_tokens: Annotated[int, Field(ge=200, le=20_000, description=(
                    "Token budget; older and higher-level summaries are shortened first."))] = 2000,
                ) -> dict[str, Any]:
        """The user's telescoping memory as one markdown document: earlier years, this year's months,
        this month's weeks and this week's days as summaries, then the day's most recent raw messages
        and a short 'where we are now' block, fitted to `max_tokens`. Use it at the start of a task to
        learn what the user has been doing (pass the project directory to keep to that project), or
        with `date` to see the memory as of another day."""
        result: ContextResult = self.ask(ContextRequest(date=date or "", project=_directory(project),
                                                        agent=agent or "", max_tokens=max_tokens, format="markdown"))
        return {"anchor": result.anchor, "project": result.project or None, "text": result.rendered,
                "tokens": estimate_tokens(result.rendered), "notes": list(result.notes)}

    def similar(self,
                text: Annotated[str, Field(min_length=1, max_length=5000, description=(
                    "A passage, question or description to find related past messages and summaries for."))],
                level: Annotated[Level, Field(description=(
                    "What to compare with: all, messages, summaries, or one summary level L0 … L4."))] = "all",
                limit: Annotated[int, Field(ge=1, le=50, description="Most neighbours returned.")] = 10,
                ) -> dict[str, Any]:
        """Find past messages and summaries that are about the same thing as a piece of text, even when
        they share few exact words (TF-IDF cosine similarity over the whole history). Use it to find
        related earlier discussions of a topic, an error or a design; use `search` instead for exact
        words, names or a time range. Hits have the same shape as search hits, with a similarity
        `score` (0 to 1, `scored_by` "cosine"); while the daemon is down the full-text index answers at once
        (`scored_by` "full-text relevance": higher is closer, not bounded by 1). Read hits in full with
        `get_messages`."""
        _not_blank(text, "text")
        result: SimilarResult = self.ask(SimilarRequest(query=text, level=level, top=limit))
        return {"scored_by": "cosine" if result.index.get("warm") else "full-text relevance",
                "hits": [_hit(h) | {"score": round(float(h.score or 0), 3)} for h in result.hits]}


def _not_blank(value: str, name: str) -> None:
    """Raise ToolError naming ``name`` when ``value`` holds no word: only white space, quotes or punctuation
    (the operations' own error would name a CLI flag)."""
    if not value.strip():
        raise ToolError(f"{name} is blank (only white space): give some words")
    if not has_terms(value):
        raise ToolError(f"{name} has no word (only quotes or punctuation: {value.strip()!r}): give some words")


def _directory(project: str | None) -> str:
    """``project`` as an absolute path ('' for none), ``~`` and a relative path read here: the daemon, which
    may answer, runs in another directory."""
    return os.path.abspath(os.path.expanduser(project)) if project else ""


def _title(title: Any) -> str:
    """A conversation's title, at most :data:`TITLE_CHARS` characters (an export's own title is stored whole)."""
    return shorten(str(title or ""), TITLE_CHARS)


def _hit(hit: Hit) -> dict[str, Any]:
    """A search or similar hit, compact: the fields an AI needs to decide what to read next."""
    where: dict[str, Any] = {"node": hit.key, "level": hit.level} if hit.kind == "summary" else {"id": hit.id}
    out = {**where, "conversation": hit.conversation or None, "title": _title(hit.title), "agent": hit.agent,
           "time": hit.local_time, "role": hit.role, "snippet": hit.snippet}
    for key, value in (("message_uuid", hit.message_uuid), ("conversation_uuid", hit.conversation_uuid)):
        if value:
            out[key] = value
    if hit.origin:
        out["machine"] = hit.origin
    return out | ({"note": dict(hit.extra)} if hit.extra else {})


def _node(node: SummaryNode) -> dict[str, Any]:
    start, end = node.period_start, node.period_end
    out: dict[str, Any] = {"level": f"L{node.level}", "period": start if start == end else f"{start}..{end}",
                           "agent": node.agent, "title": _title(node.title), "summary": node.summary or "",
                           "key": node.key}
    if not out["summary"]:
        out["state"] = "not summarized yet"
    if node.conversation_days is not None:
        out["conversation_days"] = [_titled(day) for day in node.conversation_days]
        out["more_conversation_days"] = (node.conversation_days_total or 0) - len(node.conversation_days)
    return out


def _titled(entry: RangeConversation | ConversationDay) -> dict[str, Any]:
    """``entry`` (a conversation or conversation-day) as JSON, its title shortened."""
    return {**entry.to_json(), "title": _title(entry.title)}


def _message(id: int, conversation: str, titled: Conversation | Message, role: str, time: str, text: str, *,
             asked: bool = False) -> dict[str, Any]:
    """A message, compact; its conversation's title and agent taken from ``titled``."""
    out: dict[str, Any] = {"id": id, "conversation": conversation, "title": _title(titled.title),
                           "agent": titled.agent, "role": role, "time": time, "text": text}
    if asked:
        out["asked"] = True
    return out
