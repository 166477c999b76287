"""The lean runtime every generated server carries (as ``_runtime/``).

``server.Server`` composes the protocol core (``core/``); ``stdio`` and ``http/`` are the
transports; ``asking/`` is a handler asking the client; the modules here are shared by
all of them (``jsonrpc``, ``protocol``, ``session``, ``context``, results and content).
"""
