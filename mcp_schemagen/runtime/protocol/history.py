"""The revisions after 2024-10-07, each a subclass of the one before that overrides what
changed (the protocol's history reads top to bottom), and the registry's order: the only
order of revisions (``ordered``, ``newest``; never the order of their names)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..jsonrpc import RequestId, RpcError, error_message
from ..result import UNSET
from .codes import INVALID_PARAMS
from .revision import (
    _ANNOTATIONS_2024,
    _BLOCK_2024,
    _BLOCK_2025_06,
    _RESOURCE_LINK,
    Revision,
    _blocks,
)


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
    # tasks/list lists the session's own tasks (each task is bound to its session).
    task_methods = frozenset({"tasks/get", "tasks/result", "tasks/cancel", "tasks/list"})

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
    task_methods = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
    skill_methods = frozenset({"skills/list", "skills/get"})
    tool_fields = Revision2025_11_25.tool_fields - {"execution"}
    call_result_fields = Revision2025_11_25.call_result_fields | {"resultType"}
    list_result_fields = Revision2025_11_25.list_result_fields | {
        "resultType",
        "ttlMs",
        "cacheScope",
    }
    initialize_result_fields = frozenset()  # no initialize in the stateless era
    missing_capability_is_error = True
    extensions_capability = True
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
