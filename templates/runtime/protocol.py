"""What each protocol revision defines, as far as a tools server's messages are concerned.

Facts read from each revision's schema.json; the server consults them instead of
branching on revision names, so supporting a new revision means adding one row here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

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

_ANNOTATIONS_2024 = frozenset({"audience", "priority"})
_ANNOTATIONS_2025_06 = _ANNOTATIONS_2024 | {"lastModified"}
_BLOCK_2024 = frozenset({"type", "annotations"})
_BLOCK_2025_06 = _BLOCK_2024 | {"_meta"}
_RESOURCE_LINK = frozenset(
    {"type", "annotations", "_meta", "uri", "name", "title", "description", "mimeType", "size"}
)


def _blocks(
    base: frozenset[str], *, audio: bool, link: frozenset[str] | None
) -> dict[str, frozenset[str]]:
    blocks = {
        "text": base | {"text"},
        "image": base | {"data", "mimeType"},
        "resource": base | {"resource"},
    }
    if audio:
        blocks["audio"] = base | {"data", "mimeType"}
    if link is not None:
        blocks["resource_link"] = link
    return blocks


@dataclass(frozen=True, slots=True)
class Revision:
    name: str
    stateless: bool  # no initialize; every request carries the `_meta` envelope
    batching: bool  # JSON-RPC batches allowed
    invalid_arguments_as_result: bool  # invalid arguments -> isError result, not -32602
    structured_content: bool  # CallToolResult.structuredContent exists
    structured_any_json: bool  # ... and may be any JSON value, not only an object
    result_type: bool  # every result carries resultType (and serverInfo in _meta)
    cacheable_lists: bool  # tools/list carries ttlMs and cacheScope
    progress_message: bool  # ProgressNotification params may carry message
    error_id_optional: bool  # an error response may leave out id (else id: null)
    content: Mapping[str, frozenset[str]]  # content block type -> fields it may carry
    annotations: frozenset[str]
    resource_contents: frozenset[str]  # fields of Text/BlobResourceContents
    methods: frozenset[str]  # client requests a tools server answers in this revision
    tool_fields: frozenset[str]  # fields of Tool in tools/list
    tool_annotations: frozenset[str]  # fields of ToolAnnotations


_LEGACY_METHODS = frozenset({"initialize", "ping", "tools/list", "tools/call", "logging/setLevel"})

# Each revision is the one before with what it changed, so the protocol's history reads
# top to bottom (../shared/REVISIONS.md has the same table).
R2024_11_05 = Revision(
    name="2024-11-05",
    stateless=False,
    batching=False,
    invalid_arguments_as_result=False,
    structured_content=False,
    structured_any_json=False,
    result_type=False,
    cacheable_lists=False,
    progress_message=False,
    error_id_optional=False,
    content=_blocks(_BLOCK_2024, audio=False, link=None),
    annotations=_ANNOTATIONS_2024,
    resource_contents=frozenset({"uri", "mimeType", "text", "blob"}),
    methods=_LEGACY_METHODS,
    tool_fields=frozenset({"name", "description", "inputSchema"}),
    tool_annotations=frozenset(),
)
R2025_03_26 = replace(
    R2024_11_05,
    name="2025-03-26",
    batching=True,
    progress_message=True,
    content=_blocks(_BLOCK_2024, audio=True, link=None),
    tool_fields=R2024_11_05.tool_fields | {"annotations"},
    tool_annotations=frozenset(
        {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    ),
)
R2025_06_18 = replace(
    R2025_03_26,
    name="2025-06-18",
    batching=False,
    structured_content=True,
    content=_blocks(_BLOCK_2025_06, audio=True, link=_RESOURCE_LINK),
    annotations=_ANNOTATIONS_2025_06,
    resource_contents=R2025_03_26.resource_contents | {"_meta"},
    tool_fields=R2025_03_26.tool_fields | {"title", "outputSchema", "_meta"},
)
R2025_11_25 = replace(
    R2025_06_18,
    name="2025-11-25",
    invalid_arguments_as_result=True,
    error_id_optional=True,
    content=_blocks(_BLOCK_2025_06, audio=True, link=_RESOURCE_LINK | {"icons"}),
    tool_fields=R2025_06_18.tool_fields | {"icons", "execution"},
)
R2026_07_28 = replace(
    R2025_11_25,
    name="2026-07-28",
    stateless=True,
    structured_any_json=True,
    result_type=True,
    cacheable_lists=True,
    methods=frozenset({"server/discover", "tools/list", "tools/call"}),
    tool_fields=R2025_11_25.tool_fields - {"execution"},
)

KNOWN: Mapping[str, Revision] = {
    r.name: r for r in (R2024_11_05, R2025_03_26, R2025_06_18, R2025_11_25, R2026_07_28)
}
