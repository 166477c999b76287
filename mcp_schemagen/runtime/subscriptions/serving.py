"""The server's side of subscriptions: what it declares, and the methods that subscribe.

Switched on per project (``Server(list_changed=..., subscribe=...)``, from the
``list-changed`` and ``resource-subscriptions`` keys of ``[tool.mcp-codegen]``); off,
none of these methods exists and no capability says otherwise.

- 2024-11-05 to 2025-11-25: ``resources/subscribe`` / ``resources/unsubscribe`` ``{uri}``
  add or remove the URI in the session's ``subscriptions``; a session hears
  ``notifications/resources/updated`` for those URIs and every declared
  ``notifications/KIND/list_changed`` once it is initialized: over stdio between
  responses (``follow``), over Streamable HTTP on its GET stream (``http/standalone.py``).
- 2026-07-28: ``subscriptions/listen`` opens a stream that starts with
  ``notifications/subscriptions/acknowledged`` (what the server agreed to of the
  client's filter: only what it declares) and carries exactly the notices the filter
  asked for, each tagged with the subscription id (the request's id) in ``_meta``. It
  ends when the client closes it (or cancels the request), or with a result when the
  server stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import orjson

from .. import jsonrpc
from ..jsonrpc import Reply, RequestId, RpcError
from ..protocol import INVALID_PARAMS
from ..session import Session
from ..session.request import RequestContext
from ..shorten import shorten
from .announce import serving
from .hub import Hub
from .notices import LIST_KINDS, META_SUBSCRIPTION_ID, UPDATED, Notice, notification

if TYPE_CHECKING:  # a stdio server never loads the store
    from ..store import Store

# SubscriptionFilter's list-changed flags, by the kind each asks for.
FILTER_FLAGS: tuple[tuple[str, str], ...] = (
    ("toolsListChanged", "tools"),
    ("promptsListChanged", "prompts"),
    ("resourcesListChanged", "resources"),
)
LEGACY_METHODS = frozenset({"resources/subscribe", "resources/unsubscribe"})


class Subscriptions:
    """``list_changed``: the kinds whose list_changed this server sends (and declares);
    ``subscribe``: whether clients may subscribe to resource updates."""

    def __init__(
        self, *, list_changed: Iterable[str], subscribe: bool, stamp: dict[str, Any]
    ) -> None:
        kinds = frozenset(list_changed)
        unknown = kinds.difference(LIST_KINDS)
        if unknown:
            raise ValueError(
                f"list_changed: unknown kind(s) {', '.join(sorted(unknown))}; "
                f"one of {', '.join(LIST_KINDS)}"
            )
        self.list_changed = kinds
        self.subscribe = subscribe
        self.enabled = bool(kinds) or subscribe
        self.stamp = stamp
        self.hub = Hub()

    # ------------------------------------------------------------------ lifecycle

    def start(self, store: Store | None) -> None:
        """The transport serves on the running loop: notices announced in this process
        (``announce.py``) travel through ``store`` (None: this process only)."""
        if self.enabled:
            self.hub.bind(store)
            serving(self.hub)

    async def stop(self) -> None:
        """The transport stops: listen streams end with their result."""
        await self.hub.close()

    # ------------------------------------------------------------------ capabilities

    def declare(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        """``capabilities`` with ``listChanged``/``subscribe`` set where switched on (a
        new dict; the kinds a server does not have stay undeclared)."""
        if not self.enabled:
            return capabilities
        declared = dict(capabilities)
        for kind in self.list_changed:
            if kind in declared:
                declared[kind] = {**declared[kind], "listChanged": True}
        if self.subscribe and "resources" in declared:
            declared["resources"] = {**declared["resources"], "subscribe": True}
        return declared

    def wants(self, notice: Notice, uris: Iterable[str]) -> bool:
        """Whether a session of the handshake era subscribed to ``uris`` hears
        ``notice``."""
        kind, uri = notice
        if kind == UPDATED:
            return self.subscribe and uri is not None and uri in uris
        return kind in self.list_changed

    # ------------------------------------------------------------------ methods

    def route(self, request: RequestContext) -> Reply:
        request_id, method, params, session = (
            request.id,
            request.method,
            request.params,
            request.session,
        )
        if method == "subscriptions/listen":
            agreed = self.agreed(params.get("notifications"))
            return self._listen(request_id, agreed, session)
        uri = params.get("uri")
        if type(uri) is not str or not uri:
            raise RpcError(INVALID_PARAMS, f"{method} needs params.uri, a resource URI (string)")
        subscribed = method == "resources/subscribe"
        if subscribed:
            session.subscriptions.add(uri)
        else:
            session.subscriptions.discard(uri)
        if session.subscription_changes is not None:
            session.subscription_changes.append((uri, subscribed))
        return jsonrpc.result(request_id, {})

    def follow(self, session: Session) -> Callable[[], None]:
        """Deliver to an in-process session of the handshake era (stdio) on its own
        ``send``; returns the function that stops it."""

        def deliver(notice: Notice) -> None:
            revision = session.revision
            if revision is None or revision.stateless or not session.initialized:
                return
            if self.wants(notice, session.subscriptions):
                session.send(notification(notice))

        return self.hub.attach(deliver)

    def agreed(self, wanted: Any) -> dict[str, Any]:
        """The part of a SubscriptionFilter this server honours (-32602 for one that is
        not a SubscriptionFilter)."""
        if type(wanted) is not dict:
            raise RpcError(
                INVALID_PARAMS, "subscriptions/listen needs params.notifications, an object"
            )
        agreed: dict[str, Any] = {}
        for flag, kind in FILTER_FLAGS:
            value = wanted.get(flag)
            if value is not None and type(value) is not bool:
                raise RpcError(
                    INVALID_PARAMS,
                    f"params.notifications.{flag} must be a boolean, got {shorten(repr(value))}",
                )
            if value and kind in self.list_changed:
                agreed[flag] = True
        uris = wanted.get("resourceSubscriptions")
        if uris is not None:
            if type(uris) is not list or any(type(u) is not str for u in uris):
                raise RpcError(
                    INVALID_PARAMS,
                    "params.notifications.resourceSubscriptions must be an array of URIs (strings)",
                )
            if self.subscribe:
                agreed["resourceSubscriptions"] = list(dict.fromkeys(uris))
        return agreed

    async def _listen(
        self, request_id: RequestId, agreed: dict[str, Any], session: Session
    ) -> bytes:
        meta = {META_SUBSCRIPTION_ID: request_id}
        acknowledged = {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": meta, "notifications": agreed},
        }
        session.send(orjson.dumps(acknowledged))
        kinds = {kind for flag, kind in FILTER_FLAGS if agreed.get(flag)}
        uris = frozenset(agreed.get("resourceSubscriptions", ()))

        def deliver(notice: Notice) -> None:
            kind, uri = notice
            if kind in kinds or (kind == UPDATED and uri in uris):
                session.send(notification(notice, meta))

        detach = self.hub.attach(deliver)
        try:
            closing = self.hub.closing
            if closing is None:  # not served by a transport: until cancelled
                await asyncio.Event().wait()
            else:
                await asyncio.shield(closing)
        finally:
            detach()
        body = {"resultType": "complete", "_meta": {**self.stamp, **meta}}
        return jsonrpc.result(request_id, body)
