"""2025-11-25's ``notifications/tasks/status``: each change of a task's status after its
creation (input_required, working again, completed, failed, cancelled) is sent to the
session that created it, on its stream (raw JSON-RPC, in process: what stdio carries),
each exactly that revision's TaskStatusNotification, and never to another session."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.runtime.test_tasks import run, server
from tests.runtime.test_tasks_2025 import REVISION, SessionClient
from tests.support.spec_check import spec

METHOD = "notifications/tasks/status"


def statuses(client: SessionClient, task_id: str) -> list[str]:
    sent = [m for m in client.sent if m.get("method") == METHOD]
    for message in sent:
        spec(REVISION).assert_exact(message, "TaskStatusNotification")
    return [m["params"]["status"] for m in sent if m["params"]["taskId"] == task_id]


async def until_status(client: SessionClient, task_id: str, status: str) -> list[str]:
    for _ in range(500):
        seen = statuses(client, task_id)
        if status in seen:
            return seen
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {status} notification for {task_id}: {client.sent}")


@run
async def test_the_requester_hears_each_status_and_no_other_session_does() -> None:
    srv = server()
    owner, other = SessionClient(srv), SessionClient(srv)
    await owner.open({"elicitation": {"form": {}}})
    await other.open({"elicitation": {"form": {}}})
    created = await owner.request("tools/call", name="sleeper", arguments={}, task={})
    task_id = created["result"]["task"]["taskId"]
    assert await until_status(owner, task_id, "completed") == ["completed"]
    done = [m for m in owner.sent if m.get("method") == METHOD][-1]["params"]
    got = (await owner.request("tasks/get", taskId=task_id))["result"]
    assert done == got  # the whole Task, as tasks/get shows it

    asking = await owner.request("tools/call", name="asker", arguments={}, task={})
    asker_id = asking["result"]["task"]["taskId"]
    await until_status(owner, asker_id, "input_required")
    await owner.answer(3, {"action": "decline"})
    seen = await until_status(owner, asker_id, "completed")
    assert seen[0] == "input_required" and seen[-1] == "completed" and "working" in seen

    long: dict[str, Any] = await owner.request(
        "tools/call", name="sleeper", arguments={"seconds": 30}, task={}
    )
    long_id = long["result"]["task"]["taskId"]
    await owner.request("tasks/cancel", taskId=long_id)
    assert await until_status(owner, long_id, "cancelled") == ["cancelled"]
    await asyncio.sleep(0.1)
    assert statuses(owner, long_id) == ["cancelled"]  # once, not again when the run stops
    assert [m for m in other.sent if m.get("method") == METHOD] == []
