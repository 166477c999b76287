"""A cancelled sync handler stops at its next ``ctx.check_cancelled()``: a thread cannot be
stopped from outside, so the context tells it (``ctx.cancelled``), and nothing it would have
returned is stored. As a task (``tasks/cancel``) and as a plain call
(``notifications/cancelled``)."""

from __future__ import annotations

import asyncio
import threading
import time

import orjson

from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.server import Server
from tests.runtime.test_tasks import REVISIONS, WITH_TASKS, Client, entry, run

STEPS: list[int] = []
STOPPED = threading.Event()
SEEN_BEFORE: list[bool] = []


def counter(*, seconds: float = 0.01) -> str:
    """Counts slowly, checking for a cancel at each step."""
    ctx = get_context()
    SEEN_BEFORE.append(ctx.cancelled)
    try:
        for step in range(500):
            time.sleep(seconds)
            ctx.check_cancelled()
            STEPS.append(step)
    except asyncio.CancelledError:
        STOPPED.set()
        raise
    return "counted to the end"


def counting_server() -> Server:
    return Server(tools=[entry(counter, "optional")], name="t", version="1", revisions=REVISIONS)


async def stopped_within(seconds: float) -> bool:
    return await asyncio.to_thread(STOPPED.wait, seconds)


def reset() -> None:
    STEPS.clear()
    SEEN_BEFORE.clear()
    STOPPED.clear()


@run
async def test_a_cancelled_sync_task_stops_at_its_next_check_and_stores_no_result() -> None:
    reset()
    client = Client(counting_server(), WITH_TASKS)
    task_id = (await client.call("counter"))["result"]["taskId"]
    while len(STEPS) < 3:
        await asyncio.sleep(0.01)
    await client.request("tasks/cancel", taskId=task_id)
    assert await stopped_within(5), "the handler never saw the cancel"
    counted = len(STEPS)
    assert counted < 500 and SEEN_BEFORE == [False]
    await asyncio.sleep(0.1)
    assert len(STEPS) == counted  # the thread stopped: no step after the cancel
    task = await client.until(task_id, "cancelled")
    assert task["statusMessage"] == "Cancelled at the client's request"
    assert "result" not in task and "error" not in task


@run
async def test_a_cancelled_sync_plain_call_stops_and_is_not_answered() -> None:
    reset()
    srv = counting_server()
    session = srv.session()
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "counter", "arguments": {}, "_meta": meta},
    }
    reply = srv.receive(orjson.dumps(call), session)
    assert reply is not None and not isinstance(reply, bytes)
    while len(STEPS) < 3:
        await asyncio.sleep(0.01)
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "_meta": meta},
    }
    srv.receive(orjson.dumps(cancel), session)
    assert await stopped_within(5), "the handler never saw the cancel"
    counted = len(STEPS)
    await asyncio.sleep(0.1)
    assert len(STEPS) == counted
    assert counted < 500
    assert isinstance(reply, asyncio.Future) and reply.cancelled()  # no response is sent
