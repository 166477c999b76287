"""resources/read and completion/complete of template variables: the URI found (a static
resource first, then each template in order), a template's variables checked against
their schemas, the reader run by the call lifecycle tools share (core/lifecycle.py, so it
may ask the client), its return shaped into the revision's ReadResourceResult.

Every failure is a JSON-RPC error: a URI no resource or template has is the revision's
not-found error (revisions.not_found), a variable that fails its schema -32602 naming it,
a reader that raises or returns what cannot be sent -32603.

2026-07-28 caching hints (SEP-2549) on a read: a resource read from a file is as fixed as
the lists, so it carries the configured ``ttl-ms`` and ``cache-scope``; a reader's answer
may change on every read and may depend on who asks, so by default ``ttlMs: 0`` and
``cacheScope: "private"``, unless the reader returns a ``ResourceResult`` saying otherwise.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import jsonrpc
from ..apps import VIEW_MIME_TYPE, with_view_meta
from ..asking.request_state import RequestStateSeal
from ..core.lifecycle import handler_error, internal_error
from ..core.listing import CACHE_SCOPES, ListCaching
from ..core.serving import Serving
from ..jsonrpc import Reply, RequestId, RpcError
from ..protocol import INVALID_PARAMS, Revision
from ..protocol.resources import not_found
from ..session.request import RequestContext
from ..shorten import shorten
from ..validation import LazyValidators
from ..workers import Placement
from .result import ResourceResult
from .table import ResourceEntry

READER_CACHING = ListCaching(0, "private")


class Resources(Serving):
    """Answers resources/read and the ``ref/resource`` completions for ``resources``."""

    __slots__ = ("_caching", "_placements", "_validators", "by_key", "static", "templates")

    def __init__(
        self,
        resources: Sequence[ResourceEntry],
        stamp: Mapping[str, Any],
        request_state: RequestStateSeal,
        caching: ListCaching,
    ) -> None:
        super().__init__(stamp, request_state)
        self.by_key: dict[str, ResourceEntry] = {}
        for resource in resources:
            if resource.key in self.by_key:
                raise ValueError(f"two resources are {resource.key!r}")
            self.by_key[resource.key] = resource
        self.static = {r.key: r for r in resources if r.template is None}
        self.templates = [r for r in resources if r.template is not None]
        self._caching = caching
        self._validators = LazyValidators()
        self._placements = {
            r.key: Placement(r.handler) for r in resources if r.in_worker and r.handler
        }

    def published(self, templates: bool) -> Callable[[Revision], list[Mapping[str, Any]]]:
        """Every resource (or every template) as a revision's clients receive it, in order."""
        chosen = self.templates if templates else list(self.static.values())
        return lambda revision: [r.published[revision.name] for r in chosen]

    # ------------------------------------------------------------- resources/read

    def read(self, request: RequestContext) -> Reply:
        revision = request.revision
        uri = request.params.get("uri")
        if type(uri) is not str:
            raise RpcError(INVALID_PARAMS, "resources/read needs the resource's uri, a string")
        resource, variables = self._find(uri, revision)
        if resource.contents is not None:  # read from its file at build time
            return self.result(request, _result(list(resource.contents), revision, self._caching))
        kwargs = self._keyword_arguments(resource, variables)
        channel = self.channel(request, f"resource:{uri}")  # a requestState for this URI only
        job = ReaderJob(resource, uri, self._placements.get(resource.key))
        return self.run(job, kwargs, uri, request, channel)

    def _find(self, uri: str, revision: Revision) -> tuple[ResourceEntry, dict[str, str]]:
        resource = self.static.get(uri)
        if resource is not None:
            return resource, {}
        for template in self.templates:
            assert template.template is not None
            variables = template.template.match(uri)
            if variables is not None:
                return template, variables
        raise not_found(revision, uri, shorten(uri))

    def _keyword_arguments(
        self, resource: ResourceEntry, variables: dict[str, str]
    ) -> dict[str, Any]:
        for name, value in variables.items():
            if name in resource.schemas:
                schema = resource.schemas[name]
                reasons = self._validators.reasons((resource.key, name), schema, value)
                if reasons is not None:
                    raise _invalid(resource, name, reasons)
        return {resource.variables[name]: value for name, value in variables.items()}

    # ------------------------------------------------------------- completion/complete

    def complete(self, request: RequestContext) -> Reply:
        """Completion of a template variable: by its completion handler, else its schema's
        enum values that start with what the user typed (core/completion.py)."""
        ref = request.params.get("ref")
        assert type(ref) is dict
        key = ref.get("uri")
        resource = self.by_key.get(key) if type(key) is str else None
        if resource is None or resource.template is None:
            raise RpcError(
                INVALID_PARAMS,
                f"Cannot complete {shorten(repr(key))}: not a resource template of this server",
                {"uri": key},
            )
        return self.complete_argument(
            request,
            resource.variables,
            lambda name: _invalid(resource, name, "not a variable of this template"),
            resource.completers,
            resource.completions,
        )


class ReaderJob:
    """A reader as the call lifecycle runs it: a failure is a -32603 error, a return value
    becomes the revision's ReadResourceResult for ``uri``."""

    __slots__ = ("handler", "is_async", "placement", "resource", "uri")

    def __init__(self, resource: ResourceEntry, uri: str, placement: Placement | None) -> None:
        assert resource.handler is not None
        self.resource = resource
        self.uri = uri
        self.handler: Callable[..., Any] = resource.handler
        self.is_async = resource.is_async
        self.placement = placement

    def failure(self, exc: BaseException) -> Any:
        raise handler_error(
            f"resource reader for {self.resource.key!r}",
            f"Reading resource {self.uri}",
            exc,
            unimplemented=f"Resource {self.resource.key}",
        )

    def response(
        self, value: Any, request_id: RequestId, revision: Revision, stamp: Mapping[str, Any]
    ) -> bytes:
        try:
            contents, caching = reader_contents(value, self.uri, self.resource.mime_type)
            if self.resource.mime_type == VIEW_MIME_TYPE:  # an MCP Apps view
                contents = with_view_meta(contents, self.uri, self.resource.published)
            body = _result(contents, revision, caching)
            return jsonrpc.result(request_id, revision.stamp(body, stamp))
        except Exception as exc:  # an unsendable value, or orjson refused it
            message = f"The reader of {self.resource.key} returned an invalid result: {exc}"
        return jsonrpc.error(request_id, internal_error(message))


def reader_contents(
    value: Any, uri: str, mime_type: str | None
) -> tuple[list[dict[str, Any]], ListCaching]:
    """The contents items of a reader's return value, and the caching hints of the answer."""
    caching = READER_CACHING
    items: Sequence[Any]
    if isinstance(value, ResourceResult):
        items = value.contents
        ttl = READER_CACHING.ttl_ms if value.ttl_ms is None else value.ttl_ms
        scope = value.cache_scope or READER_CACHING.cache_scope
        if type(ttl) is not int or ttl < 0 or scope not in CACHE_SCOPES:
            raise ValueError("ttl_ms must be an integer >= 0 and cache_scope public or private")
        caching = ListCaching(ttl, scope)
    elif isinstance(value, str | bytes):
        items = [value]
    else:
        raise ValueError(
            f"{type(value).__name__} is not resource content; return text, bytes or a"
            " ResourceResult"
        )
    if not items:
        raise ValueError("no contents (a resource read answers with at least one item)")
    return [_item(item, uri, mime_type) for item in items], caching


def _item(item: Any, uri: str, mime_type: str | None) -> dict[str, Any]:
    if isinstance(item, str):
        shaped: dict[str, Any] = {"uri": uri, "text": item}
    elif isinstance(item, bytes):
        shaped = {"uri": uri, "blob": base64.b64encode(item).decode("ascii")}
    elif (
        type(item) is dict
        and type(item.get("uri")) is str
        and (type(item.get("text")) is str or type(item.get("blob")) is str)
    ):
        return item
    else:
        raise ValueError(f"{type(item).__name__} is not a contents item (text, bytes or a dict)")
    if mime_type is not None:
        shaped["mimeType"] = mime_type
    return shaped


def _result(
    contents: list[dict[str, Any]], revision: Revision, caching: ListCaching
) -> dict[str, Any]:
    fields = revision.resource_contents
    body: dict[str, Any] = {
        "contents": [
            c if c.keys() <= fields else {k: c[k] for k in c if k in fields} for c in contents
        ]
    }
    if "ttlMs" in revision.list_result_fields:  # the revisions with caching hints
        body["ttlMs"] = caching.ttl_ms
        body["cacheScope"] = caching.cache_scope
    return body


def _invalid(resource: ResourceEntry, variable: str, reason: str) -> RpcError:
    return RpcError(
        INVALID_PARAMS,
        f"Invalid variable for resource template {resource.key}: {shorten(repr(variable))}"
        f" {reason}",
        {"argument": variable},
    )
