"""One call's outbound channel over HTTP, and the response that carries it.

``CallChannel`` is what a call's ``Session.send`` writes to: every notification
(log, progress) and, for the interactive-tools work, every request the server sends the
client during that call. Messages queue until the transport knows how to answer:

- the call finished at once and sent nothing: one ``application/json`` response;
- otherwise an SSE stream (``text/event-stream``, ``X-Accel-Buffering: no``) carries the
  queued messages, those that follow, and the final response, which ends it.

In the session revisions a stream is resumable: it starts with a priming event (an id,
empty data, ``retry``), and every event is also appended to the store under the stream's
key, so a client whose stream closed (the network, a proxy, or the handler's
``Context.close_stream()``) resumes with ``GET`` + ``Last-Event-ID`` at any worker and
receives what it missed and what follows, never another stream's events. In 2026-07-28
streams are not resumable, and the client closing one cancels the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from typing import Any

from ..jsonrpc import Reply, RequestId
from ..store import Store
from .endpoint import HttpRequest
from .wire import AsgiReceive, AsgiSend, send_body

SSE_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


def sse_event(data: bytes, event_id: str | None = None, retry_ms: int | None = None) -> bytes:
    """One SSE event; orjson output holds no newline, so data is one line."""
    head = b""
    if event_id is not None:
        head += b"id: " + event_id.encode() + b"\n"
    if retry_ms is not None:
        head += b"retry: %d\n" % retry_ms
    if not data:
        return head + b"data: \n\n"  # the priming event
    return head + b"event: message\ndata: " + data + b"\n\n"


class CallChannel:
    """The outbound messages of one call (``send``), and its stream's closing (``close``)."""

    __slots__ = ("_wake", "close_requested", "pending")

    def __init__(self) -> None:
        self.pending: list[bytes] = []
        self.close_requested = False
        self._wake: asyncio.Event | None = None

    def send(self, message: bytes) -> None:
        self.pending.append(message)
        if self._wake is not None:
            self._wake.set()

    def close(self) -> None:
        self.close_requested = True
        if self._wake is not None:
            self._wake.set()

    async def wait(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        if not self.pending and not self.close_requested:
            await self._wake.wait()
        self._wake.clear()


class Resumable:
    """Where a session stream's events are kept: the store, under ``key``; clients see
    event ids ``<stream>/<sequence>``.

    A POST's stream is named (96 random bits) only when it opens: most calls are
    answered in one JSON response, which needs no name, no store write and no lease. ``requests`` are the ids the stream will answer (tracked by the store when
    it opens, so a reader elsewhere can tell a lost call from a slow one)."""

    __slots__ = (
        "_key", "_stream", "opened", "priming", "requests", "retry_ms", "session_id", "store"
    )  # fmt: skip

    def __init__(
        self,
        store: Store,
        session_id: str,
        stream: str | None,
        retry_ms: int,
        *,
        priming: bool,
        requests: list[RequestId] | None = None,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self._stream = stream  # None: drawn when first needed
        self._key: str | None = None
        self.retry_ms = retry_ms
        self.priming = priming  # 2025-11-25: an id with empty data opens the stream
        self.requests = requests
        self.opened = False

    @property
    def stream(self) -> str:
        if self._stream is None:
            self._stream = secrets.token_urlsafe(12)
        return self._stream

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = f"{self.session_id}/{self.stream}"
        return self._key

    def event_id(self, sequence: int) -> str:
        return f"{self.stream}/{sequence}"

    async def open(self) -> None:
        """Make the stream known to the store (a client may resume it from now on), with
        the calls it answers and this worker's lease on them."""
        if self.requests is not None:
            self.store.track_calls(self.key, self.requests)
        self.opened = True
        await self.store.open_stream(self.key)

    async def release(self) -> None:
        """The stream's calls are over: drop the lease (nothing to do if never opened)."""
        if self.opened:
            await self.store.release_calls(self.key)


# The core's reply once started: an awaitable reply is a future, already running.
Started = bytes | asyncio.Future[bytes | None] | None


def settle(reply: Reply) -> Started:
    """The core's reply with any awaitable made a future (a task runs it now)."""
    if reply is None or isinstance(reply, bytes | asyncio.Future):
        return reply
    return asyncio.ensure_future(reply)


async def answer(
    request: HttpRequest,
    channel: CallChannel,
    reply: Started,
    *,
    status_of: Callable[[bytes], int],
    headers: list[tuple[bytes, bytes]],
    resumable: Resumable | None,
) -> None:
    """Answer a POST that carried requests: JSON when the reply is ready with nothing
    sent before it (the fast, common case), else an SSE stream. ``resumable`` None means
    2026-07-28, where the client closing the connection cancels the call."""
    send, receive = request.send, request.receive
    json_ok, sse_ok = request.json_ok, request.sse_ok
    if isinstance(reply, asyncio.Future) and not channel.pending and not channel.close_requested:
        watcher = asyncio.ensure_future(_disconnected(receive))
        waiter = asyncio.ensure_future(channel.wait())
        wanted: set[asyncio.Future[Any]] = {reply, watcher}
        if sse_ok:  # the first message sent during the call starts the stream
            wanted.add(waiter)
        await asyncio.wait(wanted, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        watcher.cancel()
        disconnected = watcher.done() and not watcher.cancelled()
        if disconnected and not reply.done() and resumable is None:
            reply.cancel()
            return  # nobody is listening
        if reply.done() and not (sse_ok and channel.pending):
            reply = _outcome(reply)
            channel.pending.clear()
    if reply is None:
        await send_body(send, 202, b"", None, headers)
    elif isinstance(reply, bytes) and json_ok and (not channel.pending or not sse_ok):
        await send_body(send, status_of(reply), reply, b"application/json", headers)
    elif not sse_ok:  # JSON only: wait for the reply; messages sent meanwhile are dropped
        final = await _settled(reply)
        if final is None:
            await send_body(send, 202, b"", None, headers)
        else:
            await send_body(send, status_of(final), final, b"application/json", headers)
    else:
        await stream_call(send, receive, channel, reply, headers, resumable)


async def _settled(reply: bytes | asyncio.Future[bytes | None]) -> bytes | None:
    if isinstance(reply, bytes):
        return reply
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await reply
    return _outcome(reply)


async def stream_call(
    send: AsgiSend,
    receive: AsgiReceive,
    channel: CallChannel,
    reply: Started,
    headers: list[tuple[bytes, bytes]],
    resumable: Resumable | None,
) -> None:
    """Answer one POST with an SSE stream: queued and later messages, then the reply."""
    connected = True
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
    if resumable is not None:
        await resumable.open()
    if resumable is not None and resumable.priming:
        priming = sse_event(b"", resumable.event_id(0), resumable.retry_ms)
        await send({"type": "http.response.body", "body": priming, "more_body": True})
    watcher: asyncio.Task[None] | None = None
    running = reply if isinstance(reply, asyncio.Future) else None
    if running is not None:
        watcher = asyncio.ensure_future(_disconnected(receive))
        if resumable is None:  # 2026-07-28: closing the stream cancels the call
            watcher.add_done_callback(lambda _: running.cancel())
    try:
        while True:
            if connected and watcher is not None and watcher.done():
                connected = False
            if channel.pending:
                messages, channel.pending = channel.pending, []
                connected = await _emit(send, messages, resumable, connected, last=False)
            if channel.close_requested and connected:
                connected = False
                await _end(send)
            if running is None or running.done():
                break
            waiter = asyncio.ensure_future(channel.wait())
            wanted: set[asyncio.Future[Any]] = {waiter, running}
            if watcher is not None and connected:
                wanted.add(watcher)
            await asyncio.wait(wanted, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        final = _outcome(reply)
        if channel.pending:  # sent by the handler as it finished
            messages, channel.pending = channel.pending, []
            connected = await _emit(send, messages, resumable, connected, last=False)
        if final is not None:
            connected = await _emit(send, [final], resumable, connected, last=True)
        if connected:
            await _end(send)
    finally:
        if watcher is not None:
            watcher.cancel()


def _outcome(reply: Started) -> bytes | None:
    if not isinstance(reply, asyncio.Future):
        return reply
    if reply.cancelled() or reply.exception() is not None:
        return None  # a cancelled request gets no response
    return reply.result()


async def _emit(
    send: AsgiSend,
    messages: list[bytes],
    resumable: Resumable | None,
    connected: bool,
    *,
    last: bool,
) -> bool:
    chunks = []
    for message in messages:
        event_id = None
        if resumable is not None:
            sequence = await resumable.store.append_event(resumable.key, message, last)
            event_id = resumable.event_id(sequence)
        chunks.append(sse_event(message, event_id))
    if not connected:
        return False
    try:
        await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
    except OSError:
        return False
    return True


async def _end(send: AsgiSend) -> None:
    with contextlib.suppress(OSError):
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: AsgiReceive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def resume_stream(
    send: AsgiSend,
    receive: AsgiReceive,
    resumable: Resumable,
    after: int,
    wait_seconds: float,
    headers: list[tuple[bytes, bytes]],
) -> bool:
    """Replay a stream's events after ``after`` and follow it until its last event (or
    ``wait_seconds`` without one). False when the store has no such stream."""
    first = await resumable.store.read_events(resumable.key, after, 0.0)
    if first is None:
        return False
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS + headers})
    watcher = asyncio.ensure_future(_disconnected(receive))
    events = first
    try:
        while not watcher.done():
            done = False
            chunks = []
            for sequence, message, last in events:
                chunks.append(sse_event(message, resumable.event_id(sequence)))
                after = sequence
                done = done or last
            if chunks:
                body = b"".join(chunks)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            if done:
                break
            reading = asyncio.ensure_future(
                resumable.store.read_events(resumable.key, after, wait_seconds)
            )
            await asyncio.wait({reading, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                reading.cancel()
                break
            found = reading.result()
            if not found:
                # Nothing new in time: end here (with a retry hint where clients take
                # one); the client resumes again.
                if resumable.priming:
                    hint = sse_event(b"", resumable.event_id(after), resumable.retry_ms)
                    await send({"type": "http.response.body", "body": hint, "more_body": True})
                break
            events = found
        await _end(send)
    finally:
        watcher.cancel()
    return True
