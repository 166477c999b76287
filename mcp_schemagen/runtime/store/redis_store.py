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

Every setting that decides behaviour is set here, never left to redis-py's defaults,
which changed between majors (8 brought a 5 s socket timeout and a 100-connection pool):
short commands share a pool with an explicit command timeout, and a caller waits (up to
``POOL_WAIT_SECONDS``) for a free connection rather than failing; the waiting streams
share one XREAD BLOCK connection (redis_follow.py), and BLPOP and the subscriber each use
a connection of their own, bounded by an explicit deadline. Lost connections are
reopened with backoff; the subscriber resubscribes. Errors reach callers as
``StoreUnavailable`` (no address in the message; the detail goes to stderr).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
import secrets
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import orjson

from ..jsonrpc import RequestId
from . import Event, Store, StoreUnavailable, lost_call_events
from .redis_follow import StreamFollower

COMMAND_TIMEOUT_SECONDS = 5.0  # one short command, from sending to its answer
CONNECT_TIMEOUT_SECONDS = 2.0
POOL_SIZE = 64  # connections for short commands; more callers wait for one
# How long a caller waits for a free pooled connection: a queue behind a burst (a thousand
# resumed streams at once), not a sign that Redis is gone (that fails on the socket), so
# longer than one command's timeout.
POOL_WAIT_SECONDS = 15.0
IDLE_BLOCKING = 32  # blocking-read connections kept open for reuse
LEASE_SECONDS = 6.0  # a call's owner is presumed dead this long after its last renewal
RENEW_SECONDS = 2.0
LEASE_CHECK_SECONDS = 2.0  # a follower waiting on a stream checks its owner this often
BACKOFF_FIRST, BACKOFF_CAP = 0.05, 5.0  # reconnecting the subscriber


async def closed(resource: Any) -> None:
    """Close a redis-py client or pub/sub: ``aclose`` from 5.0.1, ``close`` in 5.0.0."""
    close = getattr(resource, "aclose", None) or resource.close
    await close()


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
        # Imported here: only a server configured with a Redis store needs the package.
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff, NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self._library: Any = redis
        self._no_retry: Any = Retry(NoBackoff(), 0)
        self._failures: tuple[type[BaseException], ...] = (
            RedisConnectionError, RedisTimeoutError, OSError, TimeoutError
        )  # fmt: skip
        self.url = url
        self.session_ttl = int(session_ttl)
        self.event_ttl = int(event_ttl)
        self.prefix = prefix
        self.worker = secrets.token_hex(8)  # this process's name in call leases
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=POOL_SIZE,
            timeout=POOL_WAIT_SECONDS,  # waiting for a free connection
            socket_timeout=COMMAND_TIMEOUT_SECONDS,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            socket_keepalive=True,
            retry_on_timeout=False,
            # One retry of a command whose connection broke (a restarted Redis), after a
            # short pause; a refused connection fails fast.
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 1, (RedisConnectionError,)),
            health_check_interval=30,
            protocol=2,  # one reply shape on every redis-py major
        )
        self._redis: Any = redis.Redis(connection_pool=pool)
        self._idle: list[Any] = []  # blocking-read clients, one connection each
        self._closing: set[asyncio.Future[Any]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._renewer: asyncio.Task[None] | None = None
        self._tracked: dict[str, list[RequestId]] = {}  # request ids by stream, until over
        self._owned: set[str] = set()  # tracked streams opened: leased, renewed
        self._logged_at = 0.0
        # Every resumed stream of this process waits for its events on one connection; a
        # burst of them over, the pooled connections it opened are closed (kept, not used).
        give_back = functools.partial(pool.disconnect, inuse_connections=False)
        self._follower = StreamFollower(
            self._dedicated, self._unavailable, closed, give_back, COMMAND_TIMEOUT_SECONDS
        )

    # ------------------------------------------------------------------ connections

    def _dedicated(self) -> Any:
        """A client of one connection of its own, for a blocking read or the subscriber:
        no socket timeout (the caller sets a deadline), no hidden retries."""
        return self._library.Redis.from_url(
            self.url,
            single_connection_client=True,
            socket_timeout=None,
            socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
            socket_keepalive=True,
            retry_on_timeout=False,
            retry=self._no_retry,
            protocol=2,
        )

    async def _blocking(self, command: str, *args: Any, wait: float, **kwargs: Any) -> Any:
        """Run a blocking command that waits up to ``wait`` seconds in Redis, on a
        connection of its own; a connection that failed or was interrupted is closed."""
        client = self._idle.pop() if self._idle else self._dedicated()
        try:
            with self._unavailable():
                result = await asyncio.wait_for(
                    getattr(client, command)(*args, **kwargs), wait + COMMAND_TIMEOUT_SECONDS
                )
        except BaseException:
            self._discard(client)
            raise
        if len(self._idle) < IDLE_BLOCKING:
            self._idle.append(client)
        else:
            self._discard(client)
        return result

    def _discard(self, client: Any) -> None:
        closing = asyncio.ensure_future(closed(client))
        self._closing.add(closing)
        closing.add_done_callback(self._closed)

    def _closed(self, closing: asyncio.Future[Any]) -> None:
        self._closing.discard(closing)
        if not closing.cancelled():
            closing.exception()  # a socket already gone: nothing to report

    @contextlib.contextmanager
    def _unavailable(self) -> Iterator[None]:
        try:
            yield
        except self._failures as exc:
            self._log(exc)
            raise StoreUnavailable() from None

    def _log(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._logged_at > 5.0:  # one line per outage burst, not one per request
            self._logged_at = now
            print(f"store: Redis unavailable: {type(exc).__name__}: {exc}", file=sys.stderr)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self._listener is None:
            with self._unavailable():
                await asyncio.wait_for(self._redis.ping(), COMMAND_TIMEOUT_SECONDS)
            self._listener = asyncio.ensure_future(self._listen())
            self._renewer = asyncio.ensure_future(self._renew())
            # Cancellations published from now on must be heard: wait for the subscription
            # (or the listener failing), not for the listener to end, which it never does.
            waiting = asyncio.ensure_future(self._subscribed.wait())
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
        return self._listener is None or self._subscribed.is_set()

    async def close(self) -> None:
        for task in (self._listener, self._renewer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._listener = self._renewer = None
        await self._follower.close()
        for client in self._idle:
            self._discard(client)
        self._idle.clear()
        if self._closing:
            await asyncio.wait(set(self._closing), timeout=1.0)
        with contextlib.suppress(Exception):
            await closed(self._redis)

    async def _listen(self) -> None:
        """Hear cancellations for as long as the store is open: a lost connection (Redis
        restarted, a network fault) is reopened with backoff and resubscribed."""
        backoff = BACKOFF_FIRST
        while True:
            client = self._dedicated()
            pubsub = client.pubsub()
            try:
                channels = (self.prefix + "c", self.prefix + "n")
                await asyncio.wait_for(pubsub.subscribe(*channels), COMMAND_TIMEOUT_SECONDS)
                self._subscribed.set()
                backoff = BACKOFF_FIRST
                async for message in self._messages(pubsub):
                    self._heard(message)
            except self._failures as exc:
                self._subscribed.clear()
                self._log(exc)
            finally:
                self._subscribed.clear()
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
        if channel == (self.prefix + "n").encode() or channel == self.prefix + "n":
            if isinstance(message.get("data"), bytes):
                self._noticed(message["data"])
            return
        try:
            session_id, request_id = orjson.loads(message["data"])
        except (orjson.JSONDecodeError, TypeError, ValueError):
            return
        self._cancelled(session_id, request_id)

    async def _renew(self) -> None:
        """Keep the leases of the calls this worker runs alive."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            if not self._owned:
                continue
            lease_ms = int(LEASE_SECONDS * 1000)
            with contextlib.suppress(StoreUnavailable), self._unavailable():
                async with self._redis.pipeline(transaction=False) as pipe:
                    for stream_id in self._owned:
                        pipe.set(self.prefix + "l:" + stream_id, self.worker, px=lease_ms)
                    await pipe.execute()

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
        self._tracked[stream_id] = request_ids  # written with the lease, once opened

    async def release_calls(self, stream_id: str) -> None:
        self._tracked.pop(stream_id, None)
        if stream_id not in self._owned:
            return  # never opened: nothing was written
        self._owned.discard(stream_id)
        with contextlib.suppress(StoreUnavailable), self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self.prefix + "f:" + stream_id, b"1", ex=self.event_ttl)
                pipe.delete(self.prefix + "l:" + stream_id)
                await pipe.execute()

    async def open_stream(self, stream_id: str) -> None:
        tracked = self._tracked.get(stream_id)
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self.prefix + "o:" + stream_id, b"1", ex=self.event_ttl)
                if tracked is not None:
                    ids = orjson.dumps(tracked)
                    pipe.set(self.prefix + "i:" + stream_id, ids, ex=self.event_ttl)
                    lease_ms = int(LEASE_SECONDS * 1000)
                    pipe.set(self.prefix + "l:" + stream_id, self.worker, px=lease_ms)
                await pipe.execute()
        if tracked is not None:
            self._owned.add(stream_id)

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
            elif await self._lost(stream_id):
                with self._unavailable():
                    entries = await self._redis.xrange(key)
        return [
            (index + 1, fields[b"m"], fields[b"l"] == b"1")
            for index, (_, fields) in enumerate(entries)
            if index >= after
        ]

    async def _lost(self, stream_id: str) -> bool:
        """Whether the stream's calls were lost (their worker's lease ran out before the
        last event); the first follower to notice appends their error responses."""
        p = self.prefix
        with self._unavailable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.get(p + "i:" + stream_id)
                pipe.exists(p + "l:" + stream_id)
                pipe.exists(p + "f:" + stream_id)
                tracked, leased, finished = await pipe.execute()
            if tracked is None or leased or finished:
                return False
            if not await self._redis.set(p + "f:" + stream_id, b"lost", ex=self.event_ttl, nx=True):
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
            await self.append_event(stream_id, message, index == len(messages) - 1)
        return True

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
        found = await self._blocking(
            "blpop", [self._reply_key(session_id, request_id)], wait, wait=wait
        )
        if found is None:
            return None
        reply: dict[str, Any] = orjson.loads(found[1])
        return reply
