"""The store's contract as plain coroutines, with no pytest: tests/runtime/test_store.py runs
them in the test environment, and tests/runtime/test_redis_py_majors.py runs them under
every major version of redis-py the declared range admits, in a small venv of its own:

    python -m tests.support.store_checks redis://127.0.0.1:PORT/0

``first`` and ``second`` are two workers' connections to one store.
"""

from __future__ import annotations

import asyncio
import sys
import time

from mcp_schemagen.runtime.jsonrpc import RequestId
from mcp_schemagen.runtime.store import MemoryStore, Store
from mcp_schemagen.runtime.store.url import open_store


async def contract(first: Store, second: Store) -> None:
    """Sessions, resumable event logs a reader follows while they grow, cancellations
    heard by every subscriber, change notices heard by every worker once, a session's
    resource subscriptions, a client's reply delivered to the handler awaiting it."""
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

    # A change notice reaches every worker once, the publisher's own included, in order.
    notices: dict[str, list[bytes]] = {"first": [], "second": []}
    first.on_notice = notices["first"].append
    second.on_notice = notices["second"].append
    for notice in (b'["updated","file:///a"]', b'["tools",null]'):
        await second.publish_notice(notice)
    wanted = [b'["updated","file:///a"]', b'["tools",null]']
    expected = {"first": wanted, "second": wanted} if first is not second else None
    for _ in range(100):
        if all(len(n) >= 2 for n in notices.values()):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.05)  # and no second copy
    if expected is not None:
        assert notices == expected, notices
    else:  # one in-process store: the last callback set hears each notice once
        assert notices["second"] == wanted and notices["first"] == [], notices

    waiting = asyncio.ensure_future(first.await_reply("s1", "r1", 5.0))
    await asyncio.sleep(0.05)
    await second.deliver_reply("s1", "r1", {"jsonrpc": "2.0", "id": "r1", "result": {}})
    assert await waiting == {"jsonrpc": "2.0", "id": "r1", "result": {}}
    assert await first.await_reply("s1", "r2", 0.05) is None

    # A session's resource subscriptions: changed anywhere, read anywhere, ended with it.
    assert await second.subscriptions_of("s1") == []
    assert await second.subscriptions_of("nope") is None
    await first.change_subscriptions("s1", [("file:///b", True), ("file:///a", True)])
    await second.change_subscriptions("s1", [("file:///b", False), ("file:///c", True)])
    await asyncio.gather(  # at once, from two workers: neither change is lost
        first.change_subscriptions("s1", [("file:///d", True)]),
        second.change_subscriptions("s1", [("file:///e", True)]),
    )
    wanted_uris = ["file:///a", "file:///c", "file:///d", "file:///e"]
    assert sorted(await first.subscriptions_of("s1") or []) == wanted_uris
    assert (await second.load_session("s1") or {}).get("revision") == "2025-11-25"

    assert await second.end_session("s1") is True
    assert await first.subscriptions_of("s1") is None
    assert await first.load_session("s1") is None
    assert await first.end_session("s1") is False


async def long_waits(first: Store, second: Store, wait: float = 6.5) -> None:
    """A reply and an event that come after longer than any client library's default
    socket timeout (redis-py 8: 5 s) still reach the waiting handler and stream."""
    await first.open_stream("s2/stream")
    reply = asyncio.ensure_future(first.await_reply("s2", "late", wait + 10))
    follower = asyncio.ensure_future(first.read_events("s2/stream", 0, wait + 10))
    await asyncio.sleep(wait)
    assert not reply.done() and not follower.done()
    await second.deliver_reply("s2", "late", {"jsonrpc": "2.0", "id": "late", "result": {}})
    await second.append_event("s2/stream", b"late", True)
    assert await asyncio.wait_for(reply, 5) == {"jsonrpc": "2.0", "id": "late", "result": {}}
    assert await asyncio.wait_for(follower, 5) == [(1, b"late", True)]


async def many_followers(first: Store, second: Store, count: int = 300) -> None:
    """More waiting readers than any connection pool holds (redis-py 8 caps one at 100):
    each is served, and short commands go on meanwhile."""
    await first.open_stream("s3/stream")
    followers = [
        asyncio.ensure_future(second.read_events("s3/stream", 0, 20.0)) for _ in range(count)
    ]
    await asyncio.sleep(1.0)
    started = time.monotonic()
    await first.create_session("s3", {"revision": "2025-11-25"})
    assert await second.load_session("s3") == {"revision": "2025-11-25"}
    assert time.monotonic() - started < 2.0  # not queued behind the waiting readers
    assert not any(f.done() for f in followers)
    await first.append_event("s3/stream", b"all", True)
    results = await asyncio.wait_for(asyncio.gather(*followers), 15)
    assert results == [[(1, b"all", True)]] * count


CHECKS = (contract, long_waits, many_followers)


async def run_all(url: str) -> None:
    first = open_store(url)
    # The in-process store is one worker's: both "workers" share the one object.
    second = first if isinstance(first, MemoryStore) else open_store(url)
    await first.start()
    await second.start()
    try:
        for check in CHECKS:
            await asyncio.wait_for(check(first, second), 60)
    finally:
        await first.close()
        if second is not first:
            await second.close()


if __name__ == "__main__":
    import redis

    asyncio.run(run_all(sys.argv[1]))
    print(f"store checks passed with redis-py {redis.__version__}")
