"""The Redis store's subscriber: one task per worker that hears the published
cancellations (channel ``c``: ``[session, request id]``) and change notices (channel
``n``) for as long as the store is open, on a connection of its own. A lost connection
(Redis restarted, a network fault) is reopened with backoff and resubscribed; a quiet
one is pinged, so that a host gone without closing its sockets is noticed.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from ..jsonrpc import RequestId
from .redis_connections import COMMAND_TIMEOUT_SECONDS, RedisConnections, closed

BACKOFF_FIRST, BACKOFF_CAP = 0.05, 5.0  # reconnecting the subscriber


class RedisSubscriber:
    """Hears ``prefix + "c"`` and ``prefix + "n"``; ``subscribed`` is set while it does."""

    def __init__(
        self,
        connections: RedisConnections,
        prefix: str,
        cancelled: Callable[[str, RequestId], None],
        noticed: Callable[[bytes], None],
    ) -> None:
        self._connections = connections
        self._prefix = prefix
        self._cancelled = cancelled
        self._noticed = noticed
        self.subscribed = asyncio.Event()

    async def listen(self) -> None:
        """Hear cancellations for as long as the store is open: a lost connection (Redis
        restarted, a network fault) is reopened with backoff and resubscribed."""
        backoff = BACKOFF_FIRST
        while True:
            client = self._connections.dedicated()
            pubsub = client.pubsub()
            try:
                channels = (self._prefix + "c", self._prefix + "n")
                await asyncio.wait_for(pubsub.subscribe(*channels), COMMAND_TIMEOUT_SECONDS)
                self.subscribed.set()
                backoff = BACKOFF_FIRST
                async for message in self._messages(pubsub):
                    self._heard(message)
            except self._connections.failures as exc:
                self.subscribed.clear()
                self._connections.log(exc)
            finally:
                self.subscribed.clear()
                with contextlib.suppress(Exception):
                    await closed(pubsub)
                with contextlib.suppress(Exception):
                    await closed(client)
            await asyncio.sleep(backoff * (0.5 + random.random()))
            backoff = min(backoff * 2, BACKOFF_CAP)

    async def _messages(self, pubsub: Any) -> AsyncIterator[dict[str, Any]]:
        """The subscriber's messages; a PING every few seconds finds a dead connection
        that no error announced (a host gone without closing its sockets)."""
        quiet_since = time.monotonic()
        while True:
            message = await asyncio.wait_for(
                pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0),
                COMMAND_TIMEOUT_SECONDS,
            )
            if message is not None:
                quiet_since = time.monotonic()
                yield message
            elif time.monotonic() - quiet_since > 5.0:
                await asyncio.wait_for(pubsub.ping(), COMMAND_TIMEOUT_SECONDS)
                quiet_since = time.monotonic()

    def _heard(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        channel = message.get("channel")
        if channel == (self._prefix + "n").encode() or channel == self._prefix + "n":
            if isinstance(message.get("data"), bytes):
                self._noticed(message["data"])
            return
        try:
            session_id, request_id = orjson.loads(message["data"])
        except (orjson.JSONDecodeError, TypeError, ValueError):
            return
        self._cancelled(session_id, request_id)
