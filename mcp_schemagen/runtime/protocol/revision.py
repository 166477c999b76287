"""2024-10-07, the root of the chain of revisions: what a revision is (:class:`Revision`,
every later one a subclass that overrides what changed) and what the first tagged
revision defines. history.py holds the later revisions and their order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..jsonrpc import RequestId, RpcError, error_message
from ..result import UNSET
from .codes import INVALID_PARAMS

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
    # The methods of durable tasks (runtime/tasks/), served where a tool may run as one:
    # 2025-11-25's experimental form, then the tasks extension (SEP-2663).
    task_methods: frozenset[str] = frozenset()
    # The Skills extension's methods (SEP-2640, runtime/skills/), served where a project has
    # skills: only where capabilities carry `extensions` (SEP-2133), which no revision
    # before 2026-07-28 defines; there skill files are ordinary resources.
    skill_methods: frozenset[str] = frozenset()
    # Prompts (served only by a project that has prompt files): the methods, the fields of
    # a Prompt and of a PromptArgument, and whether `completions` is a capability to
    # declare (before 2025-03-26 completion/complete exists without one).
    prompt_methods: frozenset[str] = frozenset(
        {"prompts/list", "prompts/get", "completion/complete"}
    )
    prompt_fields: frozenset[str] = frozenset({"name", "description", "arguments"})
    prompt_argument_fields: frozenset[str] = frozenset({"name", "description", "required"})
    completions_capability: bool = False
    # Whether ServerCapabilities has `extensions` (SEP-2133), where MCP Apps is declared.
    extensions_capability: bool = False
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
            if key.startswith("x-mcp-codegen-"):
                continue  # the generator's own (a task's TTL): never published
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
