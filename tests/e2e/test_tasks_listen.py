"""2026-07-28's ``notifications/tasks`` on ``subscriptions/listen`` (SEP-2663) from real
server processes, raw JSON-RPC, every message checked against the revision's schema and
the tasks extension's (tests/runtime/data/ext-tasks-schema.json):

- over stdio: a listener of a task hears it as the stream opens, its ``input_required``
  with the questions, ``working`` again once answered, and ``completed`` with the result;
- over HTTP with two workers on one real redis-server: the stream is held at worker B,
  the task created, answered and finished at worker A; each status written at A reaches
  the stream at B (through the store's pub/sub), and a client without the extension is
  refused with -32021.

(A status written by a task worker of ``--task-engine taskiq`` reaching a stream held at
the server: tests/e2e/test_tasks_engine.py, with that deployment.)
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.test_tasks_scale_out import EXTENSION, PACKAGE, STATELESS, create, request
from tests.runtime.test_tasks_schema import valid
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    build_project,
    free_port,
    http_command,
    redis_server,
    serving,
)
from tests.support.paths import needs_shared
from tests.support.spec_check import spec
from tests.support.stdio_conversation import Conversation, meta

pytestmark = needs_shared
WITH_TASKS = {"elicitation": {}, "extensions": {EXTENSION: {}}}
TASK_METHODS = {"tasks/get": "GetTaskResult", "tasks/update": "UpdateTaskResult"}


def check(message: dict[str, Any]) -> None:
    """A message of the stream: the tasks extension's where it is one, else the revision's."""
    method = message.get("method")
    if method == "notifications/tasks":
        valid("TaskStatusNotification", message)
    elif method == "notifications/subscriptions/acknowledged":
        valid("TaskSubscriptionAcknowledgedNotifications", message["params"]["notifications"])
        problems = spec(STATELESS).errors(message, "SubscriptionsAcknowledgedNotification")
        assert [p for p in problems if "taskIds" not in p] == [], problems
    else:
        spec(STATELESS).assert_exact(message, "JSONRPCNotification" if method else "JSONRPCMessage")


class TasksConversation(Conversation):
    """The stdio conversation, with the tasks extension's messages checked by its schema."""

    def check_single(self, message: dict[str, Any]) -> None:
        method = message.get("method") or self.pending.get(message.get("id"), "")
        if message.get("method") in (
            "notifications/tasks",
            "notifications/subscriptions/acknowledged",
        ):
            check(message)
        elif method == "tools/call" and message.get("result", {}).get("resultType") == "task":
            valid("CreateTaskResult", message["result"])
        elif method in TASK_METHODS and "result" in message:
            valid(TASK_METHODS[method], message["result"])
        else:
            super().check_single(message)


def tasks_meta() -> dict[str, Any]:
    return meta(**{"io.modelcontextprotocol/clientCapabilities": WITH_TASKS})


def heard(conversation: Conversation, task_id: str, status: str) -> list[dict[str, Any]]:
    """The task's notifications until one says ``status``."""
    conversation.wait_notification("notifications/tasks", taskId=task_id, status=status)
    return [
        m["params"]
        for m in conversation.notifications
        if m["method"] == "notifications/tasks" and m["params"]["taskId"] == task_id
    ]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(CONFORMANCE_PROJECT, tmp_path_factory.mktemp("tasks-listen"), PACKAGE)


def test_stdio_a_listener_hears_each_status_of_its_task(project: Path, tmp_path: Path) -> None:
    talk = TasksConversation(project, PACKAGE, STATELESS, tmp_path / "stdio.log")
    try:
        call = {"name": "confirm_delete", "arguments": {"filename": "x.txt"}, "_meta": tasks_meta()}
        task_id = talk.result("tools/call", call)["taskId"]
        listen = {"notifications": {"taskIds": [task_id]}, "_meta": tasks_meta()}
        talk.start("subscriptions/listen", listen, id="watch")
        ack = talk.wait_notification("notifications/subscriptions/acknowledged")
        assert ack["params"] == {
            "_meta": {"io.modelcontextprotocol/subscriptionId": "watch"},
            "notifications": {"taskIds": [task_id]},
        }
        asked = heard(talk, task_id, "input_required")[-1]
        (key,) = asked["inputRequests"]
        answer = {key: {"action": "accept", "content": {"confirm": True}}}
        update = {"taskId": task_id, "inputResponses": answer, "_meta": tasks_meta()}
        talk.result("tasks/update", update)
        seen = heard(talk, task_id, "completed")
        statuses = [n["status"] for n in seen]
        assert statuses[-3:] == ["input_required", "working", "completed"], statuses
        assert seen[-1]["result"]["content"][0]["text"] == "deleted x.txt"
        assert all(n["_meta"] == {"io.modelcontextprotocol/subscriptionId": "watch"} for n in seen)
        got = talk.result("tasks/get", {"taskId": task_id, "_meta": tasks_meta()})
        assert {k: v for k, v in got.items() if k not in ("resultType", "_meta")} == {
            k: v for k, v in seen[-1].items() if k != "_meta"
        }
    finally:
        talk.kill()


LISTEN_HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": STATELESS,
    "Mcp-Method": "subscriptions/listen",
}


class Stream:
    """An SSE stream held open over HTTP (a ``subscriptions/listen``, or with ``body``
    None a session's GET stream); its messages, as they come."""

    def __init__(
        self, url: str, body: dict[str, Any] | None, headers: dict[str, str] = LISTEN_HEADERS
    ) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        method, payload = ("GET", None) if body is None else ("POST", json.dumps(body).encode())
        self.connection.request(method, parts.path, payload, headers)
        self.response = self.connection.getresponse()
        self.messages: list[dict[str, Any]] = []
        self.method = "notifications/tasks"  # the status notifications it waits for
        if self.response.getheader("content-type", "").startswith("text/event-stream"):
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.messages.append(json.loads(self.response.read()))

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in self.response:
                if line.startswith(b"data:"):
                    self.messages.append(json.loads(line[5:]))

    def until(self, task_id: str, status: str, timeout: float = 20.0) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            mine = [
                m["params"]
                for m in list(self.messages)
                if m.get("method") == self.method and m["params"]["taskId"] == task_id
            ]
            if any(n["status"] == status for n in mine):
                return mine
            time.sleep(0.05)
        raise AssertionError(f"no {status} for {task_id} on the stream: {self.messages}")

    def close(self) -> None:
        self.connection.close()


def listen_body(task_ids: list[str], capabilities: dict[str, Any], id: str) -> dict[str, Any]:
    capabilities_meta = {"io.modelcontextprotocol/clientCapabilities": capabilities}
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "subscriptions/listen",
        "params": {"notifications": {"taskIds": task_ids}, "_meta": meta(**capabilities_meta)},
    }


@pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (Debian: redis-server)")
def test_http_a_status_written_at_one_worker_reaches_a_stream_at_the_other(
    project: Path, tmp_path: Path
) -> None:
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(tmp_path / "redis"))
        urls = []
        for name in ("a", "b"):
            port = free_port()
            command = http_command(PACKAGE, port, "--store", store)
            env = {"MCP_CODEGEN_STATE_KEY": "tasks listen key"}
            urls.append(
                stack.enter_context(serving(project, command, port, tmp_path / name, env=env))
            )
        a, b = urls

        refused = Stream(b, listen_body(["any"], {}, "plain"))
        assert refused.messages[0]["error"]["code"] == -32021
        spec(STATELESS).assert_exact(refused.messages[0], "JSONRPCErrorResponse")

        task_id = create(a, "confirm_delete", {"filename": "y.txt"})
        stream = Stream(b, listen_body([task_id], WITH_TASKS, "watch-b"))
        stack.callback(stream.close)
        asked = stream.until(task_id, "input_required")[-1]
        (key,) = asked["inputRequests"]
        answer = {key: {"action": "accept", "content": {"confirm": True}}}
        request(a, "tasks/update", {"taskId": task_id, "inputResponses": answer})
        seen = stream.until(task_id, "completed")
        statuses = [n["status"] for n in seen]
        assert statuses[-3:] == ["input_required", "working", "completed"], statuses
        assert seen[-1]["result"]["content"][0]["text"] == "deleted y.txt"
        for message in stream.messages:
            check(message)
        assert stream.messages[0]["params"]["notifications"] == {"taskIds": [task_id]}
