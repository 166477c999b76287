"""Streamable HTTP: the ASGI app (app), its two endpoints (sessions: 2025-03-26 to
2025-11-25; stateless: 2026-07-28), how a call's reply travels (stream), the header rules
(headers) and the settings (settings). The endpoints see the server only through
``endpoint.MessageCore``."""
