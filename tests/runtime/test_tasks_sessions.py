"""A task is bound to the session that created it where sessions exist (2025-11-25: stdio's
one connection, HTTP's Mcp-Session-Id), even without authorization: another session
holding its id gets "Task not found" from tasks/get, tasks/result and tasks/cancel, and
the task goes on for its own session. 2026-07-28 has no sessions: there the id (and the
principal) is the key, so a task is reached from any request that declares the extension."""

from __future__ import annotations

from mcp_schemagen.runtime.server import Server
from tests.runtime.test_tasks import WITH_TASKS, Client, run, server
from tests.runtime.test_tasks_2025 import SessionClient


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
