"""Read operations over the projections: ping, search, conversations, show, stats, context,
similar, recall and node (one node with its sources).

Each takes its request and :class:`~tapestryd.operations.base.ReadDeps`; relative times count
from ``request.now`` when given, else from the deps' clock. A user mistake raises TapestryError.
The query modules only some of them need are imported inside them, so ``tapestryctl search``
without a daemon loads neither the context builder nor the similarity index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from tapestryd import __version__
from tapestryd.clock import check_supported
from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.operations.base import ReadDeps
from tapestryd.operations.checks import check_agent, check_machine, in_range, now_of
from tapestryd.operations.requests import (ContextRequest, ConversationsRequest, MessagesRequest, NodeRequest,
                                           PingRequest, RecallRequest, SearchRequest, ShowRequest, SimilarRequest,
                                           StatsRequest)
from tapestryd.operations.results import (ContextResult, ConversationsResult, MessagesResult, NodeResult, PingResult,
                                          RecallResult, SearchResult, ShowResult, SimilarResult, StatsResult)
from tapestryd.queries.conversations import (ambiguity, list_conversations, messages_around, resolve_conversation,
                                             show_conversation)
from tapestryd.queries.conversations import stats as count_stats
from tapestryd.queries.levelnames import level_filter
from tapestryd.queries.reader import Reader
from tapestryd.queries.dense import DenseIndex, dense_for
from tapestryd.queries.search import SearchFilters
from tapestryd.queries.search import search as run_search
from tapestryd.queries.timephrase import TimeRange, parse_when

__all__ = ["context", "conversations", "messages", "node", "ping", "recall", "search", "show", "similar", "stats"]

ROLES = ("user", "assistant", "system", "tool")


def ping(request: PingRequest, deps: ReadDeps) -> PingResult:
    """Liveness: the version and the home's data dir."""
    return PingResult(pong=True, version=__version__, data_dir=str(deps.reader.paths.data_dir))


def search(request: SearchRequest, deps: ReadDeps) -> SearchResult:
    """Full-text search over messages and summaries (see :func:`tapestryd.queries.search.search`).

    Raises TapestryError for an unknown role or level, a limit outside 1..10,000, a blank
    conversation, or a range that ends before it starts.
    """
    reader, now = deps.reader, now_of(request.now, deps.clock, deps.reader.tz)
    if request.role and request.role not in ROLES:
        raise TapestryError(f"role must be one of {', '.join(ROLES)}, got {request.role!r}")
    filters = SearchFilters(
        agent=check_agent(reader.settings, reader.conn, request.agent), role=request.role,
        conversation="" if request.conversation is None else resolve_conversation(reader, request.conversation),
        level=level_filter(request.level),
        since=_when(reader, request.since, now, "since"), until=_when(reader, request.until, now, "until"),
        subagents=not request.no_subagents,
        origin=check_machine(reader.settings, reader.conn, request.machine))
    if filters.since and filters.until and filters.until <= filters.since:
        raise TapestryError(f"until ({request.until}) must come after since ({request.since})")
    limit = in_range(request.limit, "limit")
    if request.project:
        from tapestryd.queries.context import project_conversations

        filters = replace(filters, conversations=frozenset(project_conversations(reader.conn, request.project)))
    if request.mode == "hybrid" and not request.regex:
        from tapestryd.queries.hybrid import hybrid_search

        found = hybrid_search(reader, request.query, filters, now=now, limit=limit, widen=request.widen,
                              dense=_dense(deps))
    else:
        found = run_search(reader, request.query, filters, now=now, limit=limit, sort=request.sort or "relevance",
                           regex=request.regex, widen=request.widen, dense=_dense(deps))
    if request.project:
        found["project"] = request.project
    if filters.conversation and filters.conversation != request.conversation:  # a short form: say which one
        found["conversation"] = filters.conversation
    return SearchResult.from_json(found)


def _dense(deps: ReadDeps) -> DenseIndex | None:
    """The daemon's kept dense index, or one loaded for this search alone (None without embeddings)."""
    return deps.dense.get(deps.reader) if deps.dense is not None else dense_for(deps.reader)


def _when(reader: Reader, value: str, now: datetime, end: str) -> datetime | None:
    """An ISO instant, or the start (``since``) / end (``until``) of a phrase's range; None if empty.

    Raises TapestryError naming the field ``end`` (the CLI's ``--since``, MCP's ``since``) for a value
    that is no time, or one outside the supported dates."""
    if not value:
        return None
    try:
        instant = parse_utc(value)
    except ValueError:
        found = _named(end, lambda: parse_when(value, now=now, tz=reader.tz,
                                               first_day_of_week=reader.settings.first_day_of_week))
        return found.since if end == "since" else found.until
    check_supported(instant, f"{end}: {value!r}")
    return instant


def _named(field: str, read: Callable[[], TimeRange]) -> TimeRange:
    """``read()``; a TapestryError it raises (a value that is no time) is raised again naming ``field``, the
    request's field, so each front end's user knows which of several values to fix."""
    try:
        return read()
    except TapestryError as exc:
        raise TapestryError(f"{field}: {exc.message}") from exc


def conversations(request: ConversationsRequest, deps: ReadDeps) -> ConversationsResult:
    """Recent conversations, most recently active first."""
    reader = deps.reader
    agent = check_agent(reader.settings, reader.conn, request.agent)
    found = list_conversations(reader, agent=agent, limit=in_range(request.limit, "limit"))
    return ConversationsResult.from_json(found)


def show(request: ShowRequest, deps: ReadDeps) -> ShowResult:
    """One conversation in full; raises TapestryError when the reference names none or several."""
    found = show_conversation(deps.reader, request.conversation)
    if found is None:
        raise TapestryError(ambiguity(deps.reader, request.conversation)
                            or f"no conversation matches {request.conversation!r}")
    return ShowResult.from_json(found)


def messages(request: MessagesRequest, deps: ReadDeps) -> MessagesResult:
    """Messages by id with neighbours (see :func:`tapestryd.queries.conversations.messages_around`).

    Raises TapestryError for no ids or more than 100, or a window outside 0 to 50.
    """
    if not 1 <= len(request.ids) <= 100:
        raise TapestryError(f"ids must be a list of 1 to 100 message ids, got {list(request.ids)!r}")
    found = messages_around(deps.reader, list(request.ids), before=_window(request.before, "before"),
                            after=_window(request.after, "after"))
    return MessagesResult.from_json(found)


def _window(number: int, name: str) -> int:
    if not 0 <= number <= 50:
        raise TapestryError(f"{name} must be a number from 0 to 50, got {number}")
    return number


def stats(request: StatsRequest, deps: ReadDeps) -> StatsResult:
    """Counts per agent and role."""
    return StatsResult.from_json(count_stats(deps.reader))


def context(request: ContextRequest, deps: ReadDeps) -> ContextResult:
    """Telescoping context (see :func:`tapestryd.queries.contextdoc.context_answer`)."""
    from tapestryd.queries import contextdoc

    reader, now = deps.reader, now_of(request.now, deps.clock, deps.reader.tz)
    anchor = None
    if request.date:
        anchor = _named("date", lambda: parse_when(request.date, now=now, tz=reader.tz,
                                                   first_day_of_week=reader.settings.first_day_of_week)).last
    max_tokens = None if request.max_tokens is None else in_range(request.max_tokens, "max_tokens", most=1_000_000,
                                                                  clamp=True)
    wanted = contextdoc.ContextRequest(anchor=anchor, agent=check_agent(reader.settings, reader.conn, request.agent),
                                       project=request.project, max_tokens=max_tokens, fmt=request.format or "text",
                                       recent=in_range(request.recent, "recent", most=500, clamp=True),
                                       now_only=request.now_only, exclude_session=request.exclude_session,
                                       machine=check_machine(reader.settings, reader.conn, request.machine))
    return ContextResult.from_json(contextdoc.context_answer(reader, wanted, now=now))


def similar(request: SimilarRequest, deps: ReadDeps) -> SimilarResult:
    """Most similar messages and summaries by TF-IDF cosine; raises TapestryError for a query without a word
    (blank, or only quotes and punctuation, as search)."""
    from tapestryd.queries.substring import has_terms
    from tapestryd.queries.similar import saved_index
    from tapestryd.queries.similar import similar as find_similar

    query = request.query.strip()
    if not has_terms(query):
        raise TapestryError("similar needs some text to compare with" + (f" (got only {query!r})" if query else ""))
    # The daemon's index (warm or still fitting); with no daemon, the index it saved when one is still current.
    top, level = in_range(request.top, "top", most=1000, clamp=True), level_filter(request.level)
    own = saved_index(deps.reader) if deps.similarity is None and deps.control is None else None
    try:
        found = find_similar(deps.reader, query, top=top, level=level, index=own or deps.similarity)
    finally:
        if own is not None:
            own.stop()
    return SimilarResult.from_json(found)


def recall(request: RecallRequest, deps: ReadDeps) -> RecallResult:
    """The best available nodes for a date, period or range."""
    from tapestryd.queries.recall import recall as recall_nodes

    reader, when = deps.reader, request.when.strip()
    if not when:
        raise TapestryError("recall needs a date, period or range (e.g. 2026-03, 'last week', 2026-03-01..2026-03-15)")
    found = recall_nodes(reader, when, now=now_of(request.now, deps.clock, deps.reader.tz),
                         agent=check_agent(reader.settings, reader.conn, request.agent),
                         limit=in_range(request.limit, "limit", clamp=True), days=_days(request.days))
    return RecallResult.from_json(found)


def _days(days: int) -> int:
    """``recall``'s days: 0 (none), or 1 and up, at most 1,000."""
    return 0 if days == 0 else in_range(days, "days", most=1000, clamp=True)


def node(request: NodeRequest, deps: ReadDeps) -> NodeResult:
    """One node with its sources."""
    from tapestryd.queries.recall import show_node

    return NodeResult.from_json(show_node(deps.reader, request.key))
