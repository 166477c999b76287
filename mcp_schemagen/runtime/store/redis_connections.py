"""The Redis store's connections: the shared pool of short commands, the connections of
their own that blocking reads and the subscriber use, and the one way their failures
reach callers (``StoreUnavailable``; the detail, without the address, goes to stderr).

Every setting that decides behaviour is set here, never left to redis-py's defaults,
which changed between majors (8 brought a 5 s socket timeout and a 100-connection pool):
short commands share a pool with an explicit command timeout, and a caller waits (up to
``POOL_WAIT_SECONDS``) for a free connection rather than failing. ``redis`` is imported
inside ``RedisConnections.__init__``: only a server configured with a Redis store needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from . import StoreUnavailable

COMMAND_TIMEOUT_SECONDS = 5.0  # one short command, from sending to its answer
CONNECT_TIMEOUT_SECONDS = 2.0
POOL_SIZE = 64  # connections for short commands; more callers wait for one
# How long a caller waits for a free pooled connection: a queue behind a burst (a thousand
# resumed streams at once), not a sign that Redis is gone (that fails on the socket), so
# longer than one command's timeout.
POOL_WAIT_SECONDS = 15.0
IDLE_BLOCKING = 32  # blocking-read connections kept open for reuse


async def closed(resource: Any) -> None:
    """Close a redis-py client or pub/sub: ``aclose`` from 5.0.1, ``close`` in 5.0.0."""
    close = getattr(resource, "aclose", None) or resource.close
    await close()


class RedisConnections:
    """The clients of one store on one Redis URL, and how their failures are reported."""

    def __init__(self, url: str) -> None:
        # Imported here: only a server configured with a Redis store needs the package.
        import redis.asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff, NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        self._library: Any = redis
        self._no_retry: Any = Retry(NoBackoff(), 0)
        self.failures: tuple[type[BaseException], ...] = (
            RedisConnectionError, RedisTimeoutError, OSError, TimeoutError
        )  # fmt: skip
        self.url = url
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
        self.pooled: Any = redis.Redis(connection_pool=pool)  # for short commands
        # Closes the pool's connections not in use (kept, not used, after a burst).
        self.give_back: Callable[[], Awaitable[None]] = functools.partial(
            pool.disconnect, inuse_connections=False
        )
        self._idle: list[Any] = []  # blocking-read clients, one connection each
        self._closing: set[asyncio.Future[Any]] = set()
        self._logged_at = 0.0

    def dedicated(self) -> Any:
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

    async def blocking(self, command: str, *args: Any, wait: float, **kwargs: Any) -> Any:
        """Run a blocking command that waits up to ``wait`` seconds in Redis, on a
        connection of its own; a connection that failed or was interrupted is closed."""
        client = self._idle.pop() if self._idle else self.dedicated()
        try:
            with self.unavailable():
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
    def unavailable(self) -> Iterator[None]:
        """Turn a lost or timed-out connection into ``StoreUnavailable``."""
        try:
            yield
        except self.failures as exc:
            self.log(exc)
            raise StoreUnavailable() from None

    def log(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._logged_at > 5.0:  # one line per outage burst, not one per request
            self._logged_at = now
            print(f"store: Redis unavailable: {type(exc).__name__}: {exc}", file=sys.stderr)

    async def close(self) -> None:
        """Close the idle blocking-read clients (waiting a moment for them) and the pool."""
        for client in self._idle:
            self._discard(client)
        self._idle.clear()
        if self._closing:
            await asyncio.wait(set(self._closing), timeout=1.0)
        with contextlib.suppress(Exception):
            await closed(self.pooled)
