"""Over Streamable HTTP without authorization, a 2025-11-25 task is bound to the
Mcp-Session-Id that created it, at every worker: two server processes on one real
redis-server, each request of a session sent to either. Another session holding the
task's id gets "Task not found" from tasks/get, tasks/result and tasks/cancel; tasks/list
at either worker lists the session's own tasks and nothing of another's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

from tests.support.http_client import HttpSession, exchange
from tests.support.http_server import (
    REDIS,
    build_project,
    servers_on_one_redis,
)
from tests.support.paths import REPO, needs_shared
from tests.support.spec_check import spec

pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]
PROJECT = REPO / "tests" / "client" / "tasks_project"
PACKAGE = "tasks_server"
REVISION = "2025-11-25"
ENV = {"MCP_CODEGEN_STATE_KEY": "tasks sessions key"}


class Workers(NamedTuple):
    a: str
    b: str


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    folder = tmp_path_factory.mktemp("tasks-sessions")
    root = build_project(PROJECT, folder, PACKAGE)
    with servers_on_one_redis(root, PACKAGE, folder, env=ENV) as (_store, urls):
        yield Workers(urls[0], urls[1])


def send(session: HttpSession, method: str, params: dict[str, Any], url: str) -> Any:
    """One request of ``session`` to worker ``url``, past its checker (which knows no task
    methods and reads tools/call's result as a CallToolResult only): its one reply."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return exchange(url, body=message, headers=session.headers(method, params)).last


def start(session: HttpSession, url: str, seconds: float) -> str:
    params = {"name": "make_report", "arguments": {"rows": 2, "seconds": seconds}, "task": {}}
    task_id: str = send(session, "tools/call", params, url)["result"]["task"]["taskId"]
    return task_id


def test_a_task_is_bound_to_its_mcp_session_id_at_every_worker(workers: Workers) -> None:
    owner, other = HttpSession(workers.a, REVISION), HttpSession(workers.a, REVISION)
    task_id = start(owner, workers.a, 0.3)
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        for url in workers:
            refused = send(other, method, {"taskId": task_id}, url)
            assert refused["error"]["code"] == -32602, refused
            assert refused["error"]["message"] == f"Task not found: {task_id}"
    got = send(owner, "tasks/get", {"taskId": task_id}, workers.b)["result"]
    assert got["taskId"] == task_id
    result = send(owner, "tasks/result", {"taskId": task_id}, workers.b)["result"]
    assert result["structuredContent"] == {"rows": 2, "summary": "2 rows counted"}


def test_tasks_list_shows_the_sessions_own_tasks_at_either_worker(workers: Workers) -> None:
    owner, other = HttpSession(workers.a, REVISION), HttpSession(workers.b, REVISION)
    mine = [start(owner, workers.a, 0), start(owner, workers.b, 0)]
    theirs = start(other, workers.a, 0)
    for url in workers:
        listed = send(owner, "tasks/list", {}, url)["result"]
        spec(REVISION).assert_exact(listed, "ListTasksResult")
        assert [t["taskId"] for t in listed["tasks"]] == mine
        other_listed = send(other, "tasks/list", {}, url)["result"]["tasks"]
        assert [t["taskId"] for t in other_listed] == [theirs]


def test_a_waiting_tasks_result_carries_the_status_notification(workers: Workers) -> None:
    """Over HTTP the answered tools/call left no stream, but a tasks/result waiting at the
    worker running the task has its own: the task's notifications/tasks/status go there,
    before the result."""
    owner = HttpSession(workers.a, REVISION)
    task_id = start(owner, workers.a, 0.5)
    message = {"jsonrpc": "2.0", "id": 9, "method": "tasks/result", "params": {"taskId": task_id}}
    headers = owner.headers("tasks/result", message["params"])
    reply = exchange(workers.a, body=message, headers=headers)
    assert reply.headers["content-type"].startswith("text/event-stream"), reply
    notification, result = reply.messages[-2:]
    spec(REVISION).assert_exact(notification, "TaskStatusNotification")
    assert notification["method"] == "notifications/tasks/status"
    assert notification["params"]["taskId"] == task_id
    assert notification["params"]["status"] == "completed"
    assert result["id"] == 9
    assert result["result"]["structuredContent"] == {"rows": 2, "summary": "2 rows counted"}
