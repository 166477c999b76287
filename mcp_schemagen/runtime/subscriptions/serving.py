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
  server stops. A server with tasks also agrees to a filter's ``taskIds`` (the tasks
  extension, SEP-2663; -32021 for a client that does not declare it) and sends
  ``notifications/tasks`` with the task's ``DetailedTask`` as the stream opens and each
  time its status changes, only to a listener the task belongs to (``task_status`` decides, tasks/serving.py).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from .. import jsonrpc
from ..jsonrpc import Reply, RpcError
from ..protocol import INVALID_PARAMS, META_CLIENT_CAPABILITIES, MISSING_REQUIRED_CLIENT_CAPABILITY
from ..session import Session
from ..session.request import RequestContext
from ..shorten import shorten
from .announce import serving
from .hub import Hub
from .notices import LIST_KINDS, META_SUBSCRIPTION_ID, TASK, UPDATED, Notice, notification

if TYPE_CHECKING:  # a stdio server never loads the store
    from ..store import Store

# SubscriptionFilter's list-changed flags, by the kind each asks for.
FILTER_FLAGS: tuple[tuple[str, str], ...] = (
    ("toolsListChanged", "tools"),
    ("promptsListChanged", "prompts"),
    ("resourcesListChanged", "resources"),
)
LEGACY_METHODS = frozenset({"resources/subscribe", "resources/unsubscribe"})
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

# The params of a task's notifications/tasks for a listener's request, None when the
# task is not the listener's (or gone): set by a server with tasks (tasks/serving.py).
TaskStatus = Callable[[RequestContext, str], Awaitable[dict[str, Any] | None]]


class Subscriptions:
    """``list_changed``: the kinds whose list_changed this server sends (and declares);
    ``subscribe``: whether clients may subscribe to resource updates; ``tasks``: whether
    the server has tasks (their status is heard on listen streams)."""

    def __init__(
        self,
        *,
        list_changed: Iterable[str],
        subscribe: bool,
        stamp: dict[str, Any],
        tasks: bool = False,
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
        self.enabled = bool(kinds) or subscribe  # the project's subscriptions: declared
        # Notices are carried (the hub bound, the GET stream served) for those and for
        # tasks, whose status listeners hear (subscriptions/listen, and 2025-11-25's GET
        # stream); tasks serve subscriptions/listen only, not resources/subscribe.
        self.carries = self.enabled or tasks
        self.stamp = stamp
        self.hub = Hub()
        self.task_status: TaskStatus | None = None
        # A task's 2025-11-25 notifications/tasks/status for a session's GET stream (task
        # id, session id; None: not the session's to hear): set by a server with tasks.
        self.session_task_status: Callable[[str, str], Awaitable[bytes | None]] | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self, store: Store | None) -> None:
        """The transport serves on the running loop: notices announced in this process
        (``announce.py``) travel through ``store`` (None: this process only)."""
        if self.carries:
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
            agreed = self.agreed(params.get("notifications"), request.meta)
            return self._listen(request, agreed)
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

    def agreed(self, wanted: Any, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
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
        task_ids = wanted.get("taskIds")
        if task_ids is not None:
            if type(task_ids) is not list or any(type(t) is not str for t in task_ids):
                raise RpcError(
                    INVALID_PARAMS, "params.notifications.taskIds must be an array of task ids"
                )
            if self.task_status is not None and task_ids:
                if not _declares_tasks(meta):
                    raise RpcError(
                        MISSING_REQUIRED_CLIENT_CAPABILITY,
                        "Missing required client capability: task status notifications"
                        f" (taskIds) need the tasks extension ({TASKS_EXTENSION}) declared"
                        " in the request's client capabilities",
                        {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
                    )
                # Every id asked for is agreed: which are the listener's is decided per
                # notice, so the acknowledgement tells nothing of other principals' tasks.
                agreed["taskIds"] = list(dict.fromkeys(task_ids))
        return agreed

    async def _listen(self, request: RequestContext, agreed: dict[str, Any]) -> bytes:
        request_id, session = request.id, request.session
        meta = {META_SUBSCRIPTION_ID: request_id}
        acknowledged = {
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {"_meta": meta, "notifications": agreed},
        }
        session.send(orjson.dumps(acknowledged))
        kinds = {kind for flag, kind in FILTER_FLAGS if agreed.get(flag)}
        uris = frozenset(agreed.get("resourceSubscriptions", ()))
        task_ids = frozenset(agreed.get("taskIds", ()))
        changed: asyncio.Queue[str] = asyncio.Queue()

        def deliver(notice: Notice) -> None:
            kind, uri = notice
            if kind == TASK:
                if uri is not None and uri in task_ids:
                    changed.put_nowait(uri)
            elif kind in kinds or (kind == UPDATED and uri in uris):
                session.send(notification(notice, meta))

        for task_id in task_ids:  # each task as it is now: a change before the listen
            changed.put_nowait(task_id)  # began (it often does) is not missed
        detach = self.hub.attach(deliver)
        statuses = asyncio.ensure_future(self._task_statuses(request, changed, meta))
        try:
            closing = self.hub.closing
            if closing is None:  # not served by a transport: until cancelled
                await asyncio.Event().wait()
            else:
                await asyncio.shield(closing)
        finally:
            detach()
            statuses.cancel()
        body = {"resultType": "complete", "_meta": {**self.stamp, **meta}}
        return jsonrpc.result(request_id, body)

    async def _task_statuses(
        self, request: RequestContext, changed: asyncio.Queue[str], meta: dict[str, Any]
    ) -> None:
        """Send ``notifications/tasks`` for each task heard of, in the order heard: the
        task as ``tasks/get`` answers it now, when it is the listener's; never the same
        state twice in a row (two changes read after both happened)."""
        last: dict[str, dict[str, Any]] = {}
        while True:
            task_id = await changed.get()
            if self.task_status is None:
                continue
            try:
                params = await self.task_status(request, task_id)
            except Exception as exc:  # the store away a moment: polling still tells
                print(f"subscriptions: task {task_id} unread: {exc!r}", file=sys.stderr)
                continue
            if params is not None and last.get(task_id) != params:
                last[task_id] = params
                message = {
                    "jsonrpc": "2.0",
                    "method": "notifications/tasks",
                    "params": {**params, "_meta": meta},
                }
                request.session.send(orjson.dumps(message))


def _declares_tasks(meta: Mapping[str, Any] | None) -> bool:
    capabilities = None if meta is None else meta.get(META_CLIENT_CAPABILITIES)
    extensions = capabilities.get("extensions") if type(capabilities) is dict else None
    return type(extensions) is dict and type(extensions.get(TASKS_EXTENSION)) is dict
