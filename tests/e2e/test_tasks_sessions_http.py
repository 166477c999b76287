"""Over Streamable HTTP without authorization, a 2025-11-25 task is bound to the
Mcp-Session-Id that created it: another session holding the task's id gets "Task not
found" from tasks/get, tasks/result and tasks/cancel (a real server process; every
message schema-checked by HttpSession)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.http_client import HttpSession, exchange
from tests.support.http_server import build_project, free_port, http_command, serving
from tests.support.paths import REPO, needs_shared

pytestmark = needs_shared
PROJECT = REPO / "tests" / "client" / "tasks_project"
PACKAGE = "tasks_server"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("tasks-sessions")
    root = build_project(PROJECT, folder, PACKAGE)
    port = free_port()
    with serving(root, http_command(PACKAGE, port), port, folder / "server.log") as served:
        yield served


def send(session: HttpSession, method: str, params: dict[str, Any]) -> Any:
    """One request of ``session``, past its checker (which knows no task methods and reads
    tools/call's result as a CallToolResult only): its one reply."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return exchange(session.url, body=message, headers=session.headers(method, params)).last


def test_a_task_is_bound_to_its_mcp_session_id(url: str) -> None:
    owner, other = HttpSession(url, "2025-11-25"), HttpSession(url, "2025-11-25")
    arguments = {"rows": 2, "seconds": 0.3}
    created = send(owner, "tools/call", {"name": "make_report", "arguments": arguments, "task": {}})
    task_id = created["result"]["task"]["taskId"]
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        refused = send(other, method, {"taskId": task_id})
        assert refused["error"]["code"] == -32602, refused
        assert refused["error"]["message"] == f"Task not found: {task_id}"
    assert send(owner, "tasks/get", {"taskId": task_id})["result"]["taskId"] == task_id
    result = send(owner, "tasks/result", {"taskId": task_id})["result"]
    assert result["structuredContent"] == {"rows": 2, "summary": "2 rows counted"}
