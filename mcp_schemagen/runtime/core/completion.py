"""completion/complete answered for one prompt argument or template variable: by the
author's completion handler when handlers.py has one (``x-mcp-codegen-complete``), run by
the call lifecycle tools share (core/lifecycle.py: on the loop, in a worker or as a task,
with ``get_context()``), else by the schema's ``enum`` values that start with the typed
text.

Either way at most 100 values are sent (the spec's limit), with ``total`` and
``hasMore`` saying how many there were. A handler that raises or returns anything but a
sequence of strings fails the request with -32603, logged, never the server.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import jsonrpc
from ..jsonrpc import Reply, RequestId, RpcError
from ..protocol import INVALID_PARAMS, Revision
from ..session.request import RequestContext
from ..workers import Placement, runs_in_worker
from .lifecycle import handler_error, internal_error, run_call

# Where the author asks for a completion handler: true on a prompt argument (beside its
# x-mcp-codegen-schema), a list of variable names on a resource template. Never published.
COMPLETE_KEY = "x-mcp-codegen-complete"
MAX_COMPLETIONS = 100  # the spec's limit on completion values per response

# What a completion handler is given and returns (re-exported by the package's types.py).
CompletionArguments = Mapping[str, str]
CompletionReturn = Sequence[str]


def completer_key(kind: str, owner: str, name: str) -> str:
    """How the dispatch table names a completion handler, and its marker says it:
    ``prompt NAME ARGUMENT`` or ``resource URI_TEMPLATE VARIABLE``."""
    return f"{kind} {owner} {name}"


def completion_body(values: Sequence[str]) -> dict[str, Any]:
    return {
        "completion": {
            "values": list(values[:MAX_COMPLETIONS]),
            "total": len(values),
            "hasMore": len(values) > MAX_COMPLETIONS,
        }
    }


def context_arguments(params: Mapping[str, Any]) -> dict[str, str]:
    """The already-resolved arguments a client sends (2025-06-18 and later), checked."""
    context = params.get("context")
    if context is None:
        return {}
    arguments = context.get("arguments") if type(context) is dict else None
    if arguments is None and type(context) is dict:
        return {}
    if type(arguments) is not dict or any(type(v) is not str for v in arguments.values()):
        raise RpcError(
            INVALID_PARAMS, "context.arguments must be an object of strings (argument -> value)"
        )
    return arguments


class Completer:
    """One completion handler, as the call lifecycle runs it (a ``Job``)."""

    __slots__ = ("handler", "is_async", "label", "placement")

    def __init__(self, handler: Callable[..., Any], label: str, is_async: bool) -> None:
        self.handler = handler
        self.label = label  # e.g. "prompt 'greet' argument 'style'", for messages
        self.is_async = is_async
        self.placement = Placement(handler) if runs_in_worker(handler, is_async) else None

    def failure(self, exc: BaseException) -> Any:
        raise handler_error(
            f"completion handler of {self.label}", f"Completion of {self.label}", exc
        )

    def response(
        self, value: Any, request_id: RequestId, revision: Revision, stamp: Mapping[str, Any]
    ) -> bytes:
        if isinstance(value, list | tuple) and all(type(v) is str for v in value):
            return jsonrpc.result(request_id, revision.stamp(completion_body(value), stamp))
        shown = type(value).__name__
        message = f"The completion handler of {self.label} returned {shown}, not a list of strings"
        return jsonrpc.error(request_id, internal_error(message))


def answer(
    completer: Completer | None,
    enum_values: Callable[[str], list[str]],
    request: RequestContext,
    stamp: Mapping[str, Any],
) -> Reply:
    """The reply to a completion request whose argument is checked: ``params["argument"]``
    holds a string ``value``."""
    params = request.params
    value = params["argument"].get("value", "")
    arguments = context_arguments(params)
    if completer is None:
        body = completion_body(enum_values(value))
        return jsonrpc.result(request.id, request.revision.stamp(body, stamp))
    kwargs = {"value": value, "arguments": arguments}
    return run_call(completer, kwargs, completer.label, request, None, stamp)
