"""JSON-RPC 2.0 envelopes, encoded with orjson straight to bytes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from . import exact_json

RequestId = str | int
# Delivers one complete JSON-RPC message to the client (a transport's write).
Send = Callable[[bytes], None]
# The core's answer to one incoming message: the response now, nothing (a notification,
# a response), or an awaitable of either (a call still running).
Reply = bytes | None | Awaitable[bytes | None]

# orjson, falling back to the standard encoder only for integers beyond 64 bits (a request
# id or a result may hold one): the fast path is orjson's own.
_dumps = exact_json.dumps


def dumps_exact(value: Any) -> bytes:
    """JSON bytes of ``value``, also when it holds an integer beyond 64 bits (which orjson
    refuses): for data the server publishes as its tool files say it, like tools/list."""
    try:
        return _dumps(value)
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class RpcError(Exception):
    """A request that ends in a JSON-RPC error response instead of a result."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def is_request_id(value: Any) -> bool:
    kind = type(value)
    return kind is str or kind is int


def result(request_id: RequestId, body: Any) -> bytes:
    return _dumps({"jsonrpc": "2.0", "id": request_id, "result": body})


def cached_result(request_id: RequestId, encoded_body: bytes) -> bytes:
    """A response around a result encoded once in advance (e.g. a tools/list page)."""
    return b'{"jsonrpc":"2.0","id":' + _dumps(request_id) + b',"result":' + encoded_body + b"}"


def error(request_id: RequestId, failure: RpcError) -> bytes:
    """An error response to a request."""
    return _dumps({"jsonrpc": "2.0", "id": request_id, "error": failure.body()})


def error_message(request_id: RequestId | None, failure: RpcError, *, null_id: bool) -> bytes:
    """An error response, perhaps to no request; then ``id`` is ``null`` (as JSON-RPC 2.0
    says) with ``null_id``, else left out (as 2025-11-25 on allow). The revision decides."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    elif null_id:
        message["id"] = None
    message["error"] = failure.body()
    return _dumps(message)


def request(request_id: RequestId, method: str, params: dict[str, Any]) -> bytes:
    """A request from this server to the client (elicitation, sampling, roots)."""
    return _dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


def notification(method: str, params: dict[str, Any]) -> bytes:
    return _dumps({"jsonrpc": "2.0", "method": method, "params": params})
