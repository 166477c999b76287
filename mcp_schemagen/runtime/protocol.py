"""What each protocol revision defines for a tools server, and how it shapes messages.

The one registry of revisions: the generator reads it (which revisions exist, in which
order, what a tool looks like to each revision's clients), the server answers by it, and
``specs/revisions.toml`` pins a schema file for exactly the names listed here (a test ties
the two). Each revision is a subclass of the one before that overrides what changed, so
the protocol's history reads top to bottom; the facts (field sets) are checked against
each revision's schema.json by the tests, and where revisions differ in the *shape* of a
message, the difference is a method here rather than a flag tested at each use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from .jsonrpc import RequestId, RpcError, error_message
from .result import UNSET

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
_BLOCK_2024_10 = frozenset({"type"})  # no annotations yet
_BLOCK_2024 = _BLOCK_2024_10 | {"annotations"}
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


class Omission(NamedTuple):
    """A field of a tool definition that a revision's clients do not receive, and why:
    ``"undefined"`` (the revision has no such field) or ``"object-root"`` (the revision
    requires an outputSchema with an object at its root)."""

    field: str
    reason: str


class Revision:
    """2024-10-07: the first tagged revision (a pre-release), the root of the chain.

    Its ``tools/call`` result is ``{"toolResult": <any JSON value>}``: no content blocks,
    no error flag; errors that originate in the tool are reported inside that value (as
    its CallToolResult's description says), invalid arguments and unknown tools are
    JSON-RPC -32602 errors whose ``data.reason`` says why (as its Tools chapter shows).

    Instances are immutable singletons (one per class, in :data:`REVISIONS`); compare
    them by identity or by ``name``.
    """

    __slots__ = ()

    name: str = "2024-10-07"
    # Spoken only when a project lists it: no published client of the protocol's public
    # release asks for it (see README, "Protocol revisions").
    opt_in: bool = True
    stateless: bool = False  # no initialize: every request carries the `_meta` envelope
    batching: bool = False  # JSON-RPC batches allowed
    sse_priming: bool = False  # Streamable HTTP: SSE streams open with a priming event
    methods: frozenset[str] = frozenset(
        {"initialize", "ping", "tools/list", "tools/call", "logging/setLevel"}
    )
    # Fields of each message as the schema defines them (checked by the tests).
    tool_fields: frozenset[str] = frozenset({"name", "description", "inputSchema"})
    tool_annotations: frozenset[str] = frozenset()
    # Content blocks the revision defines (in 2024-10-07 for prompts only: a tool result
    # carries them inside its toolResult value).
    content: Mapping[str, frozenset[str]] = _blocks(_BLOCK_2024_10, audio=False, link=None)
    annotations: frozenset[str] = frozenset()
    resource_contents: frozenset[str] = frozenset({"uri", "mimeType", "text", "blob"})
    call_result_fields: frozenset[str] = frozenset({"_meta", "toolResult"})
    list_result_fields: frozenset[str] = frozenset({"_meta", "nextCursor", "tools"})
    initialize_result_fields: frozenset[str] = frozenset(
        {"_meta", "capabilities", "protocolVersion", "serverInfo"}
    )
    progress_fields: frozenset[str] = frozenset({"progressToken", "progress", "total"})
    # Asking the client during a call: the requests a server may send it, the elicitation
    # modes, the sampling parameters, and whether a missing client capability is the
    # -32021 error (2026-07-28) rather than a tool error.
    client_requests: frozenset[str] = frozenset({"sampling/createMessage", "roots/list"})
    elicitation_modes: frozenset[str] = frozenset()
    sampling_fields: frozenset[str] = frozenset(
        {
            "messages",
            "modelPreferences",
            "systemPrompt",
            "includeContext",
            "temperature",
            "maxTokens",
            "stopSequences",
            "metadata",
        }
    )
    missing_capability_is_error: bool = False
    # Prompts (served only by a project that has prompt files): the methods, the fields of
    # a Prompt and of a PromptArgument, and whether `completions` is a capability to
    # declare (before 2025-03-26 completion/complete exists without one).
    prompt_methods: frozenset[str] = frozenset(
        {"prompts/list", "prompts/get", "completion/complete"}
    )
    prompt_fields: frozenset[str] = frozenset({"name", "description", "arguments"})
    prompt_argument_fields: frozenset[str] = frozenset({"name", "description", "required"})
    completions_capability: bool = False
    # Subscriptions (served only when a project switches them on; runtime/subscriptions/).
    subscription_methods: frozenset[str] = frozenset(
        {"resources/subscribe", "resources/unsubscribe"}
    )

    def __repr__(self) -> str:
        return f"<protocol revision {self.name}>"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("protocol revisions are immutable")

    # ---------------------------------------------------------------- tools/list

    def publish_tool(self, definition: Mapping[str, Any]) -> tuple[dict[str, Any], list[Omission]]:
        """The tool as this revision's clients receive it (key order kept), and what they
        do not receive."""
        published: dict[str, Any] = {}
        omitted: list[Omission] = []
        for key, value in definition.items():
            if key not in self.tool_fields:
                omitted.append(Omission(key, "undefined"))
            elif key == "outputSchema" and not self.publishes_output_schema(value):
                omitted.append(Omission(key, "object-root"))
            elif key == "annotations" and isinstance(value, dict):
                published[key] = {k: v for k, v in value.items() if k in self.tool_annotations}
            else:
                published[key] = value
        return published, omitted

    def publish_prompt(
        self, definition: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[Omission]]:
        """The prompt as this revision's clients receive it (key order kept), and what they
        do not receive: top-level fields by name, argument fields as ``arguments/FIELD``.
        Keys of an argument no revision defines (the ``x-mcp-codegen-schema`` typing it)
        are never published."""
        published: dict[str, Any] = {}
        omitted: list[Omission] = []
        for key, value in definition.items():
            if key not in self.prompt_fields:
                omitted.append(Omission(key, "undefined"))
            elif key == "arguments" and isinstance(value, list):
                arguments = []
                for argument in value:
                    if not isinstance(argument, dict):
                        arguments.append(argument)
                        continue
                    kept = {k: v for k, v in argument.items() if k in self.prompt_argument_fields}
                    for lost in argument.keys() - kept.keys():
                        if not lost.startswith("x-"):
                            omitted.append(Omission(f"arguments/{lost}", "undefined"))
                    arguments.append(kept)
                published[key] = arguments
            else:
                published[key] = value
        return published, sorted(set(omitted))

    def publishes_output_schema(self, schema: Any) -> bool:
        """Whether an outputSchema of this shape can be published (an object root)."""
        return isinstance(schema, dict) and schema.get("type") == "object"

    def list_result(
        self,
        field: str,
        items: list[Any],
        next_cursor: str | None,
        *,
        ttl_ms: int,
        cache_scope: str,
    ) -> dict[str, Any]:
        """One page of a list result (``field``: "tools"); ``ttl_ms`` and ``cache_scope``
        are the caching hints of the revisions that define them."""
        body: dict[str, Any] = {field: items}
        if next_cursor is not None:
            body["nextCursor"] = next_cursor
        return body

    # ---------------------------------------------------------------- tools/call

    def text_result(self, text: str) -> dict[str, Any]:
        """The CallToolResult of a handler that returned plain text (the common case)."""
        return {"toolResult": text}

    def call_result(
        self, content: list[Any], structured: Any, is_error: bool, data: Any = UNSET
    ) -> dict[str, Any]:
        """A CallToolResult from content blocks already in this revision's form, the
        structured result (``UNSET`` when none), the error flag, and ``data``: the JSON
        value the handler returned when it returned data rather than text or content
        (``UNSET`` otherwise; the content then holds it as JSON text).

        Here the toolResult is the value itself: the structured result, else the data,
        else the one text (a lone text block), else the content blocks (null for none).
        An error is ``{"error": <that form of its content>}``, the shape the revision's
        Tools chapter shows for an execution error.
        """
        if is_error:
            value: Any = {"error": _content_value(content)}
        elif structured is not UNSET:
            value = structured
        elif data is not UNSET:
            value = data
        else:
            value = _content_value(content)
        return {"toolResult": value}

    def invalid_arguments(self, text: str, problems: list[str]) -> dict[str, Any]:
        """What a call with arguments that fail the inputSchema gets: a JSON-RPC error
        (before 2025-11-25), a tool execution error (so the model can correct itself) from
        2025-11-25. Here the error's ``data.reason``, as this revision's Tools chapter shows."""
        raise RpcError(INVALID_PARAMS, "Invalid params", {"reason": text})

    def unknown_tool(self, name: str) -> RpcError:
        """The JSON-RPC error for a call of a tool the server does not have."""
        return RpcError(INVALID_PARAMS, "Invalid params", {"reason": f"Unknown tool: {name}"})

    # ---------------------------------------------------------------- envelopes

    def stamp(self, body: dict[str, Any], server_meta: Mapping[str, Any]) -> dict[str, Any]:
        """A result body as sent: the stateless era adds resultType and serverInfo."""
        return body

    def error(self, request_id: RequestId | None, failure: RpcError) -> bytes:
        """An error response; without a usable request id, JSON-RPC 2.0's ``id: null``."""
        return error_message(request_id, failure, null_id=True)

    def progress_params(
        self, token: RequestId, progress: float, total: float | None, message: str | None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        return params

    # ---------------------------------------------------------------- asking the client

    def form_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        """An elicitation form's requestedSchema as this revision defines it."""
        return dict(schema)

    def url_elicit_params(self, message: str, url: str, elicitation_id: str) -> dict[str, Any]:
        raise ValueError(f"protocol revision {self.name} has no URL mode elicitation")


def _content_value(content: list[Any]) -> Any:
    """Content blocks as one JSON value: a lone text block is its text, none is null."""
    if not content:
        return None
    if len(content) == 1 and content[0].get("type") == "text":
        return content[0]["text"]
    return content


class Revision2024_11_05(Revision):
    """2024-11-05: the first public release; results are content blocks."""

    __slots__ = ()
    name = "2024-11-05"
    opt_in = False
    content = _blocks(_BLOCK_2024, audio=False, link=None)
    annotations = _ANNOTATIONS_2024
    call_result_fields = frozenset({"_meta", "content", "isError"})
    initialize_result_fields = Revision.initialize_result_fields | {"instructions"}

    def text_result(self, text: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": text}]}

    def call_result(
        self, content: list[Any], structured: Any, is_error: bool, data: Any = UNSET
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"content": content}
        if is_error:
            body["isError"] = True
        return body

    def invalid_arguments(self, text: str, problems: list[str]) -> dict[str, Any]:
        raise RpcError(INVALID_PARAMS, text, {"errors": problems})

    def unknown_tool(self, name: str) -> RpcError:
        return RpcError(INVALID_PARAMS, f"Unknown tool: {name}")


class Revision2025_03_26(Revision2024_11_05):
    __slots__ = ()
    name = "2025-03-26"
    batching = True
    tool_fields = Revision2024_11_05.tool_fields | {"annotations"}
    tool_annotations = frozenset(
        {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    )
    content = _blocks(_BLOCK_2024, audio=True, link=None)
    progress_fields = Revision2024_11_05.progress_fields | {"message"}
    completions_capability = True

    def progress_params(
        self, token: RequestId, progress: float, total: float | None, message: str | None
    ) -> dict[str, Any]:
        params = super().progress_params(token, progress, total, message)
        if message is not None:
            params["message"] = message
        return params


class Revision2025_06_18(Revision2025_03_26):
    __slots__ = ()
    name = "2025-06-18"
    batching = False
    client_requests = Revision2025_03_26.client_requests | {"elicitation/create"}
    elicitation_modes = frozenset({"form"})
    tool_fields = Revision2025_03_26.tool_fields | {"title", "outputSchema", "_meta"}
    content = _blocks(_BLOCK_2025_06, audio=True, link=_RESOURCE_LINK)
    annotations = _ANNOTATIONS_2024 | {"lastModified"}
    resource_contents = Revision2025_03_26.resource_contents | {"_meta"}
    call_result_fields = Revision2025_03_26.call_result_fields | {"structuredContent"}
    prompt_fields = Revision2025_03_26.prompt_fields | {"title", "_meta"}
    prompt_argument_fields = Revision2025_03_26.prompt_argument_fields | {"title"}

    def call_result(
        self, content: list[Any], structured: Any, is_error: bool, data: Any = UNSET
    ) -> dict[str, Any]:
        body = super().call_result(content, structured, is_error, data)
        if self._carries_structured(structured):
            body["structuredContent"] = structured
        return body

    def _carries_structured(self, structured: Any) -> bool:
        return type(structured) is dict  # an object only (UNSET is not a dict)

    def form_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        # 2025-06-18 knows no defaults, no titled oneOf and no multi-select: titled options
        # become the enum + enumNames form it does define.
        fields: dict[str, Any] = {}
        for name, field in schema.get("properties", {}).items():
            if field.get("type") == "array":
                raise ValueError(
                    f"field {name!r}: protocol revision {self.name} has no multi-select fields"
                )
            field = {k: v for k, v in field.items() if k != "default"}
            options = field.pop("oneOf", None)
            if options is not None:
                field["enum"] = [option["const"] for option in options]
                field["enumNames"] = [option.get("title", option["const"]) for option in options]
            fields[name] = field
        return {**schema, "properties": fields}


class Revision2025_11_25(Revision2025_06_18):
    __slots__ = ()
    name = "2025-11-25"
    sse_priming = True
    tool_fields = Revision2025_06_18.tool_fields | {"icons", "execution"}
    prompt_fields = Revision2025_06_18.prompt_fields | {"icons"}
    elicitation_modes = frozenset({"form", "url"})
    sampling_fields = Revision2025_06_18.sampling_fields | {"tools", "toolChoice"}
    content = _blocks(_BLOCK_2025_06, audio=True, link=_RESOURCE_LINK | {"icons"})
    progress_fields = Revision2025_06_18.progress_fields | {"_meta"}

    def invalid_arguments(self, text: str, problems: list[str]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": text}], "isError": True}

    def error(self, request_id: RequestId | None, failure: RpcError) -> bytes:
        return error_message(request_id, failure, null_id=False)  # id may be left out

    def form_schema(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        return dict(schema)  # every form the author may write

    def url_elicit_params(self, message: str, url: str, elicitation_id: str) -> dict[str, Any]:
        return {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}


class Revision2026_07_28(Revision2025_11_25):
    __slots__ = ()
    name = "2026-07-28"
    stateless = True
    methods = frozenset({"server/discover", "tools/list", "tools/call"})
    tool_fields = Revision2025_11_25.tool_fields - {"execution"}
    call_result_fields = Revision2025_11_25.call_result_fields | {"resultType"}
    list_result_fields = Revision2025_11_25.list_result_fields | {
        "resultType",
        "ttlMs",
        "cacheScope",
    }
    initialize_result_fields = frozenset()  # no initialize in the stateless era
    missing_capability_is_error = True
    subscription_methods = frozenset({"subscriptions/listen"})  # SEP-2575

    def url_elicit_params(self, message: str, url: str, elicitation_id: str) -> dict[str, Any]:
        return {"mode": "url", "message": message, "url": url}  # no elicitationId any more

    def publishes_output_schema(self, schema: Any) -> bool:
        return True  # any JSON Schema

    def _carries_structured(self, structured: Any) -> bool:
        return structured is not UNSET  # any JSON value

    def list_result(
        self,
        field: str,
        items: list[Any],
        next_cursor: str | None,
        *,
        ttl_ms: int,
        cache_scope: str,
    ) -> dict[str, Any]:
        body = super().list_result(
            field, items, next_cursor, ttl_ms=ttl_ms, cache_scope=cache_scope
        )
        body["ttlMs"] = ttl_ms
        body["cacheScope"] = cache_scope
        return body

    def stamp(self, body: dict[str, Any], server_meta: Mapping[str, Any]) -> dict[str, Any]:
        body["resultType"] = "complete"
        body["_meta"] = server_meta
        return body


# Oldest first: the order of the protocol's history, and the only order of revisions.
REVISIONS: tuple[Revision, ...] = (
    Revision(),
    Revision2024_11_05(),
    Revision2025_03_26(),
    Revision2025_06_18(),
    Revision2025_11_25(),
    Revision2026_07_28(),
)
BY_NAME: Mapping[str, Revision] = {r.name: r for r in REVISIONS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
# What a project speaks when it names no revisions: every one not marked opt-in.
DEFAULT_NAMES: tuple[str, ...] = tuple(r.name for r in REVISIONS if not r.opt_in)


def ordered(names: Iterable[str]) -> tuple[Revision, ...]:
    """The revisions named, oldest first; ``KeyError`` for a name not in the registry."""
    wanted = set(names)
    unknown = wanted - BY_NAME.keys()
    if unknown:
        raise KeyError(f"unknown protocol revisions: {sorted(unknown)}; known: {list(NAMES)}")
    return tuple(r for r in REVISIONS if r.name in wanted)


def newest(names: Iterable[str]) -> Revision:
    """The newest of the revisions named, by the registry's order (never by string)."""
    chosen = ordered(names)
    if not chosen:
        raise ValueError("no protocol revision named")
    return chosen[-1]
