"""The shared store on Redis (redis-py's asyncio client), for several workers or machines.

Imported only when ``MCP_STORE``/``--store`` names a ``redis://`` URL, so a server that
never uses it needs no ``redis`` package. Keys (all under ``prefix``):

- ``s:<session>``: the session record as JSON, expiring ``session_ttl`` after last use;
- ``e:<stream>``: a Redis stream of SSE events (field ``m`` the message, ``l`` "1" on
  the last one), expiring ``event_ttl`` after its last write; ``o:<stream>`` marks a
  stream opened before its first event;
- channel ``c``: published ``[session, request id]`` cancellations, heard by every
  worker's subscriber task;
- ``r:<session>:<request id>``: a list the client's reply to a server request is pushed
  to, popped (blocking) by the waiting handler.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import orjson

from .jsonrpc import RequestId
from .store import Event, Store


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
        import redis.asyncio as redis  # only where a Redis store is configured

        self.url = url
        self.session_ttl = int(session_ttl)
        self.event_ttl = int(event_ttl)
        self.prefix = prefix
        self._redis: Any = redis.from_url(url)
        self._listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if self._listener is None:
            pubsub = self._redis.pubsub()
            await pubsub.subscribe(self.prefix + "c")
            self._listener = asyncio.ensure_future(self._listen(pubsub))

    async def _listen(self, pubsub: Any) -> None:
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    session_id, request_id = orjson.loads(message["data"])
                except (orjson.JSONDecodeError, TypeError, ValueError):
                    continue
                self._cancelled(session_id, request_id)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        await self._redis.aclose()

    # sessions ------------------------------------------------------------------
    async def create_session(self, session_id: str, record: dict[str, Any]) -> None:
        await self._redis.set(
            self.prefix + "s:" + session_id, orjson.dumps(record), ex=self.session_ttl
        )

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        key = self.prefix + "s:" + session_id
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.expire(key, self.session_ttl)
            raw, _ = await pipe.execute()
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
        return bool(await self._redis.delete(self.prefix + "s:" + session_id))

    # resumable streams ---------------------------------------------------------
    async def open_stream(self, stream_id: str) -> None:
        await self._redis.set(self.prefix + "o:" + stream_id, b"1", ex=self.event_ttl)

    async def append_event(self, stream_id: str, message: bytes, last: bool) -> int:
        key = self.prefix + "e:" + stream_id
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.xadd(key, {"m": message, "l": b"1" if last else b"0"})
            pipe.xlen(key)
            pipe.expire(key, self.event_ttl)
            _, length, _ = await pipe.execute()
        return int(length)

    async def read_events(self, stream_id: str, after: int, timeout: float) -> list[Event] | None:
        key = self.prefix + "e:" + stream_id
        exists = await self._redis.exists(key, self.prefix + "o:" + stream_id)
        if not exists:
            return None
        # Sequence numbers are positions; Redis ids are opaque, so read all and skip.
        entries = await self._redis.xrange(key)
        if len(entries) <= after:
            last_id = entries[-1][0] if entries else b"0-0"
            found = await self._redis.xread({key: last_id}, block=max(int(timeout * 1000), 1))
            if not found:
                return []
            entries = entries + found[0][1]
        return [
            (index + 1, fields[b"m"], fields[b"l"] == b"1")
            for index, (_, fields) in enumerate(entries)
            if index >= after
        ]

    # cancellation and replies ----------------------------------------------------
    async def publish_cancel(self, session_id: str, request_id: RequestId) -> None:
        await self._redis.publish(self.prefix + "c", orjson.dumps([session_id, request_id]))

    def _reply_key(self, session_id: str, request_id: RequestId) -> str:
        return f"{self.prefix}r:{session_id}:{orjson.dumps(request_id).decode()}"

    async def deliver_reply(
        self, session_id: str, request_id: RequestId, message: dict[str, Any]
    ) -> None:
        key = self._reply_key(session_id, request_id)
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.rpush(key, orjson.dumps(message))
            pipe.expire(key, self.event_ttl)
            await pipe.execute()

    async def await_reply(
        self, session_id: str, request_id: RequestId, timeout: float
    ) -> dict[str, Any] | None:
        found = await self._redis.blpop([self._reply_key(session_id, request_id)], timeout)
        if found is None:
            return None
        reply: dict[str, Any] = orjson.loads(found[1])
        return reply
