"""Plain-text renderings of recall and node answers (standard library only)."""

from __future__ import annotations

import shlex
from typing import Any

__all__ = ["render_node", "render_recall"]


def render_recall(result: dict[str, Any]) -> str:
    """The range read, then each node (or, without nodes, the range's conversations)."""
    span = result.get("range", {})
    lines = [f"recall {result.get('when', '')!r}: {span.get('label', '')}"]
    for node in result.get("nodes", []):
        lines.append("")
        lines.append(_node_block(node, sources=8))
    if not result.get("nodes"):
        convs = result.get("conversations", [])
        lines.append("no summaries cover this range yet" + ("; its conversations:" if convs else "."))
        lines.extend(f"  {c['first'][:16]}  {c['agent']:<12} {c['messages']:>4}  {c['title'] or '(untitled)'}"
                     f"  [{c['key']}]" for c in convs)
    if result.get("more"):
        lines.append(_more_line(result))
    return "\n".join(lines)


def _more_line(result: dict[str, Any]) -> str:
    """How many nodes (or conversations) the limit left out, and how to see them."""
    shown, more = result.get("limit", 0), result["more"]
    what = ("node" if result.get("nodes") else "conversation") + ("s" if more > 1 else "")
    return (f"\n… and {more} more {what} (showing the first {shown}): narrow the range, or "
            f"tapestryctl recall {shlex.quote(str(result.get('when', '')))} --limit {shown + more}"
            + (f" --agent {shlex.quote(result['agent'])}" if result.get("agent") else ""))


def render_node(node: dict[str, Any]) -> str:
    """One node in full with its parent and every source."""
    return _node_block(node, sources=None)


def _node_block(node: dict[str, Any], *, sources: int | None) -> str:
    state = node.get("state", "")
    head = [f"# {node['key']}  ({node['period_start']} → {node['period_end']}, {node.get('message_count', 0)} "
            f"messages, {state})", f"title: {node.get('title') or '(not summarized yet)'}"]
    if node.get("parent"):
        head.append(f"parent: {node['parent']}")
    body = [node["summary"]] if node.get("summary") else []
    items = node.get("sources", [])
    shown = items if sources is None else items[:sources]
    links = [_source_line(s) for s in shown]
    if len(shown) < len(items):
        links.append(f"  … and {len(items) - len(shown)} more (tapestryctl show {node['key']})")
    return "\n".join(head + body + ([f"sources ({len(items)}):"] + links if items else []))


def _source_line(source: dict[str, Any]) -> str:
    if source.get("kind") == "node":
        return f"  {source['source']}  {source.get('title') or '(not summarized yet)'}"
    if "text" in source:
        text = " ".join(str(source["text"]).split())
        return f"  {str(source.get('ts', ''))[:16]}  {source.get('role', '')}: {text[:100]}"
    return f"  {source.get('kind', '')} {source['source']}"
