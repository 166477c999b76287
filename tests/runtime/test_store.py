"""The store's contract, for the in-process store and for Redis (a private redis-server;
skipped where the Debian package is not installed): sessions, resumable event logs that
a reader can follow while they grow, cancellations heard by every subscriber, and a
client's reply delivered to the handler awaiting it (tests/support/store_checks.py).

Then the faults: waits longer than redis-py's defaults and more waiters than its pool;
Redis killed and restarted (StoreUnavailable without an address, readiness, the
subscriber back); a call whose worker died (its stream ends with an error); abandoned
sessions of the in-process store freed by its sweep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from mcp_schemagen.runtime.jsonrpc import RequestId
from mcp_schemagen.runtime.store import (
    LOST_CALL_CODE,
    MemoryStore,
    StoreUnavailable,
    redis_leases,
    redis_store,
)
from mcp_schemagen.runtime.store.url import open_store
from tests.support.http_server import REDIS, RedisServer, redis_server, restartable_redis
from tests.support.store_checks import contract, run_all

needs_redis = pytest.mark.skipif(
    REDIS is None, reason="redis-server is not installed (Debian package redis-server)"
)


@pytest.fixture(params=["memory", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "memory":
        yield "memory:"
        return
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with redis_server(tmp_path / "redis") as url:
        yield url


def test_store_contract(store_url: str) -> None:
    async def run() -> None:
        first = open_store(store_url)
        second = first if isinstance(first, MemoryStore) else open_store(store_url)
        await first.start()
        await second.start()
        try:
            await asyncio.wait_for(contract(first, second), 30)
        finally:
            await first.close()
            if second is not first:
                await second.close()

    asyncio.run(run())


def test_waits_outlast_client_defaults_and_pools(store_url: str) -> None:
    """A reply after 6.5 s (redis-py 8 cut it at 5 s with a Timeout error naming the
    address) and 300 waiting readers (redis-py 8's pool of 100 failed the rest)."""
    asyncio.run(run_all(store_url))


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[RedisServer]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with restartable_redis(tmp_path / "redis") as server:
        yield server


async def _until(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await condition():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.1)
    return False


@needs_redis
def test_an_outage_raises_store_unavailable_then_everything_reconnects(
    redis: RedisServer,
) -> None:
    async def run() -> None:
        first, second = open_store(redis.url), open_store(redis.url)
        await first.start()
        await second.start()
        heard: list[tuple[str, RequestId]] = []
        second.on_cancel = lambda session, request: heard.append((session, request))
        try:
            assert await first.ready() and await second.ready()
            await first.create_session("s", {"revision": "2025-11-25"})
            redis.kill()
            calls = [
                first.load_session("s"),
                first.create_session("t", {}),
                first.append_event("s/x", b"m", False),
                first.read_events("s/x", 0, 1.0),
                first.publish_cancel("s", 1),
                first.await_reply("s", 1, 1.0),
                first.deliver_reply("s", 1, {}),
                first.end_session("s"),
            ]
            for call in calls:
                with pytest.raises(StoreUnavailable) as raised:
                    await asyncio.wait_for(call, 20)
                message = str(raised.value)
                assert "unavailable" in message and "127.0.0.1" not in message
                assert str(redis.port) not in message
            assert not await first.ready()

            redis.start()  # same port, empty (no persistence)
            assert await _until(first.ready, 20) and await _until(second.ready, 20)
            assert await first.load_session("s") is None  # the state went with Redis
            await first.create_session("s", {"revision": "2025-11-25"})
            assert await second.load_session("s") == {"revision": "2025-11-25"}

            async def cancellation_heard() -> bool:
                await first.publish_cancel("s", 7)
                await asyncio.sleep(0.2)
                return bool(heard)

            # The subscriber came back by itself: a cancellation reaches the other worker.
            assert await _until(cancellation_heard, 20)
            assert heard[0] == ("s", 7)
        finally:
            await first.close()
            await second.close()

    asyncio.run(run())


@needs_redis
def test_a_dead_owners_call_ends_its_stream_with_an_error_and_a_slow_one_does_not(
    redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_leases, "LEASE_SECONDS", 1.0)
    monkeypatch.setattr(redis_leases, "RENEW_SECONDS", 0.2)
    monkeypatch.setattr(redis_store, "LEASE_CHECK_SECONDS", 0.3)

    async def run() -> None:
        owner, follower = open_store(redis.url), open_store(redis.url)
        await owner.start()
        await follower.start()
        try:
            # A slow owner, alive: its lease is renewed, the follower keeps waiting.
            owner.track_calls("s/slow", [1])
            await owner.open_stream("s/slow")
            await owner.append_event("s/slow", b"progress", False)
            assert await follower.read_events("s/slow", 1, 3.0) == []
            await owner.append_event("s/slow", b"result", True)
            await owner.release_calls("s/slow")
            assert await follower.read_events("s/slow", 1, 1.0) == [(2, b"result", True)]

            # A cancelled call: released without a last event, so not "lost".
            owner.track_calls("s/cancelled", [2])
            await owner.open_stream("s/cancelled")
            await owner.release_calls("s/cancelled")
            assert await follower.read_events("s/cancelled", 0, 2.0) == []

            # The owner dies mid-call (its lease is no longer renewed).
            owner.track_calls("s/dead", [3, "four"])
            await owner.open_stream("s/dead")
            await owner.append_event("s/dead", b"progress", False)
            assert isinstance(owner, redis_store.RedisStore) and owner._leases._renewer is not None
            owner._leases._renewer.cancel()
            started = time.monotonic()
            events = await follower.read_events("s/dead", 1, 10.0)
            assert time.monotonic() - started < 5.0
            assert events is not None and [e[2] for e in events] == [False, True]
            errors = [orjson.loads(e[1]) for e in events]
            assert [e["id"] for e in errors] == [3, "four"]
            assert all(e["error"]["code"] == LOST_CALL_CODE for e in errors)
            assert "lost" in errors[0]["error"]["message"]
            # A second follower sees the same end, not a second copy.
            assert await follower.read_events("s/dead", 0, 1.0) == [(1, b"progress", False)] + [
                (i + 2, e[1], e[2]) for i, e in enumerate(events)
            ]
        finally:
            await owner.close()
            await follower.close()

    asyncio.run(run())


def test_the_memory_store_frees_abandoned_sessions() -> None:
    """11,000 sessions nobody uses again are dropped by the sweep, with no request to
    notice them; a session in use stays."""

    async def run() -> None:
        store = MemoryStore(session_ttl=0.5)
        await store.start()
        try:
            for index in range(11_000):
                await store.create_session(f"abandoned-{index}", {"revision": "2025-11-25"})
            await store.create_session("kept", {"revision": "2025-11-25"})
            assert store.session_count == 11_001
            for _ in range(8):
                await asyncio.sleep(0.15)
                assert await store.load_session("kept") is not None
            assert store.session_count == 1
        finally:
            await store.close()

    asyncio.run(run())
