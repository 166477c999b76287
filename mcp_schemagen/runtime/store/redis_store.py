"""The shared store on Redis (redis-py's asyncio client), for several workers or machines.

Imported only when ``MCP_STORE``/``--store`` names a ``redis://`` URL, so a server that
never uses it needs no ``redis`` package. Keys (all under ``prefix``):

- ``s:<session>``: the session record as JSON, expiring ``session_ttl`` after last use;
- ``e:<stream>``: a Redis stream of SSE events (field ``m`` the message, ``l`` "1" on
  the last one), expiring ``event_ttl`` after its last write; ``o:<stream>`` marks a
  stream opened before its first event;
- ``i:<stream>``: the request ids a stream answers (JSON), ``l:<stream>``: the lease of
  the worker running them (its id, expiring ``LEASE_SECONDS`` after its last renewal),
  ``f:<stream>``: set once the stream's calls are over or declared lost;
- channel ``c``: published ``[session, request id]`` cancellations, and channel ``n``:
  change notifications (``publish_notice``), both heard by every worker's subscriber task;
- ``u:<session>``: the set of resource URIs the session subscribed to, expiring with the
  session (refreshed with it);
- ``r:<session>:<request id>``: a list the client's reply to a server request is pushed
  to, popped (blocking) by the waiting handler.

This module keeps the records (sessions, events, subscriptions, replies) and puts the
parts together: the connections and their settings (redis_connections.py: short commands
on a pool, BLPOP on a connection of its own), the call leases and lost-call detection
(redis_leases.py), the subscriber (redis_subscriber.py), and the waiting streams' one
XREAD BLOCK connection (redis_follow.py). Errors reach callers as ``StoreUnavailable``
(no address in the message; the detail goes to stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import orjson

from ..jsonrpc import RequestId
from . import Event, Store, StoreUnavailable
from .redis_connections import COMMAND_TIMEOUT_SECONDS, RedisConnections, closed
from .redis_follow import StreamFollower
from .redis_leases import CallLeases
from .redis_subscriber import RedisSubscriber

LEASE_CHECK_SECONDS = 2.0  # a follower waiting on a stream checks its owner this often


class RedisStore(Store):
    def __init__(
        self,
        url: str,
        *,
        session_ttl: float = 3600.0,
        event_ttl: float = 300.0,
        prefix: str = "mcp:",
    ) -> None:
        super().__init__()
        self.url = url
        self.session_ttl = int(session_ttl)
        self.event_ttl = int(event_ttl)
        self.prefix = prefix
        self._connections = RedisConnections(url)
        self._redis: Any = self._connections.pooled
        self._unavailable = self._connections.unavailable
        self._leases = CallLeases(self._connections, prefix, self.event_ttl, self.append_event)
        self._subscriber = RedisSubscriber(
            self._connections, prefix, self._cancelled, self._noticed
        )
        self._listener: asyncio.Task[None] | None = None
        # Every resumed stream of this process waits for its events on one connection; a
        # burst of them over, the pooled connections it opened are closed (kept, not used).
        connections = self._connections
        self._follower = StreamFollower(
            connections.dedicated,
            connections.unavailable,
            closed,
            connections.give_back,
            COMMAND_TIMEOUT_SECONDS,
        )

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self._listener is None:
            with self._unavailable():
                await asyncio.wait_for(self._redis.ping(), COMMAND_TIMEOUT_SECONDS)
            self._listener = asyncio.ensure_future(self._subscriber.listen())
            self._leases.start()
            # Cancellations published from now on must be heard: wait for the subscription
            # (or the listener failing), not for the listener to end, which it never does.
            waiting = asyncio.ensure_future(self._subscriber.subscribed.wait())
            await asyncio.wait(
                {waiting, self._listener},
                timeout=COMMAND_TIMEOUT_SECONDS,
                return_when=asyncio.FIRST_COMPLETED,
            )
            waiting.cancel()

    async def ready(self) -> bool:
        try:
            with self._unavailable():
                await asyncio.wait_for(self._redis.ping(), 1.0)
        except StoreUnavailable:
            return False
        return self._listener is None or self._subscriber.subscribed.is_set()

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        self._listener = None
        await self._leases.close()
        await self._follower.close()
        await self._connections.close()

    # sessions ------------------------------------------------------------------
    async def create_session(self, session_id: str, record: dict[str, Any]) -> None:
        with self._unavailable():
            await self._redis.set(
                self.prefix + "s:" + session_id, orjson.dumps(record), ex=self.session_ttl
            )

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        key = self.prefix + "s:" + session_id
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.get(key)
                pipe.expire(key, self.session_ttl)
                pipe.expire(self.prefix + "u:" + session_id, self.session_ttl)
                raw, _, _ = await pipe.execute()
        if raw is None:
            return None
        record: dict[str, Any] = orjson.loads(raw)
        return record

    async def update_session(self, session_id: str, changes: dict[str, Any]) -> None:
        # Changes after initialize are rare (logging/setLevel) and last-writer-wins is
        # what a client expects of them, so a plain read-modify-write is enough.
        record = await self.load_session(session_id)
        if record is not None:
            record.update(changes)
            await self.create_session(session_id, record)

    async def end_session(self, session_id: str) -> bool:
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(self.prefix + "s:" + session_id)
                pipe.delete(self.prefix + "u:" + session_id)
                ended, _ = await pipe.execute()
        return bool(ended)

    # resumable streams ---------------------------------------------------------
    def track_calls(self, stream_id: str, request_ids: list[RequestId]) -> None:
        self._leases.track(stream_id, request_ids)

    async def release_calls(self, stream_id: str) -> None:
        await self._leases.release(stream_id)

    async def open_stream(self, stream_id: str) -> None:
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self.prefix + "o:" + stream_id, b"1", ex=self.event_ttl)
                leased = self._leases.lease_on_open(pipe, stream_id)
                await pipe.execute()
        if leased:
            self._leases.opened(stream_id)

    async def append_event(self, stream_id: str, message: bytes, last: bool) -> int:
        key = self.prefix + "e:" + stream_id
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.xadd(key, {"m": message, "l": b"1" if last else b"0"})
                pipe.xlen(key)
                pipe.expire(key, self.event_ttl)
                _, length, _ = await pipe.execute()
        return int(length)

    async def read_events(self, stream_id: str, after: int, timeout: float) -> list[Event] | None:
        key = self.prefix + "e:" + stream_id
        with self._unavailable():
            exists = await self._redis.exists(key, self.prefix + "o:" + stream_id)
            if not exists:
                return None
            # Sequence numbers are positions; Redis ids are opaque, so read all and skip.
            entries = await self._redis.xrange(key)
        deadline = time.monotonic() + timeout
        while len(entries) <= after:
            if entries and entries[-1][1].get(b"l") == b"1":
                return []  # the stream is complete: nothing follows
            left = deadline - time.monotonic()
            if left <= 0:
                return []
            wait = min(left, LEASE_CHECK_SECONDS)
            last_id = entries[-1][0] if entries else b"0-0"
            found = await self._follower.wait(key, last_id, wait)
            if found:
                entries = entries + found
            elif await self._leases.lost(stream_id):
                with self._unavailable():
                    entries = await self._redis.xrange(key)
        return [
            (index + 1, fields[b"m"], fields[b"l"] == b"1")
            for index, (_, fields) in enumerate(entries)
            if index >= after
        ]

    # cancellation and replies ----------------------------------------------------
    async def publish_cancel(self, session_id: str, request_id: RequestId) -> None:
        with self._unavailable():
            await self._redis.publish(self.prefix + "c", orjson.dumps([session_id, request_id]))

    async def change_subscriptions(self, session_id: str, changes: list[tuple[str, bool]]) -> None:
        key = self.prefix + "u:" + session_id
        with self._unavailable():
            async with self._redis.pipeline(transaction=True) as pipe:  # MULTI: all at once
                for uri, subscribed in changes:
                    (pipe.sadd if subscribed else pipe.srem)(key, uri)
                pipe.expire(key, self.session_ttl)
                await pipe.execute()

    async def subscriptions_of(self, session_id: str) -> list[str] | None:
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.exists(self.prefix + "s:" + session_id)
                pipe.smembers(self.prefix + "u:" + session_id)
                exists, members = await pipe.execute()
        if not exists:
            return None
        return sorted(member.decode() for member in members)

    async def publish_notice(self, notice: bytes) -> None:
        with self._unavailable():
            await self._redis.publish(self.prefix + "n", notice)

    def _reply_key(self, session_id: str, request_id: RequestId) -> str:
        return f"{self.prefix}r:{session_id}:{orjson.dumps(request_id).decode()}"

    async def deliver_reply(
        self, session_id: str, request_id: RequestId, message: dict[str, Any]
    ) -> None:
        key = self._reply_key(session_id, request_id)
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.rpush(key, orjson.dumps(message))
                pipe.expire(key, self.event_ttl)
                await pipe.execute()

    async def await_reply(
        self, session_id: str, request_id: RequestId, timeout: float
    ) -> dict[str, Any] | None:
        # BLPOP's timeout is whole seconds before Redis 6; a float works after.
        wait = max(timeout, 0.01)  # 0 would wait forever
        found = await self._connections.blocking(
            "blpop", [self._reply_key(session_id, request_id)], wait, wait=wait
        )
        if found is None:
            return None
        reply: dict[str, Any] = orjson.loads(found[1])
        return reply
