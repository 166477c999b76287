"""The authorization layer in front of the MCP endpoint.

For every request to the endpoint: a bearer token in the Authorization header (never the
query string), valid for this resource; the scopes the request needs (the configured
ones, and the called tool's); a session only with the principal that opened it. Then the
principal is set for the handler and the request goes on (with ``list_tools =
"callable"``, so is the set of tools its tools/list shows: those the token can call). The
protected resource metadata is served at its well-known path; the health check stays open.

Nothing here logs a token: the log says why a token was refused, from the checks'
messages, which never quote it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

import orjson

from ..auth import binding
from ..auth.challenge import challenge, resource_metadata
from ..auth.keys import IssuerUnavailable
from ..auth.principal import Principal, enter
from ..auth.scopes import ScopePolicy
from ..auth.settings import AuthSettings
from ..auth.tokens import TokenRejected, verifier_for
from ..core.listing import MAX_VISIBLE_SETS, restrict_listing
from ..jsonrpc import RpcError
from ..protocol import INVALID_REQUEST
from ..store import Store
from .endpoint import Responder
from .settings import HttpSettings
from .wire import AsgiReceive, AsgiSend, BodyRefused, read_body

Admitted = tuple[AsgiReceive, AsgiSend]
WELL_KNOWN = "/.well-known/oauth-protected-resource"


class Guard:
    def __init__(
        self,
        settings: AuthSettings,
        tools: Iterable[tuple[str, Any]],
        http: HttpSettings,
        store: Store,
    ) -> None:
        """``tools``: each tool's name and its published definitions by revision (scopes)."""
        self.settings = settings
        self.http = http
        self.store = store
        self.verifier = verifier_for(settings)
        tools = list(tools)
        self.policy = ScopePolicy.of_tools(settings.scopes, tools)
        names = tuple(name for name, _ in tools)
        self.callable = (
            _callable_tools(names, self.policy) if settings.list_tools == "callable" else None
        )
        self.metadata = orjson.dumps(resource_metadata(settings, self.policy.supported()))
        path = http.path.rstrip("/")
        self.endpoint = (path, path + "/")
        self.metadata_paths = {settings.metadata_path, WELL_KNOWN + path, WELL_KNOWN}

    async def admit(
        self,
        scope: dict[str, Any],
        headers: dict[str, str],
        receive: AsgiReceive,
        respond: Responder,
    ) -> Admitted | None:
        """The (receive, send) to serve the request with, or None once it is answered."""
        path = scope["path"]
        if path in self.metadata_paths:
            await self._metadata(scope["method"], respond)
            return None
        if path not in self.endpoint:
            return receive, respond.send
        query = scope.get("query_string", b"").decode("latin-1")
        if any(name == "access_token" for name, _ in parse_qsl(query, keep_blank_values=True)):
            await self._refuse(respond, 400, (), "invalid_request", "send the token in the "
                               "Authorization header, never in the URL")  # fmt: skip
            return None
        message: Any = None
        if scope["method"] == "POST":
            try:
                body = await read_body(headers, receive, self.http)
            except BodyRefused as refused:
                failure = RpcError(INVALID_REQUEST, str(refused))
                await respond.rpc_error(refused.status, None, failure, close=True)
                return None
            receive = _replay(body, receive)
            try:
                message = orjson.loads(body)
            except orjson.JSONDecodeError:
                message = None  # the endpoint answers the parse error, once authorized
        needed = self.policy.needed(message)
        token = _bearer(headers.get("authorization"))
        if token is None:
            await self._refuse(respond, 401, needed)
            return None
        try:
            principal = await self.verifier.verify(token)
        except TokenRejected as exc:
            _log(f"token refused: {exc}")
            await self._refuse(
                respond, 401, needed, "invalid_token", "the access token is not valid"
            )
            return None
        except IssuerUnavailable as exc:
            _log(f"authorization server unavailable, request refused: {exc}")
            await respond.respond(
                503, b"Service Unavailable: authorization server unreachable",
                b"text/plain; charset=utf-8", [(b"retry-after", b"5")],
            )  # fmt: skip
            return None
        missing = [s for s in needed if s not in principal.scopes]
        if missing:
            await self._refuse(
                respond, 403, needed, "insufficient_scope", "the token lacks " + " ".join(missing)
            )
            return None
        session_id = headers.get("mcp-session-id")
        if session_id is not None:
            if not await binding.belongs_to(self.store, session_id, principal):
                _log("session presented with another principal's token: refused")
                failure = RpcError(INVALID_REQUEST, "Session not found: initialize a new session")
                request_id = message.get("id") if type(message) is dict else None
                await respond.rpc_error(404, request_id, failure)
                return None
            send = respond.send
        else:
            send = self._binding(respond.send, principal)
        enter(principal)  # this request's task (and what it starts) sees it
        if self.callable is not None:
            restrict_listing("tools", self.callable(principal.scopes))
        return receive, send

    # ------------------------------------------------------------------ helpers

    def _binding(self, send: AsgiSend, principal: Principal) -> AsgiSend:
        """``send`` that ties a session minted by this request to ``principal`` before the
        client learns its id."""
        store = self.store

        async def bound_send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", ()):
                    if name.lower() == b"mcp-session-id":
                        await binding.bind(store, value.decode("latin-1"), principal)
            await send(message)

        return bound_send

    async def _metadata(self, method: str, respond: Responder) -> None:
        if method not in ("GET", "HEAD"):
            await respond.plain(405, b"Method Not Allowed", allow=b"GET, HEAD")
            return
        body = self.metadata if method == "GET" else b""
        await respond.respond(
            200, body, b"application/json", [(b"access-control-allow-origin", b"*")]
        )

    async def _refuse(
        self,
        respond: Responder,
        status: int,
        needed: tuple[str, ...],
        error: str | None = None,
        description: str | None = None,
    ) -> None:
        header = challenge(self.settings, needed, error, description)
        text = {400: b"Bad Request", 401: b"Unauthorized", 403: b"Forbidden"}[status]
        body = orjson.dumps({"error": error or "unauthorized", "error_description": description})
        await respond.respond(
            status, body if error else text, b"application/json" if error else None,
            [(b"www-authenticate", header)],
        )  # fmt: skip


def _callable_tools(
    names: tuple[str, ...], policy: ScopePolicy
) -> Callable[[frozenset[str]], frozenset[str]]:
    """The names of the tools a token with the given scopes can call (the base scopes it
    holds, or it is refused before listing), remembered for the sets of scopes seen most."""

    @lru_cache(maxsize=MAX_VISIBLE_SETS)
    def visible(scopes: frozenset[str]) -> frozenset[str]:
        return frozenset(n for n in names if scopes.issuperset(policy.tools.get(n, ())))

    return visible


def _replay(body: bytes, after: AsgiReceive) -> AsgiReceive:
    """A receive that hands the endpoint the body already read, then the server's own
    (which reports the disconnect)."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await after()

    return receive


def _bearer(value: str | None) -> str | None:
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    token = token.strip(" ")
    if scheme.lower() != "bearer" or not token or " " in token:
        return None
    return token


def _log(line: str) -> None:
    print(f"mcp-codegen auth: {line}", file=sys.stderr, flush=True)
