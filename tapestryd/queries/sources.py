"""The ``sources`` section of ``status``: per watched source, its files, messages and last capture.

Sources are Claude Code (``[sources] watched_roots``), Codex CLI (``codex_roots``), Gemini
CLI (``gemini_roots``) and OpenCode (``opencode_dbs``). A file counts for the source whose
root holds it (an OpenCode database for its own path), among the files the log keeps an
offset for; its last capture is the newest time such an offset moved (UTC). Messages are
those of the source's agent label (:meth:`~tapestryd.config.Settings.agent_for_parser`),
imported by any way.
"""

from __future__ import annotations

import os
from pathlib import Path

from tapestryd.db import connect, translate_errors
from tapestryd.projections.messages_read import agent_totals
from tapestryd.queries.reader import Reader
from tapestryd.queries.status import status_section
from tapestryd.plural import counted

__all__ = ["source_roots", "sources_status"]


def source_roots(reader: Reader) -> dict[str, tuple[str, tuple[Path, ...]]]:
    """Parser name → (agent label, watched roots or databases) of each source, from the settings."""
    src, agent = reader.settings.sources, reader.settings.agent_for_parser
    return {"claude-code": (agent("claude-code"), src.watched_roots), "codex": (agent("codex"), src.codex_roots),
            "gemini": (agent("gemini"), src.gemini_roots), "opencode": (agent("opencode"), src.opencode_dbs)}


@status_section("sources")
def sources_status(reader: Reader) -> dict[str, str]:
    """One line per source: ``N files, M messages, last capture T`` (see the module docstring)."""
    offsets = _offsets(reader.paths.events_db)
    # the conversations' own counts, as stats() sums them, without its count per role (a pass over every message)
    per_agent = {agent: messages or 0 for agent, _, messages, _, _ in agent_totals(reader.conn)}
    lines: dict[str, str] = {}
    for name, (agent, roots) in source_roots(reader).items():
        prefixes = [os.path.abspath(r) for r in roots]
        mine = [at for path, at in offsets if any(path == p or path.startswith(p + os.sep) for p in prefixes)]
        messages = per_agent.get(agent, 0)
        last = f", last capture {max(mine)}" if mine else ""
        where = ", ".join(str(r) for r in roots) or "nothing watched"
        lines[f"{name} ({agent})"] = f"{counted(len(mine), 'file')}, {counted(messages, 'message')}{last}; {where}"
    return lines


def _offsets(events_db: Path) -> list[tuple[str, str]]:
    """``(path, updated_at)`` of every source offset the log keeps (none when there is no log)."""
    if not events_db.exists():
        return []
    conn = connect(events_db, readonly=True)
    try:
        with translate_errors(conn):
            return [(str(p), str(at)) for p, at in conn.execute("SELECT path, updated_at FROM source_offsets")]
    finally:
        conn.close()
