"""What HTTP workers share: sessions, resumable event logs, cancellations, client replies.

One interface, two implementations: ``MemoryStore`` (this process only; the default for a
single worker) and ``RedisStore`` (``redis_store.py``; every worker and machine
pointing at one Redis sees the same sessions). Select one with ``open_store(url)``:
``None`` or ``"memory:"`` gives the in-process store, ``redis://…``/``rediss://…`` Redis.

The stateless revision (2026-07-28) needs none of this; the session revisions
(2025-03-26 to 2025-11-25) keep here whatever a request on *another* worker must see:

- a session's record: the facts fixed at initialize (revision, client capabilities and
  info) and those that change later (log level, ``initialized``);
- the events of every SSE stream, so a client that lost a stream can resume it with
  ``GET`` + ``Last-Event-ID`` at any worker, including events written after it resumed
  (``read_events`` blocks until new ones arrive);
- ``notifications/cancelled``: ``publish_cancel`` reaches the worker running the call,
  whose ``on_cancel`` callback cancels it;
- replies to requests the server sends to the client (elicitation, sampling, roots):
  a handler that sent request ``R`` on its call's outbound channel awaits
  ``await_reply(session, R)``; the client POSTs its JSON-RPC response, possibly to
  another worker, which calls ``deliver_reply(session, R, message)``. The HTTP app
  already routes every POSTed response there; the interactive-tools work only needs to
  send the request and await the reply;
- change notifications (``runtime/subscriptions/``): ``publish_notice`` reaches the
  ``on_notice`` callback of every worker, this one included, which delivers it to the
  sessions and streams it holds;
- which worker runs a call whose stream a client may resume (``track_calls``, then
  ``open_stream`` takes a lease the worker keeps renewing, ``release_calls`` when the
  call is over): a reader of the stream elsewhere tells a dead owner (lease expired, no
  last event) from a slow one, and ends the stream with a JSON-RPC error for each of its
  requests saying the call was lost, instead of waiting for a result that never comes.

When the shared store cannot be reached, every method raises ``StoreUnavailable``, whose
message names no address (it may reach a client); the HTTP layer answers 503 with
``Retry-After``. ``ready()`` tells a readiness probe whether the store answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..jsonrpc import RequestId

CancelCallback = Callable[[str, RequestId], None]
NoticeCallback = Callable[[bytes], None]
# A stream's events: (sequence number, message or None for the priming event, last?).
Event = tuple[int, bytes, bool]

# JSON-RPC "internal error": the server failed the request (here: lost it).
LOST_CALL_CODE = -32603
LOST_CALL_MESSAGE = (
    "The call was lost: the server process running it stopped before it finished. "
    "Its effects, if any, are unknown; call the tool again if that is safe."
)


class StoreUnavailable(Exception):
    """The shared store (Redis) cannot be reached or did not answer in time. The message
    is safe to show a client; the cause (with addresses) goes to the server's log."""

    retry_after_seconds = 2

    def __init__(self, message: str = "The server's session store is unavailable") -> None:
        super().__init__(f"{message}; retry shortly")


def lost_call_events(request_ids: list[RequestId]) -> list[bytes]:
    """The JSON-RPC error responses that end a stream whose call was lost."""
    error = {"code": LOST_CALL_CODE, "message": LOST_CALL_MESSAGE}
    return [orjson.dumps({"jsonrpc": "2.0", "id": rid, "error": error}) for rid in request_ids]


class Store:
    """The shared state of HTTP workers. Every method is a coroutine; implementations
    must be safe to call from any number of concurrent requests."""

    def __init__(self) -> None:
        self.on_cancel: CancelCallback | None = None  # set by the HTTP app
        self.on_notice: NoticeCallback | None = None  # set by the subscription hub

    async def start(self) -> None:
        """Connect and subscribe (called once, at the app's start-up)."""

    async def close(self) -> None:
        """Release connections (called at shutdown)."""

    async def ready(self) -> bool:
        """Whether the store answers now (a readiness probe; liveness is separate)."""
        return True

    # sessions ------------------------------------------------------------------
    async def create_session(self, session_id: str, record: dict[str, Any]) -> None:
        raise NotImplementedError

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        """The session's record, or None when it does not exist or has ended/expired."""
        raise NotImplementedError

    async def update_session(self, session_id: str, changes: dict[str, Any]) -> None:
        raise NotImplementedError

    async def end_session(self, session_id: str) -> bool:
        """End the session; False when there was none."""
        raise NotImplementedError

    # resumable streams ---------------------------------------------------------
    async def open_stream(self, stream_id: str) -> None:
        """Make a stream known before its first event (a client may resume it at once);
        for a tracked stream, this worker holds its lease from now on."""
        raise NotImplementedError

    def track_calls(self, stream_id: str, request_ids: list[RequestId]) -> None:
        """The requests whose responses ``stream_id`` will carry, should it be opened
        (noted here; written with ``open_stream``, so a call answered in JSON costs no
        round trip)."""

    async def release_calls(self, stream_id: str) -> None:
        """The calls of ``stream_id`` are over (answered or cancelled): drop the lease."""

    async def append_event(self, stream_id: str, message: bytes, last: bool) -> int:
        """Record one message of an SSE stream; returns its sequence number (from 1;
        0 is the priming event every stream starts with)."""
        raise NotImplementedError

    async def read_events(self, stream_id: str, after: int, timeout: float) -> list[Event] | None:
        """Events of ``stream_id`` after sequence ``after``, waiting up to ``timeout``
        seconds for the first one; ``[]`` on timeout, None for an unknown stream."""
        raise NotImplementedError

    # cancellation and replies from the client ------------------------------------
    async def publish_cancel(self, session_id: str, request_id: RequestId) -> None:
        raise NotImplementedError

    async def deliver_reply(
        self, session_id: str, request_id: RequestId, message: dict[str, Any]
    ) -> None:
        raise NotImplementedError

    async def await_reply(
        self, session_id: str, request_id: RequestId, timeout: float
    ) -> dict[str, Any] | None:
        """The client's response to a request the server sent; None on timeout."""
        raise NotImplementedError

    # change notifications ------------------------------------------------------
    async def change_subscriptions(self, session_id: str, changes: list[tuple[str, bool]]) -> None:
        """Apply ``(uri, subscribed)`` changes, in order and at once, to the resources the
        session subscribed to (they end with the session)."""
        raise NotImplementedError

    async def subscriptions_of(self, session_id: str) -> list[str] | None:
        """The URIs the session subscribed to; None when the session does not exist."""
        raise NotImplementedError

    async def publish_notice(self, notice: bytes) -> None:
        """Hand ``notice`` to ``on_notice`` on every worker (this one too), at most once
        each; a worker that cannot hear the store at that moment misses it."""
        raise NotImplementedError

    def _noticed(self, notice: bytes) -> None:
        if self.on_notice is not None:
            self.on_notice(notice)

    def _cancelled(self, session_id: str, request_id: RequestId) -> None:
        if self.on_cancel is not None:
            self.on_cancel(session_id, request_id)


@dataclass
class _Stream:
    events: list[Event] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    touched: float = field(default_factory=time.monotonic)


class MemoryStore(Store):
    """All shared state in this process: right for one worker, invisible to others.

    Sessions idle longer than ``session_ttl`` seconds and streams untouched for
    ``event_ttl`` seconds are forgotten: checked when used, and swept (oldest first, in
    time proportional to what expired) by a timer started with ``start`` and on writes,
    so abandoned sessions free their memory. Its calls cannot outlive it: leases are moot.
    """

    def __init__(self, *, session_ttl: float = 3600.0, event_ttl: float = 300.0) -> None:
        super().__init__()
        self.session_ttl = session_ttl
        self.event_ttl = event_ttl
        # Least recently used first: a sweep stops at the first live one.
        self._sessions: OrderedDict[str, tuple[dict[str, Any], float]] = OrderedDict()
        self._streams: dict[str, _Stream] = {}
        self._replies: dict[tuple[str, RequestId], asyncio.Future[dict[str, Any]]] = {}
        self._sweep_at = time.monotonic() + event_ttl
        self._session_sweep_at = time.monotonic() + self._sweep_interval()
        self._sweeper: asyncio.Task[None] | None = None

    def _sweep_interval(self) -> float:
        # A sweep costs what expired (it stops at the first live session): run it often.
        return max(min(self.session_ttl, self.event_ttl, 60.0) / 10, 0.05)

    @property
    def session_count(self) -> int:
        """Sessions held in memory (expired ones included until swept)."""
        return len(self._sessions)

    async def start(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep_forever())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_interval())
            now = time.monotonic()
            self._sweep_sessions(now)
            self._sweep(now)

    def _sweep_sessions(self, now: float) -> None:
        self._session_sweep_at = now + self._sweep_interval()
        sessions = self._sessions
        while sessions:
            session_id, (_, touched) = next(iter(sessions.items()))
            if now - touched <= self.session_ttl:
                break
            del sessions[session_id]

    async def create_session(self, session_id: str, record: dict[str, Any]) -> None:
        now = time.monotonic()
        if now > self._session_sweep_at:
            self._sweep_sessions(now)
        self._sessions[session_id] = (dict(record), now)
        self._sessions.move_to_end(session_id)

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        found = self._sessions.get(session_id)
        if found is None:
            return None
        now = time.monotonic()
        if now - found[1] > self.session_ttl:
            del self._sessions[session_id]
            return None
        self._sessions[session_id] = (found[0], now)
        self._sessions.move_to_end(session_id)
        return dict(found[0])

    async def update_session(self, session_id: str, changes: dict[str, Any]) -> None:
        found = self._sessions.get(session_id)
        if found is not None:
            found[0].update(changes)

    async def end_session(self, session_id: str) -> bool:
        return self._sessions.pop(session_id, None) is not None

    async def append_event(self, stream_id: str, message: bytes, last: bool) -> int:
        now = time.monotonic()
        if now > self._sweep_at:
            self._sweep(now)
        stream = self._streams.get(stream_id)
        if stream is None:
            stream = self._streams[stream_id] = _Stream()
        sequence = len(stream.events) + 1
        stream.events.append((sequence, message, last))
        stream.touched = now
        stream.changed.set()
        stream.changed = asyncio.Event()
        return sequence

    async def read_events(self, stream_id: str, after: int, timeout: float) -> list[Event] | None:
        stream = self._streams.get(stream_id)
        if stream is None:
            return None
        if len(stream.events) <= after:
            waiting = stream.changed
            try:
                await asyncio.wait_for(waiting.wait(), timeout)
            except TimeoutError:
                return []
        return stream.events[after:]

    def _sweep(self, now: float) -> None:
        self._sweep_at = now + self.event_ttl
        stale = [k for k, s in self._streams.items() if now - s.touched > self.event_ttl]
        for key in stale:
            del self._streams[key]

    async def open_stream(self, stream_id: str) -> None:
        self._streams.setdefault(stream_id, _Stream())

    async def publish_cancel(self, session_id: str, request_id: RequestId) -> None:
        self._cancelled(session_id, request_id)

    async def publish_notice(self, notice: bytes) -> None:
        self._noticed(notice)

    async def change_subscriptions(self, session_id: str, changes: list[tuple[str, bool]]) -> None:
        found = self._sessions.get(session_id)
        if found is None:
            return
        current = dict.fromkeys(found[0].get("subscriptions", ()))  # in process: atomic
        for uri, subscribed in changes:
            if subscribed:
                current[uri] = None
            else:
                current.pop(uri, None)
        found[0]["subscriptions"] = list(current)

    async def subscriptions_of(self, session_id: str) -> list[str] | None:
        record = await self.load_session(session_id)
        return None if record is None else list(record.get("subscriptions", ()))

    async def deliver_reply(
        self, session_id: str, request_id: RequestId, message: dict[str, Any]
    ) -> None:
        waiting = self._replies.get((session_id, request_id))
        if waiting is not None and not waiting.done():
            waiting.set_result(message)

    async def await_reply(
        self, session_id: str, request_id: RequestId, timeout: float
    ) -> dict[str, Any] | None:
        key = (session_id, request_id)
        waiting = self._replies[key] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(waiting, timeout)
        except TimeoutError:
            return None
        finally:
            self._replies.pop(key, None)
