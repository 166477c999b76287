"""The JSON-RPC envelope: bytes in, one reply out, batches, notifications and responses.

Whatever the message, the client gets an error reply rather than an exception: bad JSON
(-32700, with where it broke), a message that is no request (-32600, with which member is
wrong), a bad id or params, a batch where the revision has none or of more than
``MAX_BATCH`` messages. A well-formed request goes to the ``Route`` the server gives, which
answers it (or raises ``RpcError``); notifications change the session, and a response
wakes the handler that asked the client. With ``Session.admission`` set (HTTP), a request
starts only with a free slot (session/admission.py), batch members one after another, at
most ``PER_REQUEST`` of one batch at once.
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
from ..session.admission import Slots, Within
from ..shorten import shorten

# Answers one well-formed request (id, method, params as an object) or raises RpcError.
Route = Callable[[RequestId, str, dict[str, Any], Session], Reply]

# Messages in one batch: what its reply may hold is then bounded (a batch of small
# messages asking for large replies, e.g. tools/list pages, is the costliest case).
MAX_BATCH = 10_000

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
        except _JSONDecodeError as exc:
            return self.error_reply(None, parse_error(exc), session)
        return self.handle(message, session)

    def handle(self, message: Any, session: Session) -> Reply:
        """Handle one message already decoded (by ``exact_json.loads``)."""
        kind = type(message)
        if kind is dict:
            return self._one(message, session)
        if kind is list:
            return self._batch(message, session)
        return self.error_reply(None, invalid_request(message), session)

    def error_reply(
        self, request_id: RequestId | None, failure: RpcError, session: Session
    ) -> bytes:
        return (session.revision or self._fallback).error(request_id, failure)

    def _one(
        self,
        message: dict[str, Any],
        session: Session,
        held: bool = False,
        within: Within | None = None,
    ) -> Reply:
        """``held``: the caller took a slot of ``session.admission`` (of ``within``, for a
        batch member) for this request."""
        method = message.get("method")
        if "id" not in message:
            if type(method) is str:
                _notification(method, message.get("params"), session)
                return None
            if "result" in message or "error" in message:
                return None  # an answer to nothing we asked
            return self.error_reply(None, invalid_request(message), session)
        request_id = message["id"]
        if method is None and ("result" in message or "error" in message):
            session.outbound.answer(message)  # the client answers a request of ours
            return None
        id_type = type(request_id)
        if id_type is not str and id_type is not int:
            failure = RpcError(
                INVALID_REQUEST,
                "Invalid Request: id must be a string or an integer",
                invalid_request(message).data,
            )
            return self.error_reply(None, failure, session)
        if message.get("jsonrpc") != "2.0" or type(method) is not str:
            return jsonrpc.error(request_id, invalid_request(message))
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return jsonrpc.error(request_id, RpcError(INVALID_PARAMS, "params must be an object"))
        admission: Slots | Within | None = within or session.admission
        if admission is None or method == "ping":
            return self._route_safely(request_id, method, params, session)
        if not held and not admission.take_now():
            waiting = asyncio.ensure_future(
                self._later(request_id, method, params, session, admission)
            )
            session.track(request_id, waiting)  # cancelled while it waits: it never starts
            waiting.add_done_callback(lambda done: session.forget(request_id, done))
            return waiting
        reply = self._route_safely(request_id, method, params, session)
        if reply is None or type(reply) is bytes:
            admission.give()
            return reply
        running = asyncio.ensure_future(reply)  # type: ignore[arg-type]
        running.add_done_callback(lambda _: admission.give())
        return running

    def _route_safely(
        self, request_id: RequestId, method: str, params: dict[str, Any], session: Session
    ) -> Reply:
        try:
            return self._route(request_id, method, params, session)
        except RpcError as failure:
            return jsonrpc.error(request_id, failure)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return jsonrpc.error(request_id, RpcError(INTERNAL_ERROR, "Internal error"))

    async def _later(
        self,
        request_id: RequestId,
        method: str,
        params: dict[str, Any],
        session: Session,
        admission: Slots | Within,
    ) -> bytes | None:
        """A request that waits for a slot, then runs holding it until it is answered."""
        await admission.take()
        try:
            reply = self._route_safely(request_id, method, params, session)
            if reply is None or isinstance(reply, bytes):
                return reply
            answered: bytes | None = await reply
            return answered
        finally:
            admission.give()

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
        if len(messages) > MAX_BATCH:
            failure = RpcError(
                INVALID_REQUEST,
                f"Invalid Request: a batch of {len(messages)} messages; this server takes at "
                f"most {MAX_BATCH} in one batch (none was handled): send smaller batches",
                {"members": len(messages), "limit": MAX_BATCH},
            )
            return self.error_reply(None, failure, session)
        joined = _Joined()
        outer = session.admission
        admission = Within(outer) if outer is not None else None  # this request's share
        for index, message in enumerate(messages):
            if admission is not None and _needs_slot(message) and not admission.take_now():
                return self._batch_rest(messages, index, joined, session, admission)
            joined.add(self._member(message, index, session, admission))
        return joined.now() if joined.pending == 0 else joined.joined()

    async def _batch_rest(
        self,
        messages: list[Any],
        start: int,
        joined: _Joined,
        session: Session,
        admission: Within,
    ) -> bytes | None:
        """The members from ``start`` on, each request started once a slot is free."""
        for index in range(start, len(messages)):
            message = messages[index]
            if _needs_slot(message):
                await admission.take()
            joined.add(self._member(message, index, session, admission))
        return await joined.joined()

    def _member(self, message: Any, index: int, session: Session, within: Within | None) -> Reply:
        """One batch member's reply; with ``within``, a slot of it is taken when the member
        needs one."""
        if type(message) is not dict:
            failure = invalid_request(message)
            failure.data["index"] = index
            return self.error_reply(None, failure, session)
        if message.get("method") == "initialize" and is_request_id(message.get("id")):
            failure = RpcError(INVALID_REQUEST, "initialize must not be part of a batch")
            return jsonrpc.error(message["id"], failure)
        held = within is not None and _needs_slot(message)
        return self._one(message, session, held=held, within=within)


def _needs_slot(message: Any) -> bool:
    """Whether ``_one`` would route this batch member under a bound (the checks it makes
    before routing): a well-formed request other than ping and initialize."""
    if type(message) is not dict or "id" not in message or not is_request_id(message["id"]):
        return False
    method = message.get("method")
    params = message.get("params")
    return (
        type(method) is str
        and method not in ("ping", "initialize")
        and message.get("jsonrpc") == "2.0"
        and (params is None or type(params) is dict)
    )


class _Joined:
    """A batch's response, built as its members are answered (in the order they finish,
    as JSON-RPC allows): one buffer, never a list of per-member replies."""

    __slots__ = ("_body", "_finished", "pending")

    def __init__(self) -> None:
        self._body = bytearray(b"[")
        self.pending = 0
        self._finished: asyncio.Future[None] | None = None

    def add(self, reply: Reply) -> None:
        if reply is None:
            return
        if type(reply) is bytes:
            self._append(reply)
            return
        running = asyncio.ensure_future(reply)  # type: ignore[arg-type]
        self.pending += 1
        running.add_done_callback(self._settled)

    def _append(self, reply: bytes) -> None:
        if len(self._body) > 1:
            self._body += b","
        self._body += reply

    def _settled(self, running: asyncio.Future[bytes | None]) -> None:
        self.pending -= 1
        if not running.cancelled() and running.exception() is None:
            reply = running.result()  # a cancelled request gets no response
            if reply is not None:
                self._append(reply)
        if self.pending == 0 and self._finished is not None and not self._finished.done():
            self._finished.set_result(None)

    def now(self) -> bytes | None:
        if len(self._body) == 1:
            return None
        self._body += b"]"
        return bytes(self._body)

    async def joined(self) -> bytes | None:
        if self.pending:
            self._finished = asyncio.get_running_loop().create_future()
            await self._finished
        return self.now()


def parse_error(exc: ValueError) -> RpcError:
    """-32700 saying where the JSON broke (the decoder's position, line and column)."""
    reason = getattr(exc, "msg", None) or str(exc)
    data: dict[str, Any] = {"reason": shorten(str(reason))}
    for key, name in (("position", "pos"), ("line", "lineno"), ("column", "colno")):
        value = getattr(exc, name, None)
        if type(value) is int:
            data[key] = value
    return RpcError(PARSE_ERROR, "Parse error", data)


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    return _JSON_TYPES.get(type(value), "a number")


def invalid_request(message: Any) -> RpcError:
    """-32600 whose ``data`` says which member of the message is missing or wrong."""
    if type(message) is not dict:
        problem = f"a JSON-RPC message is an object, not {json_type(message)}"
        return RpcError(INVALID_REQUEST, "Invalid Request", {"problem": problem})
    member, problem = _wrong_member(message)
    return RpcError(INVALID_REQUEST, "Invalid Request", {"member": member, "problem": problem})


def _wrong_member(message: dict[str, Any]) -> tuple[str, str]:
    if "id" in message and not is_request_id(message["id"]):
        return "id", f"must be a string or an integer, not {json_type(message['id'])}"
    method = message.get("method")
    if "method" not in message:
        return "method", "missing: a request or notification names its method (a string)"
    if type(method) is not str:
        return "method", f"must be a string, not {json_type(method)}"
    version = message.get("jsonrpc")
    if "jsonrpc" not in message:
        return "jsonrpc", 'missing: every message carries "jsonrpc": "2.0"'
    quoted = shorten(repr(version)) if type(version) is str else json_type(version)
    return "jsonrpc", f'must be "2.0", not {quoted}'


def _notification(method: str, params: Any, session: Session) -> None:
    if method == "notifications/cancelled":
        if type(params) is dict:
            session.cancel(params.get("requestId"))
    elif method == "notifications/initialized":
        session.initialized = True
    # Any other notification (progress, roots changed, ...) asks nothing of a tools server.
