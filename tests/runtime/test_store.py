"""The store's contract, for the in-process store and for Redis (a private redis-server;
skipped where the Debian package is not installed): sessions, resumable event logs that
a reader can follow while they grow, cancellations heard by every subscriber, and a
client's reply delivered to the handler awaiting it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_schemagen.runtime.jsonrpc import RequestId
from mcp_schemagen.runtime.store import MemoryStore, Store, open_store
from tests.support.http_server import REDIS, redis_server


@pytest.fixture(params=["memory", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "memory":
        yield "memory:"
        return
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with redis_server(tmp_path / "redis") as url:
        yield url


async def _contract(first: Store, second: Store) -> None:
    """``first`` and ``second`` are two workers' connections to one store."""
    await first.create_session("s1", {"revision": "2025-11-25", "log_rank": 0})
    assert await second.load_session("s1") == {"revision": "2025-11-25", "log_rank": 0}
    await second.update_session("s1", {"log_rank": 3})
    assert (await first.load_session("s1") or {})["log_rank"] == 3
    assert await second.load_session("nope") is None

    assert await second.read_events("s1/stream", 0, 0.01) is None  # unknown stream
    await first.open_stream("s1/stream")
    assert await second.read_events("s1/stream", 0, 0.01) == []
    assert await first.append_event("s1/stream", b"one", False) == 1
    follower = asyncio.ensure_future(second.read_events("s1/stream", 1, 5.0))
    await asyncio.sleep(0.05)
    assert await first.append_event("s1/stream", b"two", True) == 2
    assert await follower == [(2, b"two", True)]
    assert await second.read_events("s1/stream", 0, 0.01) == [(1, b"one", False), (2, b"two", True)]

    heard: list[tuple[str, RequestId]] = []
    second.on_cancel = lambda session, request: heard.append((session, request))
    await first.publish_cancel("s1", 7)
    for _ in range(100):
        if heard:
            break
        await asyncio.sleep(0.02)
    assert heard == [("s1", 7)]

    waiting = asyncio.ensure_future(first.await_reply("s1", "r1", 5.0))
    await asyncio.sleep(0.05)
    await second.deliver_reply("s1", "r1", {"jsonrpc": "2.0", "id": "r1", "result": {}})
    assert await waiting == {"jsonrpc": "2.0", "id": "r1", "result": {}}
    assert await first.await_reply("s1", "r2", 0.05) is None

    assert await second.end_session("s1") is True
    assert await first.load_session("s1") is None
    assert await first.end_session("s1") is False


def test_store_contract(store_url: str) -> None:
    async def run() -> None:
        first = open_store(store_url)
        # The in-process store is one worker's: both "workers" share the one object.
        second = first if isinstance(first, MemoryStore) else open_store(store_url)
        await first.start()
        await second.start()
        try:
            await asyncio.wait_for(_contract(first, second), 30)
        finally:
            await first.close()
            if second is not first:
                await second.close()

    asyncio.run(run())
