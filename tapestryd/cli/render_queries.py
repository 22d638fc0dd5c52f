"""Plain-text renderings of recall and node answers."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tapestryd.operations.result_parts import NodeSource, SummaryNode
    from tapestryd.operations.results import RecallResult

__all__ = ["render_node", "render_recall"]


def render_recall(result: RecallResult) -> str:
    """The range read, then each node (or, without nodes, the range's conversations)."""
    lines = [f"recall {result.when!r}: {result.range.label}"]
    for node in result.nodes:
        lines.append("")
        lines.append(_node_block(node, sources=8))
    if not result.nodes:
        convs = result.conversations
        lines.append("no summaries cover this range yet" + ("; its conversations:" if convs else "."))
        lines.extend(f"  {(c.first or '')[:16]}  {c.agent:<12} {c.messages:>4}  {c.title or '(untitled)'}"
                     f"  [{c.key}]" for c in convs)
    if result.more:
        lines.append(_more_line(result))
    return "\n".join(lines)


def _more_line(result: RecallResult) -> str:
    """How many nodes (or conversations) the limit left out, and how to see them."""
    shown, more = result.limit, result.more
    what = ("node" if result.nodes else "conversation") + ("s" if more > 1 else "")
    return (f"\n… and {more} more {what} (showing the first {shown}): narrow the range, or "
            f"tapestryctl recall {shlex.quote(result.when)} --limit {shown + more}"
            + (f" --agent {shlex.quote(result.agent)}" if result.agent else ""))


def render_node(node: SummaryNode) -> str:
    """One node in full with its parent and every source."""
    return _node_block(node, sources=None)


def _node_block(node: SummaryNode, *, sources: int | None) -> str:
    head = [f"# {node.key}  ({node.period_start} → {node.period_end}, {node.message_count} "
            f"messages, {node.state})", f"title: {node.title or '(not summarized yet)'}"]
    if node.parent:
        head.append(f"parent: {node.parent}")
    body = [node.summary] if node.summary else []
    items = node.sources
    shown = items if sources is None else items[:sources]
    links = [_source_line(s) for s in shown]
    if len(shown) < len(items):
        links.append(f"  … and {len(items) - len(shown)} more (tapestryctl show {node.key})")
    return "\n".join(head + body + ([f"sources ({len(items)}):"] + links if items else []))


def _source_line(source: NodeSource) -> str:
    if source.kind == "node":
        return f"  {source.source}  {source.title or '(not summarized yet)'}"
    if source.text is not None:
        text = " ".join(source.text.split())
        return f"  {(source.ts or '')[:16]}  {source.role or ''}: {text[:100]}"
    return f"  {source.kind} {source.source}"
