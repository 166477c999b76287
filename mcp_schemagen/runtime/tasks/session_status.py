"""2025-11-25's ``notifications/tasks/status`` over Streamable HTTP, on whichever stream
of the session is open, at whichever worker holds it.

Over HTTP the ``tools/call`` that made a task was answered with it, so no stream of that
call is left. Every status written to the store is announced through the store's pub/sub
(``TaskStore.on_status``, the subscriptions hub); each worker offers it to the streams it
holds, and the session's own stream sends the task as ``tasks/get`` shows it:

- a ``tasks/result`` of the task, waiting at any worker, on its SSE stream (before the
  result), the terminal status included;
- otherwise the session's standalone GET stream (http/standalone.py), at any worker.

One stream, not both (the transport's rule: a message goes on one stream): while a
``tasks/result`` waits it marks the record (``resultWaiting``), and the GET stream leaves
that task's statuses to it. Over stdio the session has one stream and legacy.py sends
there directly.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from .. import jsonrpc
from ..session import Session
from ..store import StoreUnavailable
from ..store.tasks import TaskStore
from ..subscriptions.notices import TASK, Notice
from .records import core_of
from .records import task_of as shared_task_of

STATUS_NOTIFICATION = "notifications/tasks/status"
RESULT_WAITING = "resultWaiting"  # "1" while a tasks/result of the task waits somewhere
_LEGACY_NAMES = {"ttlMs": "ttl", "pollIntervalMs": "pollInterval"}

Attach = Callable[[Callable[[Notice], None]], Callable[[], None]]


def task_of(record: Mapping[str, str]) -> dict[str, Any]:
    """2025-11-25's ``Task``: the shape the extension's shares, its lifetimes named ``ttl``
    and ``pollInterval`` (milliseconds too)."""
    return {_LEGACY_NAMES.get(key, key): value for key, value in shared_task_of(record).items()}


def status_message(record: Mapping[str, str]) -> bytes:
    return jsonrpc.notification(STATUS_NOTIFICATION, task_of(record))


async def for_get_stream(store: TaskStore, task_id: str, session_id: str) -> bytes | None:
    """The notification of the task's status for the session's GET stream; None when the
    task is not the session's (or gone) or a tasks/result of it carries it."""
    record = await store.read(task_id)
    if record is None or core_of(record).get("session", "") != session_id:
        return None
    if record.get(RESULT_WAITING) == "1":
        return None
    return status_message(record)


class ResultStream:
    """The status notifications of one task on the stream of a tasks/result waiting for
    it (``session``: that request's)."""

    def __init__(self, store: TaskStore, attach: Attach | None, session: Session, task_id: str):
        self._store, self._attach, self._session, self._task_id = store, attach, session, task_id
        self._changed: asyncio.Queue[None] = asyncio.Queue()
        self._last: dict[str, Any] | None = None
        self._detach: Callable[[], None] | None = None
        self._sender: asyncio.Future[None] | None = None

    async def start(self) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self._store.write(self._task_id, {RESULT_WAITING: "1"}, clear_questions=False)
        if self._attach is not None:
            self._detach = self._attach(self._heard)
            self._sender = asyncio.ensure_future(self._send_forever())

    def _heard(self, notice: Notice) -> None:
        if notice == (TASK, self._task_id):
            self._changed.put_nowait(None)

    async def _send_forever(self) -> None:
        while True:
            await self._changed.get()
            with contextlib.suppress(StoreUnavailable):
                record = await self._store.read(self._task_id)
                if record is not None:
                    self.send(record)

    def send(self, record: Mapping[str, str]) -> None:
        """The task's status now, unless this stream carried that very state last."""
        task = task_of(record)
        if task != self._last:
            self._last = task
            self._session.send(jsonrpc.notification(STATUS_NOTIFICATION, task))

    async def stop(self) -> None:
        if self._detach is not None:
            self._detach()
        if self._sender is not None:
            self._sender.cancel()
        with contextlib.suppress(StoreUnavailable):  # a finished task keeps it: harmless
            await self._store.write(self._task_id, {RESULT_WAITING: ""}, clear_questions=False)
