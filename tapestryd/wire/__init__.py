"""The socket's wire: the JSON-lines protocol, the stdlib client and where the socket is.

Standard library only, so the fast path of ``tapestryctl`` and the Claude Code hook start in
milliseconds; the daemon's server (:mod:`tapestryd.daemon.server`) speaks the same protocol.
"""
