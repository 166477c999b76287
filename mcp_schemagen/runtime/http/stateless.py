"""POST in the stateless revision (2026-07-28): nothing remembered between requests.

Checks in the order the spec's Server Validation and versioning chapters give them, each
a JSON-RPC error with the request's id and the HTTP status the spec names: ``_meta``
incomplete (400, -32602); ``MCP-Protocol-Version`` missing or not the ``_meta`` version
(400, -32020); version not served (400, -32022 with ``data.supported``); ``Mcp-Method``
or ``Mcp-Name`` missing or not the body's (400, -32020); method not in the revision
(404, -32601); ``Mcp-Param-*`` not mirroring the ``x-mcp-header`` arguments (400,
-32020). Then the same ``Server`` core as stdio answers; closing the response stream
cancels the call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from ..core.envelope import invalid_request
from ..jsonrpc import RpcError
from ..protocol import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
    METHOD_NOT_FOUND,
    REVISIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    Revision,
)
from ..session import Session
from ..session.admission import Slots
from .endpoint import HttpRequest, MessageCore
from .headers import ParamHeader, decode_value, param_mismatch
from .stream import CallChannel, answer, settle

HEADER_MISMATCH = -32020
# Methods whose target the Mcp-Name header mirrors, and where the body names it.
_NAMED = {"tools/call": "name", "resources/read": "uri", "prompts/get": "name"}
# The tasks extension's methods name their task (SEP-2663, "Routing Headers").
_NAMED.update(dict.fromkeys(("tasks/get", "tasks/update", "tasks/cancel"), "taskId"))
# Refusals before a revision is known take the stateless era's error form (whether or not
# this server speaks it: the client spoke it).
_ERROR_FORM = next(r for r in reversed(REVISIONS) if r.stateless)
_CLIENT_ERRORS = {HEADER_MISMATCH, -32021, UNSUPPORTED_PROTOCOL_VERSION, INVALID_PARAMS}


class StatelessEndpoint:
    """POST of the stateless revisions. ``supported`` is every revision the server speaks
    (for -32022); ``params`` the ``Mcp-Param-*`` headers each tool's arguments mirror."""

    def __init__(
        self,
        core: MessageCore,
        revisions: Iterable[Revision],
        supported: list[str],
        params: Mapping[str, tuple[ParamHeader, ...]],
        serves: Callable[[str, Revision], bool] | None = None,
        admission: Slots | None = None,
    ) -> None:
        self.core = core
        # Whether a method is answered in a revision (prompts/* only with prompts).
        self.serves = serves or (lambda method, revision: method in revision.methods)
        self.admission = admission  # the process's bound on running requests
        self.revisions = {r.name: r for r in revisions if r.stateless}
        self.supported = supported
        self.params = params

    async def post(self, request: HttpRequest) -> None:
        message = request.message
        request_id = message.get("id") if type(message) is dict else None
        failure, status = self._check(message, request.headers)
        if failure is not None:
            await request.respond.rpc_error(status, request_id, failure, _ERROR_FORM)
            return
        if "id" not in message:
            await request.respond.empty(202)  # no notification asks anything here
            return
        meta = message["params"]["_meta"]
        channel = CallChannel()
        session = Session(channel.send)
        session.admission = self.admission
        session.client_capabilities = meta[META_CLIENT_CAPABILITIES]
        info = meta.get(META_CLIENT_INFO)
        session.client_info = info if type(info) is dict else {}
        reply = settle(self.core.handle(request.message, session))
        await answer(request, channel, reply, status_of=_status, headers=[], resumable=None)

    def _check(self, message: Any, headers: Mapping[str, str]) -> tuple[RpcError | None, int]:
        if type(message) is list:
            return RpcError(INVALID_REQUEST, "JSON-RPC batches are not part of 2026-07-28"), 400
        if type(message) is not dict:
            return invalid_request(message), 400
        method = message.get("method")
        if type(method) is not str:
            data = invalid_request(message).data
            return RpcError(
                INVALID_REQUEST, "Invalid Request: clients send requests only", data
            ), 400
        params = message.get("params")
        meta = params.get("_meta") if type(params) is dict else None
        version = meta.get(META_PROTOCOL_VERSION) if type(meta) is dict else None
        if type(version) is not str or type(meta.get(META_CLIENT_CAPABILITIES)) is not dict:  # type: ignore[union-attr]
            text = (
                f"Invalid params: _meta needs {META_PROTOCOL_VERSION} (a string) and "
                f"{META_CLIENT_CAPABILITIES} (an object; {{}} declares none)"
            )
            return RpcError(INVALID_PARAMS, text), 400
        assert type(params) is dict
        header = headers.get("mcp-protocol-version")
        if header is None:
            return RpcError(HEADER_MISMATCH, "Missing MCP-Protocol-Version header"), 400
        if header != version:
            text = f"Header mismatch: MCP-Protocol-Version {header!r} is not the _meta version {version!r}"
            return RpcError(HEADER_MISMATCH, text), 400
        revision = self.revisions.get(version)
        if revision is None:
            data = {"supported": self.supported, "requested": version}
            return RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data), 400
        mirrored = headers.get("mcp-method")
        if mirrored is None:
            return RpcError(HEADER_MISMATCH, "Missing Mcp-Method header"), 400
        if mirrored != method:
            text = f"Header mismatch: Mcp-Method {mirrored!r} is not the body's method {method!r}"
            return RpcError(HEADER_MISMATCH, text), 400
        field = _NAMED.get(method)
        if field is not None:
            raw = headers.get("mcp-name")
            if raw is None:
                return RpcError(HEADER_MISMATCH, "Missing Mcp-Name header"), 400
            name = decode_value(raw)
            if name is None or name != params.get(field):
                text = f"Header mismatch: Mcp-Name does not match the body's params.{field}"
                return RpcError(HEADER_MISMATCH, text), 400
        if not self.serves(method, revision):
            return RpcError(METHOD_NOT_FOUND, f"Method not found: {method}"), 404
        if method == "tools/call":
            specs = self.params.get(params.get("name"))  # type: ignore[arg-type]
            if specs:
                problem = param_mismatch(specs, headers, params.get("arguments"))
                if problem is not None:
                    return RpcError(HEADER_MISMATCH, f"Header mismatch: {problem}"), 400
        return None, 200


def _status(reply: bytes) -> int:
    """The HTTP status of a reply: 404 for an unknown method, 400 for the envelope and
    capability errors the spec gives that status, else 200."""
    if b'"error":{"code":' not in reply:
        return 200
    try:
        code = orjson.loads(reply)["error"]["code"]
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return 200
    if code == METHOD_NOT_FOUND:
        return 404
    return 400 if code in _CLIENT_ERRORS and code != INVALID_PARAMS else 200
