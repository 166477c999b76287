"""The protocol's numbers and names that every revision shares: JSON-RPC and MCP error
codes, the reserved ``_meta`` keys of the stateless envelope, the log levels in order."""

from __future__ import annotations

from collections.abc import Mapping

# JSON-RPC and MCP error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021  # 2026-07-28
UNSUPPORTED_PROTOCOL_VERSION = -32022  # 2026-07-28

# Reserved `_meta` keys of the stateless (2026-07-28) request envelope.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

# RFC 5424 severities, least severe first.
LOG_LEVELS: tuple[str, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
LOG_RANK: Mapping[str, int] = {level: rank for rank, level in enumerate(LOG_LEVELS)}
