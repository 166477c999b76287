"""What an HTTP endpoint is given: the request, a responder, and the core behind a narrow
interface, never the whole app (so the endpoints import neither the app nor the server).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..jsonrpc import Reply, RpcError
from ..protocol import Revision
from ..session import Session
from .wire import AsgiReceive, AsgiSend, send_body

JSON = b"application/json"
PLAIN_TEXT = b"text/plain; charset=utf-8"


class MessageCore(Protocol):
    """What an endpoint needs of the server: one message, decoded once by the app, handled
    for one session (``Server.handle``)."""

    def handle(self, message: Any, session: Session) -> Reply: ...


class Responder:
    """The HTTP responses an endpoint sends for one request (each exactly once)."""

    __slots__ = ("_fallback", "send")

    def __init__(self, send: AsgiSend, fallback: Revision) -> None:
        self.send = send
        self._fallback = fallback  # shapes errors that name no revision: the newest served

    async def respond(
        self,
        status: int,
        body: bytes,
        content_type: bytes | None,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        await send_body(self.send, status, body, content_type, headers)

    async def empty(self, status: int) -> None:
        await self.respond(status, b"", None)

    async def plain(self, status: int, text: bytes, allow: bytes | None = None) -> None:
        await self.respond(status, text, PLAIN_TEXT, [(b"allow", allow)] if allow else None)

    async def rpc_error(
        self,
        status: int,
        request_id: Any,
        failure: RpcError,
        revision: Revision | None = None,
        retry_after: int | None = None,
        close: bool = False,
    ) -> None:
        """An HTTP error whose body is the JSON-RPC error response (no id when there is no
        request to answer), in ``revision``'s form; ``retry_after`` seconds for a 503;
        ``close``: the connection ends after it (a body left unread)."""
        rid = request_id if type(request_id) in (str, int) else None
        extra = [(b"retry-after", b"%d" % retry_after)] if retry_after is not None else []
        if close:
            extra.append((b"connection", b"close"))
        await self.respond(status, (revision or self._fallback).error(rid, failure), JSON, extra)


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request as an endpoint gets it: header names in lower case; for a POST the body,
    its parsed ``message`` and which reply forms the client accepts."""

    headers: Mapping[str, str]
    receive: AsgiReceive
    respond: Responder
    body: bytes = b""
    message: Any = None
    json_ok: bool = True
    sse_ok: bool = True

    @property
    def send(self) -> AsgiSend:
        return self.respond.send
