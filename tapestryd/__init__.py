"""tapestryd: a local memory service for AI conversations.

Every message exchanged with Claude Code, ChatGPT and Claude.ai is kept verbatim in an
append-only event log and projected into searchable tables and a telescoping summary
hierarchy (L0 conversation-day → L1 day → L2 week → L3 month → L4 year).
"""

__version__ = "0.1.0"
