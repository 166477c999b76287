"""JSON-RPC 2.0 envelopes, encoded with orjson straight to bytes."""

from __future__ import annotations

from typing import Any

import orjson

RequestId = str | int

_dumps = orjson.dumps


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


def error(request_id: RequestId | None, failure: RpcError, *, id_optional: bool = True) -> bytes:
    """An error response. Without a usable request id, the id is left out where the
    revision allows it (2025-11-25 on) and is ``null`` (as JSON-RPC 2.0 says) before."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    elif not id_optional:
        message["id"] = None
    message["error"] = failure.body()
    return _dumps(message)


def notification(method: str, params: dict[str, Any]) -> bytes:
    return _dumps({"jsonrpc": "2.0", "method": method, "params": params})
