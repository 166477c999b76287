"""2025-11-25's ``notifications/tasks/status`` over Streamable HTTP with two workers on one
real redis-server: the task runs at worker A, the session's stream is held at worker B,
and each status change written at A reaches it (through the store's pub/sub):

- a ``tasks/result`` waiting at B carries the task's status notifications, then the result;
- with no ``tasks/result`` waiting, the session's standalone GET stream at B carries them;
  another session's GET stream hears nothing of the task.

Every notification is checked against the revision's ``TaskStatusNotification``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

from tests.e2e.test_tasks_listen import Stream
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
METHOD = "notifications/tasks/status"
ENV = {"MCP_CODEGEN_STATE_KEY": "tasks status key"}


class Workers(NamedTuple):
    a: str
    b: str


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    folder = tmp_path_factory.mktemp("tasks-status")
    root = build_project(PROJECT, folder, PACKAGE)
    with servers_on_one_redis(root, PACKAGE, folder, env=ENV) as (_store, urls):
        yield Workers(urls[0], urls[1])


def start(session: HttpSession, url: str, seconds: float) -> str:
    params = {"name": "make_report", "arguments": {"rows": 2, "seconds": seconds}, "task": {}}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    reply = exchange(url, body=message, headers=session.headers("tools/call", params)).last
    task_id: str = reply["result"]["task"]["taskId"]
    return task_id


def get_stream(session: HttpSession, url: str) -> Stream:
    headers = {**session.headers("GET", None), "Accept": "text/event-stream"}
    stream = Stream(url, None, headers)
    stream.method = METHOD
    return stream


def test_a_tasks_result_at_the_other_worker_carries_the_status(workers: Workers) -> None:
    owner = HttpSession(workers.a, REVISION)
    task_id = start(owner, workers.a, 0.8)
    params: dict[str, Any] = {"taskId": task_id}
    message = {"jsonrpc": "2.0", "id": 9, "method": "tasks/result", "params": params}
    reply = exchange(workers.b, body=message, headers=owner.headers("tasks/result", params))
    assert reply.headers["content-type"].startswith("text/event-stream"), reply
    *notifications, result = reply.messages
    assert [n["method"] for n in notifications] == [METHOD], reply.messages
    spec(REVISION).assert_exact(notifications[0], "TaskStatusNotification")
    assert notifications[0]["params"]["taskId"] == task_id
    assert notifications[0]["params"]["status"] == "completed"
    assert result["id"] == 9
    assert result["result"]["structuredContent"] == {"rows": 2, "summary": "2 rows counted"}


def test_the_sessions_get_stream_at_the_other_worker_carries_the_status(
    workers: Workers,
) -> None:
    owner, other = HttpSession(workers.a, REVISION), HttpSession(workers.a, REVISION)
    streams = [get_stream(owner, workers.b), get_stream(other, workers.b)]
    try:
        task_id = start(owner, workers.a, 0.3)
        heard = streams[0].until(task_id, "completed")
        assert [n["status"] for n in heard] == ["completed"]
        for message in streams[0].messages:
            spec(REVISION).assert_exact(message, "TaskStatusNotification")
        assert streams[1].messages == []  # another session's stream: nothing of it
    finally:
        for stream in streams:
            stream.close()
