"""The JSON-RPC envelope: bytes in, one reply out, batches, notifications and responses.

Whatever the message, the client gets an error reply rather than an exception: bad JSON
(-32700), a message that is no request (-32600), a bad id or params, a batch where the
revision has none. A well-formed request goes to the ``Route`` the server gives, which
answers it (or raises ``RpcError``); notifications change the session, and a response
wakes the handler that asked the client.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from collections.abc import Callable
from typing import Any

import orjson

from .. import exact_json, jsonrpc
from ..jsonrpc import Reply, RequestId, RpcError, is_request_id
from ..protocol import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, Revision
from ..session import Session

# Answers one well-formed request (id, method, params as an object) or raises RpcError.
Route = Callable[[RequestId, str, dict[str, Any], Session], Reply]

_loads = exact_json.loads  # integers beyond 64 bits stay integers
_JSONDecodeError = orjson.JSONDecodeError


class Envelope:
    """Unwraps messages for ``route``; ``fallback`` shapes errors on a connection that has
    no revision yet (the newest one the server speaks)."""

    __slots__ = ("_fallback", "_route")

    def __init__(self, route: Route, fallback: Revision) -> None:
        self._route = route
        self._fallback = fallback

    def receive(self, raw: bytes | bytearray | memoryview | str, session: Session) -> Reply:
        """Handle one message; bad input gets an error reply, never an exception."""
        try:
            message = _loads(raw)
        except _JSONDecodeError:
            return self.error_reply(None, RpcError(PARSE_ERROR, "Parse error"), session)
        kind = type(message)
        if kind is dict:
            return self._one(message, session)
        if kind is list:
            return self._batch(message, session)
        return self.error_reply(None, RpcError(INVALID_REQUEST, "Invalid Request"), session)

    def error_reply(
        self, request_id: RequestId | None, failure: RpcError, session: Session
    ) -> bytes:
        return (session.revision or self._fallback).error(request_id, failure)

    def _one(self, message: dict[str, Any], session: Session) -> Reply:
        method = message.get("method")
        if "id" not in message:
            if type(method) is str:
                _notification(method, message.get("params"), session)
                return None
            if "result" in message or "error" in message:
                return None  # an answer to nothing we asked
            return self.error_reply(None, RpcError(INVALID_REQUEST, "Invalid Request"), session)
        request_id = message["id"]
        if method is None and ("result" in message or "error" in message):
            session.outbound.answer(message)  # the client answers a request of ours
            return None
        id_type = type(request_id)
        if id_type is not str and id_type is not int:
            failure = RpcError(
                INVALID_REQUEST, "Invalid Request: id must be a string or an integer"
            )
            return self.error_reply(None, failure, session)
        if message.get("jsonrpc") != "2.0" or type(method) is not str:
            return jsonrpc.error(request_id, RpcError(INVALID_REQUEST, "Invalid Request"))
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return jsonrpc.error(request_id, RpcError(INVALID_PARAMS, "params must be an object"))
        try:
            return self._route(request_id, method, params, session)
        except RpcError as failure:
            return jsonrpc.error(request_id, failure)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return jsonrpc.error(request_id, RpcError(INTERNAL_ERROR, "Internal error"))

    def _batch(self, messages: list[Any], session: Session) -> Reply:
        revision = session.revision
        if revision is None or not revision.batching:
            where = f" in protocol revision {revision.name}" if revision is not None else ""
            failure = RpcError(INVALID_REQUEST, f"JSON-RPC batches are not supported{where}")
            return self.error_reply(None, failure, session)
        if not messages:
            return self.error_reply(
                None, RpcError(INVALID_REQUEST, "Invalid Request: empty batch"), session
            )
        replies: list[bytes | asyncio.Future[bytes | None]] = []
        for message in messages:
            if type(message) is not dict:
                reply: Reply = self.error_reply(
                    None, RpcError(INVALID_REQUEST, "Invalid Request"), session
                )
            elif message.get("method") == "initialize" and is_request_id(message.get("id")):
                failure = RpcError(INVALID_REQUEST, "initialize must not be part of a batch")
                reply = jsonrpc.error(message["id"], failure)
            else:
                reply = self._one(message, session)
            if reply is None:
                continue
            if type(reply) is bytes:
                replies.append(reply)
            else:
                assert not isinstance(reply, bytes)
                replies.append(asyncio.ensure_future(reply))
        if not replies:
            return None
        if all(type(r) is bytes for r in replies):
            return b"[" + b",".join(r for r in replies if type(r) is bytes) + b"]"
        return jsonrpc.join_batch(replies)


def _notification(method: str, params: Any, session: Session) -> None:
    if method == "notifications/cancelled":
        if type(params) is dict:
            session.cancel(params.get("requestId"))
    elif method == "notifications/initialized":
        session.initialized = True
    # Any other notification (progress, roots changed, ...) asks nothing of a tools server.
