"""The MCP server: tapestry's memory as tools an AI can call (``tapestryctl mcp``).

:mod:`tapestryd.mcp.tools` holds the tools (typed arguments, bounded answers) over a
caller that runs one operation; :mod:`tapestryd.mcp.server` serves them over stdio on the
official Python SDK; :mod:`tapestryd.mcp.install` registers the server with Claude Code
and prints the snippets for Codex CLI and Gemini CLI. Nothing here is imported by the
rest of the CLI, so other commands never load the SDK.
"""
