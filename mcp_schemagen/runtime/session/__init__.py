"""One client connection's state: negotiated revision, log level, requests in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..jsonrpc import RequestId, RpcError, Send
from ..protocol import INVALID_REQUEST, Revision
from ..workers import from_any_thread
from .admission import Slots
from .outbound import Outbound


def _discard(_message: bytes) -> None:
    pass


def _nothing() -> None:
    pass


class Session:
    """State the handshake era keeps per connection (the stateless era keeps none).

    ``send`` writes one complete JSON-RPC message (a notification) to the client.
    """

    __slots__ = (
        "admission",
        "call_scoped",
        "client_capabilities",
        "client_info",
        "close_stream",
        "inflight",
        "initialized",
        "key",
        "log_rank",
        "outbound",
        "revision",
        "send",
        "subscription_changes",
        "subscriptions",
    )

    def __init__(self, send: Send | None = None) -> None:
        # Sends come from worker threads too (sync handlers): they reach ``send`` on the
        # event loop's thread, since no transport is thread-safe.
        self.send: Send = from_any_thread(send) if send is not None else _discard
        self.revision: Revision | None = None  # set by initialize
        self.initialized = False  # set by notifications/initialized
        self.log_rank = 0  # logging/setLevel; every level until the client sets one
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self.inflight: dict[RequestId, asyncio.Task[Any]] = {}
        # Over HTTP, ends the SSE stream of the call in progress (the client resumes it
        # with Last-Event-ID); other transports have no stream to close.
        self.close_stream: Callable[[], None] = _nothing
        self.outbound = Outbound()  # requests this server sent the client, awaiting answers
        # The transport's bound on requests running at once (HTTP: one for the process;
        # admission.py); None: requests start as they come (stdio bounds them itself).
        self.admission: Slots | None = None
        self.subscriptions: set[str] = set()  # resources/subscribe URIs (subscriptions/)
        # (uri, subscribed) in order, recorded only where a list is set (HTTP: the store
        # applies them; over stdio the set is the whole truth).
        self.subscription_changes: list[tuple[str, bool]] | None = None
        # What binds a task to this session (tasks/runner.py): HTTP's Mcp-Session-Id,
        # set by the transport; elsewhere (stdio's one session) made on first use.
        self.key: str | None = None
        # True where this object lives for one request only (HTTP): its stream ends with
        # the request, so what outlives it (a 2025-11-25 task) asks on a later one's.
        self.call_scoped = False

    def binding_key(self) -> str:
        if self.key is None:
            # Imported here: only a task tool binds a record to its session, and secrets
            # brings hashlib and hmac into a stdio server's start-up (test_startup_imports).
            import secrets

            self.key = secrets.token_urlsafe(16)
        return self.key

    def track(self, request_id: RequestId, task: asyncio.Task[Any]) -> None:
        self.inflight[request_id] = task

    def forget(self, request_id: RequestId, task: asyncio.Task[Any] | None) -> None:
        if self.inflight.get(request_id) is task:
            del self.inflight[request_id]

    def cancel(self, request_id: Any) -> bool:
        """Cancel the handler running for ``request_id``; False when none is running."""
        try:
            task = self.inflight.pop(request_id)
        except (KeyError, TypeError):
            return False
        task.cancel()
        return True


def already_initialized(revision: Revision) -> RpcError:
    """The answer to a second initialize. The lifecycle makes initialization the first
    interaction, once: a second one must not change the revision under requests already
    answered in the first."""
    return RpcError(
        INVALID_REQUEST,
        f"Invalid Request: the connection is already initialized (protocol revision"
        f" {revision.name}); initialize is accepted once per connection, open a new"
        " connection to negotiate again",
    )
