"""Streamable HTTP: the MCP endpoint as an ASGI app, for every revision the server speaks.

    app = create_app(SERVER)            # settings from the environment (settings.py)
    uvicorn PACKAGE.asgi:app            # or python -m PACKAGE --http

One endpoint (``/mcp`` by default) serves both eras, told apart per request: a body whose
``_meta`` carries ``io.modelcontextprotocol/protocolVersion``, or an
``MCP-Protocol-Version`` header naming a stateless revision, is 2026-07-28 (stateless,
POST only, request metadata headers checked against the body); anything else belongs to
a session (2025-03-26 to 2025-11-25: ``Mcp-Session-Id`` minted at initialize, GET to
resume a stream, DELETE to end the session). Both hand the message to the same
``Server`` core the stdio transport uses, so every reply body is the message stdio
would send. Whatever another worker must see lives in the store (``store.py``). The
endpoints get each request as an ``HttpRequest`` with its ``Responder``, and the server
only as the ``MessageCore`` it is to them (endpoint.py).

Checked before anything is parsed: the path (404), Host (421) and Origin (403) against
the allow-lists, the method (405), Content-Type (415), Accept (406), the body size
(413) and the body's arrival within ``body_timeout_seconds`` (408, then the connection
closes). Requests of this process run under one bound (``max_inflight``; the rest wait
for a slot, see session/admission.py). The 2024-11-05 HTTP+SSE transport is deprecated and not served.
"""

from __future__ import annotations

import asyncio
import sys
import traceback
from typing import TYPE_CHECKING, Any

import orjson

from ..auth.principal import current_principal
from ..core.envelope import parse_error
from ..exact_json import loads as exact_loads
from ..jsonrpc import RpcError
from ..protocol import BY_NAME, INTERNAL_ERROR, INVALID_REQUEST, newest
from ..server import Server
from ..session.admission import Slots
from ..store import Store, StoreUnavailable
from ..store.url import open_store
from ..tasks.stores import attach
from .auth_setup import guard_for
from .endpoint import JSON, HttpRequest, Responder
from .headers import accepts, decode_headers, host_allowed, origin_allowed, param_headers
from .sessions import SessionEndpoint
from .settings import HttpSettings
from .standalone import StandaloneStreams
from .stateless import StatelessEndpoint
from .wire import AsgiReceive, AsgiSend, BodyRefused, read_body

if TYPE_CHECKING:  # the guard (and what it imports: urllib, http.client) only when auth is on
    from .auth_guard import Guard
    from .open_access import LoopbackOnly

Headers = dict[str, str]


class McpHttpApp:
    """The ASGI application. ``store`` defaults to the one ``settings.store`` names."""

    def __init__(
        self, server: Server, settings: HttpSettings | None = None, store: Store | None = None
    ) -> None:
        self.server = server
        # Each request's principal (RequestContext) is the one the guard admitted it with.
        server.principal_of = current_principal
        self.settings = settings if settings is not None else HttpSettings.from_environment()
        self.store = (
            store
            if store is not None
            else open_store(
                self.settings.store,
                session_ttl=self.settings.session_ttl_seconds,
                event_ttl=self.settings.event_ttl_seconds,
            )
        )
        self._newest = newest(r.name for r in server.revisions)
        # One bound on running requests for every HTTP request this process serves.
        self.admission = Slots(self.settings.max_inflight)
        self.sessions = SessionEndpoint(
            server, server.revisions, self.store, self.settings, self.admission,
            StandaloneStreams(server.subscriptions, self.store),
        )  # fmt: skip
        params = {name: param_headers(t.entry.input_schema) for name, t in server.tools.items()}
        self.stateless = StatelessEndpoint(
            server,
            server.revisions,
            server.supported,
            params,
            server.negotiation.serves,
            self.admission,
        )
        self.store.on_cancel = self.sessions.cancel_local
        self.guard = self._guard()  # authorization (auth/), None when not configured
        self._started: asyncio.Future[None] | None = None
        self._health = (
            self.settings.path.rstrip("/") + "/health",
            *self.settings.extra_health_paths,
        )
        self._ready = (self.settings.path.rstrip("/") + "/ready", "/readyz")

    # ------------------------------------------------------------------ ASGI

    def _guard(self, defaults: dict[str, str] | None = None) -> Guard | LoopbackOnly | None:
        tools = ((name, tool.entry.published) for name, tool in self.server.tools.items())
        return guard_for(tools, self.settings, self.store, defaults)

    async def __call__(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        kind = scope["type"]
        if kind == "http":
            started: list[bool] = []  # the response began: too late for a 503

            async def watched(message: dict[str, Any]) -> None:
                started.append(True)
                await send(message)

            try:
                if self._started is None or not self._started.done():
                    await self.start()
                await self._http(scope, receive, watched)
            except StoreUnavailable as exc:  # an outage, not a bug: 503, JSON-RPC body
                if not started:
                    failure = RpcError(INTERNAL_ERROR, str(exc))
                    outage = Responder(send, self._newest)
                    await outage.rpc_error(503, None, failure, retry_after=exc.retry_after_seconds)
            except Exception:  # a bug: answer 500 rather than drop the connection
                traceback.print_exc(file=sys.stderr)
                raise
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    async def start(self) -> None:
        if self._started is None:
            self._started = asyncio.get_running_loop().create_future()
            try:
                await self.store.start()
                self.server.subscriptions.start(self.store)  # notices cross workers by it
                if self.server.tasks is not None:  # tasks live where the sessions do
                    attach(self.server.tasks, self.store, self.settings.task_engine)
            except BaseException as exc:
                self._started.set_exception(exc)
                self._started.exception()  # raised below: no "never retrieved" at exit
                self._started = None
                raise
            self._started.set_result(None)
        await self._started

    async def _lifespan(self, receive: AsgiReceive, send: AsgiSend) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.start()
                except Exception as exc:
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.server.subscriptions.stop()  # listen streams end with a result
                engine = self.server.tasks.engine if self.server.tasks is not None else None
                if engine is not None:  # its Redis connections, before the store's
                    await engine.close()
                await self.store.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # ------------------------------------------------------------------ routing

    async def _http(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        headers: Headers = decode_headers(scope["headers"])
        method = scope["method"]
        path = scope["path"]
        settings = self.settings
        respond = Responder(send, self._newest)
        host = headers.get("host")
        if host is None or not host_allowed(host, settings.allowed_hosts):
            await respond.plain(421, b"Misdirected Request: Host not allowed")
            return
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(
            origin, settings.allowed_hosts, settings.allowed_origins
        ):
            await respond.rpc_error(403, None, RpcError(INVALID_REQUEST, "Origin not allowed"))
            return
        if self.guard is not None:
            admitted = await self.guard.admit(scope, headers, receive, respond)
            if admitted is None:
                return
            receive, send = admitted
            respond = Responder(send, self._newest)
        if path in self._health:
            await respond.respond(200, b'{"status":"ok"}', JSON)
            return
        if path in self._ready:  # readiness: the store answers (liveness is above)
            ready = await self.store.ready()
            body = b'{"status":"ready"}' if ready else b'{"status":"store unavailable"}'
            await respond.respond(200 if ready else 503, body, JSON)
            return
        if path != settings.path and path != settings.path + "/":
            await respond.plain(404, b"Not Found")
            return
        version = headers.get("mcp-protocol-version")
        if method == "POST":
            await self._post(headers, receive, respond)
        elif method in ("GET", "DELETE"):
            revision = BY_NAME.get(version) if version is not None else None
            request = HttpRequest(headers, receive, respond)
            if revision is not None and revision.stateless:
                await respond.plain(405, b"Method Not Allowed", allow=b"POST")
            elif method == "GET":
                await self.sessions.get(request)
            else:
                await self.sessions.delete(request)
        else:
            await respond.plain(405, b"Method Not Allowed", allow=b"GET, POST, DELETE")

    async def _post(self, headers: Headers, receive: AsgiReceive, respond: Responder) -> None:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            await respond.rpc_error(
                415, None, RpcError(INVALID_REQUEST, "Content-Type must be application/json")
            )
            return
        json_ok, sse_ok = accepts(headers.get("accept"))
        if not (json_ok or sse_ok):
            failure = RpcError(
                INVALID_REQUEST, "Not Acceptable: accept application/json and text/event-stream"
            )
            await respond.rpc_error(406, None, failure)
            return
        try:
            body = await read_body(headers, receive, self.settings)
        except BodyRefused as refused:
            await respond.rpc_error(
                refused.status, None, RpcError(INVALID_REQUEST, str(refused)), close=True
            )
            return
        try:
            message = exact_loads(body)  # integers beyond 64 bits stay integers
        except orjson.JSONDecodeError as exc:
            await respond.rpc_error(400, None, parse_error(exc))
            return
        request = HttpRequest(headers, receive, respond, body, message, json_ok, sse_ok)
        if self._is_stateless(message, headers.get("mcp-protocol-version")):
            await self.stateless.post(request)
        else:
            await self.sessions.post(request)

    @staticmethod
    def _is_stateless(message: Any, version: str | None) -> bool:
        if type(message) is dict:
            params = message.get("params")
            if type(params) is dict:
                meta = params.get("_meta")
                if type(meta) is dict and "io.modelcontextprotocol/protocolVersion" in meta:
                    return True
        revision = BY_NAME.get(version) if version is not None else None
        return revision is not None and revision.stateless


def create_app(
    server: Server,
    settings: HttpSettings | None = None,
    authorization: dict[str, str] | None = None,
) -> McpHttpApp:
    """The ASGI app for ``server``; ``settings`` default to the environment's,
    ``authorization`` (MCP_AUTH_* values from pyproject) yield to it."""
    app = McpHttpApp(server, settings)
    if authorization:
        app.guard = app._guard(authorization)
    return app


__all__ = ["McpHttpApp", "create_app"]
