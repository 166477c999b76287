"""The Redis store's call leases: which worker runs the calls a stream answers, and how
a follower finds that they were lost.

A stream opened for calls records their request ids (``i:<stream>``) and this worker's
lease (``l:<stream>``, its id, expiring ``LEASE_SECONDS`` after its last renewal); a
task renews the leases every ``RENEW_SECONDS`` while the calls run, and releasing them
marks the stream finished (``f:<stream>``). A follower waiting on a stream whose lease
ran out before the last event declares the calls lost (once, by ``SET NX`` of the
finished mark) and appends their error responses.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from ..jsonrpc import RequestId
from . import StoreUnavailable, lost_call_events
from .redis_connections import RedisConnections

LEASE_SECONDS = 6.0  # a call's owner is presumed dead this long after its last renewal
RENEW_SECONDS = 2.0


class CallLeases:
    """The calls this worker runs, by stream: tracked, leased once their stream opens,
    renewed, released; and the check a follower makes for calls that were lost."""

    def __init__(
        self,
        connections: RedisConnections,
        prefix: str,
        event_ttl: int,
        append_event: Callable[[str, bytes, bool], Awaitable[int]],
    ) -> None:
        self._connections = connections
        self._prefix = prefix
        self._event_ttl = event_ttl
        self._append_event = append_event
        self.worker = secrets.token_hex(8)  # this process's name in call leases
        self._tracked: dict[str, list[RequestId]] = {}  # request ids by stream, until over
        self._owned: set[str] = set()  # tracked streams opened: leased, renewed
        self._renewer: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._renewer = asyncio.ensure_future(self._renew())

    async def close(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._renewer
        self._renewer = None

    async def _renew(self) -> None:
        """Keep the leases of the calls this worker runs alive."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            if not self._owned:
                continue
            lease_ms = int(LEASE_SECONDS * 1000)
            connections = self._connections
            with contextlib.suppress(StoreUnavailable), connections.unavailable():
                async with connections.pooled.pipeline(transaction=False) as pipe:
                    for stream_id in self._owned:
                        pipe.set(self._prefix + "l:" + stream_id, self.worker, px=lease_ms)
                    await pipe.execute()

    def track(self, stream_id: str, request_ids: list[RequestId]) -> None:
        self._tracked[stream_id] = request_ids  # written with the lease, once opened

    def lease_on_open(self, pipe: Any, stream_id: str) -> bool:
        """Add the tracked calls' ids and their lease to the pipeline that opens the
        stream; whether there were any (then ``opened`` follows the pipeline's success)."""
        tracked = self._tracked.get(stream_id)
        if tracked is None:
            return False
        pipe.set(self._prefix + "i:" + stream_id, orjson.dumps(tracked), ex=self._event_ttl)
        lease_ms = int(LEASE_SECONDS * 1000)
        pipe.set(self._prefix + "l:" + stream_id, self.worker, px=lease_ms)
        return True

    def opened(self, stream_id: str) -> None:
        self._owned.add(stream_id)

    async def release(self, stream_id: str) -> None:
        self._tracked.pop(stream_id, None)
        if stream_id not in self._owned:
            return  # never opened: nothing was written
        self._owned.discard(stream_id)
        connections = self._connections
        with contextlib.suppress(StoreUnavailable), connections.unavailable():
            async with connections.pooled.pipeline(transaction=False) as pipe:
                pipe.set(self._prefix + "f:" + stream_id, b"1", ex=self._event_ttl)
                pipe.delete(self._prefix + "l:" + stream_id)
                await pipe.execute()

    async def lost(self, stream_id: str) -> bool:
        """Whether the stream's calls were lost (their worker's lease ran out before the
        last event); the first follower to notice appends their error responses."""
        p = self._prefix
        redis = self._connections.pooled
        with self._connections.unavailable():
            async with redis.pipeline(transaction=False) as pipe:
                pipe.get(p + "i:" + stream_id)
                pipe.exists(p + "l:" + stream_id)
                pipe.exists(p + "f:" + stream_id)
                tracked, leased, finished = await pipe.execute()
            if tracked is None or leased or finished:
                return False
            if not await redis.set(p + "f:" + stream_id, b"lost", ex=self._event_ttl, nx=True):
                return False  # another follower declared it lost
        ids = orjson.loads(tracked)
        # The clients get -32603 for these calls: said here too, once (by this follower).
        print(
            f"store: calls {ids} were lost: the worker running them stopped before they"
            f" finished (stream {stream_id}); their clients get -32603 'The call was lost'",
            file=sys.stderr,
        )
        messages = lost_call_events(ids)
        for index, message in enumerate(messages):
            await self._append_event(stream_id, message, index == len(messages) - 1)
        return True
