"""Parsers of Claude Code sessions, ChatGPT and Claude.ai exports, and ZIP archives."""
