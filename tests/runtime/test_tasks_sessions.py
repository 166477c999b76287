"""A task is bound to the session that created it where sessions exist (2025-11-25: stdio's
one connection, HTTP's Mcp-Session-Id), even without authorization: another session
holding its id gets "Task not found" from tasks/get, tasks/result and tasks/cancel, and
the task goes on for its own session; tasks/list (2025-11-25 only) lists the session's own
tasks in cursor pages, exactly as that revision's schema says. 2026-07-28 has no sessions:
there the id (and the principal) is the key, so a task is reached from any request that
declares the extension, and there is no tasks/list."""

from __future__ import annotations

from mcp_schemagen.runtime.server import Server
from tests.runtime.test_tasks import WITH_TASKS, Client, run, server
from tests.runtime.test_tasks_2025 import REVISION, SessionClient
from tests.support.spec_check import spec


@run
async def test_another_session_cannot_see_or_cancel_a_2025_11_25_task() -> None:
    srv: Server = server()
    owner, other = SessionClient(srv), SessionClient(srv)
    await owner.open()
    await other.open()
    created = await owner.request(
        "tools/call", name="sleeper", arguments={"seconds": 0.2}, task={"ttl": 1000}
    )
    task_id = created["result"]["task"]["taskId"]
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        refused = await other.request(method, taskId=task_id)
        assert refused["error"] == {"code": -32602, "message": f"Task not found: {task_id}"}
    assert (await owner.request("tasks/get", taskId=task_id))["result"]["status"] == "working"
    result = (await owner.request("tasks/result", taskId=task_id))["result"]
    assert result["content"] == [{"type": "text", "text": "slept 0.2"}]


@run
async def test_without_sessions_the_id_is_the_key() -> None:
    srv = server()
    first, second = Client(srv, WITH_TASKS), Client(srv, WITH_TASKS)
    task_id = (await first.call("sleeper", seconds=0.05))["result"]["taskId"]
    done = await second.until(task_id, "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "slept 0.05"}]


@run
async def test_tasks_list_shows_only_the_sessions_own_tasks_in_pages() -> None:
    srv = server()
    owner, other = SessionClient(srv), SessionClient(srv)
    await owner.open()
    await other.open()
    created = []
    for _ in range(55):  # more than a page (50)
        call = await owner.request("tools/call", name="sleeper", arguments={"seconds": 0}, task={})
        created.append(call["result"]["task"]["taskId"])
    theirs = await other.request("tools/call", name="sleeper", arguments={"seconds": 0}, task={})
    first = (await owner.request("tasks/list"))["result"]
    spec(REVISION).assert_exact(first, "ListTasksResult")
    assert len(first["tasks"]) == 50 and "nextCursor" in first
    second = (await owner.request("tasks/list", cursor=first["nextCursor"]))["result"]
    spec(REVISION).assert_exact(second, "ListTasksResult")
    assert "nextCursor" not in second
    listed = [t["taskId"] for t in first["tasks"] + second["tasks"]]
    assert listed == created  # oldest first, every one, none of the other session's
    other_listed = (await other.request("tasks/list"))["result"]["tasks"]
    assert [t["taskId"] for t in other_listed] == [theirs["result"]["task"]["taskId"]]
    refused = await owner.request("tasks/list", cursor="not-a-cursor")
    assert refused["error"] == {"code": -32602, "message": "Invalid cursor"}
    stateless = await Client(srv, WITH_TASKS).request("tasks/list")
    assert stateless["error"]["code"] == -32601  # 2026-07-28 has no tasks/list
