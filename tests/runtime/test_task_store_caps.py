"""``TaskStore.create_within``, the count behind the per-principal cap on engine tasks,
against both task stores: in memory, and in a real redis-server (its Lua script) shared
by two server processes' stores. A task counts while it is neither finished nor lost
(its lease run out); each owner is counted apart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from mcp_schemagen.runtime.store.tasks import MemoryTaskStore, TaskStore, now_ms
from mcp_schemagen.runtime.tasks.records import finished, new_record
from tests.support.http_server import REDIS, redis_server

CAP = 2
TTL_MS = 60_000


@pytest.fixture(params=["memory", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "memory":
        yield "memory:"
        return
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    with redis_server(tmp_path / "redis") as url:
        yield url


@asynccontextmanager
async def two_stores(url: str) -> AsyncIterator[tuple[TaskStore, TaskStore]]:
    """Two server processes' task stores on one store (one memory store: the same)."""
    if url == "memory:":
        memory = MemoryTaskStore()
        yield memory, memory
        return
    from mcp_schemagen.runtime.store.redis_store import RedisStore
    from mcp_schemagen.runtime.store.redis_tasks import RedisTaskStore

    stores = RedisStore(url), RedisStore(url)
    for store in stores:
        await store.start()
    try:
        yield RedisTaskStore(stores[0]), RedisTaskStore(stores[1])
    finally:
        for store in stores:
            await store.close()


def record(task_id: str, owner: str) -> dict[str, str]:
    return new_record(task_id, owner, "tool", TTL_MS, 100, now_ms() + 60_000)


def test_an_owners_tasks_are_counted_until_finished_or_lost(store_url: str) -> None:
    async def run() -> None:
        async with two_stores(store_url) as (a, b):
            alice, bob = "iss\nalice", "iss\nbob"
            assert await a.create_within("t1", record("t1", alice), TTL_MS, alice, CAP)
            assert await b.create_within("t2", record("t2", alice), TTL_MS, alice, CAP)
            assert not await a.create_within("t3", record("t3", alice), TTL_MS, alice, CAP)
            assert await a.read("t3") is None  # refused: nothing stored
            assert await b.create_within("b1", record("b1", bob), TTL_MS, bob, CAP)
            # Finished: no longer counted.
            await a.write("t1", finished("completed", None, result={}), clear_questions=True)
            assert await b.create_within("t3", record("t3", alice), TTL_MS, alice, CAP)
            assert not await a.create_within("t4", record("t4", alice), TTL_MS, alice, CAP)
            # Lost (its lease ran out, not yet ended by a reader): no longer counted.
            await b.write("t2", {"lease": str(now_ms() - 1)}, clear_questions=False)
            assert await a.create_within("t4", record("t4", alice), TTL_MS, alice, CAP)
            assert not await b.create_within("t5", record("t5", alice), TTL_MS, alice, CAP)
            stored = await b.read("t4")
            assert stored is not None and stored["status"] == "working"

    asyncio.run(run())


def test_an_expired_task_stops_counting(store_url: str) -> None:
    async def run() -> None:
        async with two_stores(store_url) as (a, b):
            alice = "iss\nalice"
            assert await a.create_within("e1", record("e1", alice), 200, alice, 1)
            assert not await b.create_within("e2", record("e2", alice), TTL_MS, alice, 1)
            await asyncio.sleep(0.3)  # e1's TTL (200 ms) is over
            assert await b.create_within("e2", record("e2", alice), TTL_MS, alice, 1)

    asyncio.run(run())
