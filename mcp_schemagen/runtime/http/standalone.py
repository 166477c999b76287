"""The GET stream of a Streamable HTTP session (2025-03-26 to 2025-11-25): what the
server sends the session outside any call, here its change notifications and the status
notifications of its 2025-11-25 tasks (tasks/session_status.py).

A session opens it with ``GET`` (no ``Last-Event-ID``), once initialized, at whichever
worker the balancer picks; that worker delivers every notice the hub offers it that the
session wants. The session's subscriptions live in the store
(``Store.change_subscriptions``: ``resources/subscribe`` may reach another worker), read
when a notice arrives, so a subscription made anywhere counts at once and a session that
ended (DELETE, expiry) ends its stream. One stream per session
in a worker: a newer GET replaces the older. The stream is not resumable (its events
carry no id): a notice is a hint to read again, not data a client must not miss.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ..store import Store, StoreUnavailable
from ..subscriptions.notices import TASK, Notice, notification
from ..subscriptions.serving import Subscriptions
from .endpoint import HttpRequest
from .stream import SSE_HEADERS, sse_event


class _SessionEnded(Exception):
    pass


class StandaloneStreams:
    """The GET streams this worker holds, one per session."""

    def __init__(self, subscriptions: Subscriptions, store: Store) -> None:
        self.subscriptions = subscriptions
        self.store = store
        self._open: dict[str, asyncio.Future[None]] = {}  # session -> ends its stream

    @property
    def enabled(self) -> bool:
        return self.subscriptions.carries

    def end(self, session_id: str) -> None:
        """End the session's stream in this worker, if it has one (the session ended)."""
        ending = self._open.pop(session_id, None)
        if ending is not None and not ending.done():
            ending.set_result(None)

    async def serve(self, request: HttpRequest, session_id: str, initialized: bool) -> None:
        """Serve the stream until the client leaves, the session ends or the server stops
        (``initialized``: the session was, when the stream opened; until it is, nothing is
        sent)."""
        self.end(session_id)
        ending = self._open[session_id] = asyncio.get_running_loop().create_future()
        queue: asyncio.Queue[Notice] = asyncio.Queue()
        detach = self.subscriptions.hub.attach(queue.put_nowait)
        send = request.send
        headers = [*SSE_HEADERS, (b"mcp-session-id", session_id.encode())]
        waiters: set[asyncio.Future[Any]] = {
            ending,
            asyncio.ensure_future(_disconnected(request)),
        }
        closing = self.subscriptions.hub.closing
        if closing is not None:
            waiters.add(asyncio.ensure_future(asyncio.shield(closing)))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            # An SSE comment: the client sees the stream open (some wait for a first byte).
            await send({"type": "http.response.body", "body": b": open\n\n", "more_body": True})
            while True:
                getting = asyncio.ensure_future(queue.get())
                await asyncio.wait(waiters | {getting}, return_when=asyncio.FIRST_COMPLETED)
                if not getting.done():
                    getting.cancel()
                    break
                try:
                    if not initialized:
                        record = await self.store.load_session(session_id)
                        initialized = bool(record and record.get("initialized"))
                    message = await self._message(session_id, getting.result())
                except _SessionEnded:
                    break
                except StoreUnavailable:
                    continue  # a Redis restart loses this notice, not the stream
                if not initialized:
                    continue
                if message is not None:
                    event = sse_event(message)
                    await send({"type": "http.response.body", "body": event, "more_body": True})
            with contextlib.suppress(OSError):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away
        finally:
            detach()
            for waiter in waiters:
                if waiter is not ending:
                    waiter.cancel()
            if self._open.get(session_id) is ending:
                del self._open[session_id]

    async def _message(self, session_id: str, notice: Notice) -> bytes | None:
        """The notification for the session, None when it does not want this notice."""
        uris = await self.store.subscriptions_of(session_id)
        if uris is None:
            raise _SessionEnded
        kind, task_id = notice
        if kind == TASK:  # a 2025-11-25 task of the session changed status (tasks/)
            status = self.subscriptions.session_task_status
            return None if status is None or task_id is None else await status(task_id, session_id)
        if not self.subscriptions.wants(notice, uris):
            return None
        return notification(notice)


async def _disconnected(request: HttpRequest) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
