"""The experimental tasks of 2025-11-25 for clients of that revision, in process: the
capability, params.task, tasks/get, tasks/result (waits, then answers what the call
would have), tasks/cancel (the cancelled Task; -32602 once finished), -32601 for a
required tool called without a task and for a forbidden one called with one, and each
era's methods refused in the other."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import orjson

from mcp_schemagen.runtime.server import Server
from tests.runtime.test_tasks import STATELESS, WITH_TASKS, Client, run, server
from tests.support.spec_check import spec

REVISION = "2025-11-25"


class SessionClient:
    def __init__(self, srv: Server) -> None:
        self.server = srv
        self.sent: list[dict[str, Any]] = []  # what the server sent: requests, notifications
        self.session = srv.session(lambda data: self.sent.append(orjson.loads(data)))
        self.ids = itertools.count(1)

    async def request(self, method: str, **params: Any) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        reply = self.server.receive(orjson.dumps(message), self.session)
        if reply is not None and not isinstance(reply, bytes):
            reply = await reply
        assert reply is not None
        answer: dict[str, Any] = orjson.loads(reply)
        return answer

    async def open(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        opened = await self.request(
            "initialize", protocolVersion=REVISION, capabilities=capabilities or {}
        )
        result: dict[str, Any] = opened["result"]
        return result

    async def answer(self, count: int, response: dict[str, Any]) -> list[dict[str, Any]]:
        """Answer the server's requests until ``count`` were asked; return them."""
        answered: list[dict[str, Any]] = []
        for _ in range(500):
            asked = [m for m in self.sent if "method" in m and "id" in m]
            for message in asked[len(answered) :]:
                answered.append(message)
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": response}
                assert self.server.receive(orjson.dumps(reply), self.session) is None
            if len(answered) >= count:
                return answered
            await asyncio.sleep(0.01)
        raise AssertionError(f"the server asked {answered}")


@run
async def test_the_2025_11_25_form_of_one_task() -> None:
    client = SessionClient(server())
    capabilities = (await client.open())["capabilities"]
    assert capabilities["tasks"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    assert "extensions" not in capabilities
    listed = (await client.request("tools/list"))["result"]["tools"]
    assert {t["name"]: t.get("execution") for t in listed}["sleeper"] == {"taskSupport": "optional"}

    created = await client.request(
        "tools/call", name="sleeper", arguments={"seconds": 0.05}, task={"ttl": 1000}
    )
    task = created["result"]["task"]
    assert task["status"] == "working" and (task["ttl"], task["pollInterval"]) == (60_000, 100)
    got = (await client.request("tasks/get", taskId=task["taskId"]))["result"]
    assert got["taskId"] == task["taskId"] and "ttlMs" not in got
    result = (await client.request("tasks/result", taskId=task["taskId"]))["result"]
    assert result["content"] == [{"type": "text", "text": "slept 0.05"}]
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": task["taskId"]}
    # Without params.task an optional tool is a plain call.
    plain = await client.request("tools/call", name="sleeper", arguments={"seconds": 0})
    assert plain["result"]["content"][0]["text"] == "slept 0"


@run
async def test_required_forbidden_and_cancel_in_2025_11_25() -> None:
    client = SessionClient(server())
    await client.open()
    refused = await client.request("tools/call", name="broken", arguments={})
    assert refused["error"]["code"] == -32601
    forbidden = await client.request("tools/call", name="plain", arguments={}, task={})
    assert forbidden["error"]["code"] == -32601
    broken = await client.request("tools/call", name="broken", arguments={}, task={})
    outcome = await client.request("tasks/result", taskId=broken["result"]["task"]["taskId"])
    assert outcome["result"]["isError"] is True  # a tool error: the call's own result

    running = await client.request("tools/call", name="sleeper", arguments={"seconds": 30}, task={})
    task_id = running["result"]["task"]["taskId"]
    cancelled = (await client.request("tasks/cancel", taskId=task_id))["result"]
    assert cancelled["status"] == "cancelled" and cancelled["taskId"] == task_id
    again = await client.request("tasks/cancel", taskId=task_id)
    assert again["error"]["code"] == -32602
    assert (await client.request("tasks/result", taskId=task_id))["error"]["code"] == -32603
    assert (await client.request("tasks/update", taskId=task_id))["error"]["code"] == -32601


@run
async def test_each_era_refuses_the_others_methods() -> None:
    client = Client(server(), WITH_TASKS)
    for method in ("tasks/result", "tasks/list"):
        refused = await client.request(method, taskId="x")
        assert refused["error"]["code"] == -32601, (method, STATELESS)


@run
async def test_a_question_inside_a_2025_11_25_task_names_the_task_and_shows_input_required() -> (
    None
):
    client = SessionClient(server())
    await client.open({"elicitation": {"form": {}}})
    created = await client.request("tools/call", name="asker", arguments={}, task={})
    task_id = created["result"]["task"]["taskId"]
    for _ in range(200):
        if any("method" in m for m in client.sent):
            break
        await asyncio.sleep(0.01)
    waiting = (await client.request("tasks/get", taskId=task_id))["result"]
    assert waiting["status"] == "input_required"
    asked = await client.answer(3, {"action": "decline"})
    assert [m["method"] for m in asked] == ["elicitation/create"] * 3
    for message in asked:
        related = message["params"]["_meta"]["io.modelcontextprotocol/related-task"]
        assert related == {"taskId": task_id}
    result = (await client.request("tasks/result", taskId=task_id))["result"]
    assert result["content"][0]["text"] == "decline ['decline', 'decline']"


@run
async def test_every_2025_11_25_task_reply_is_exactly_that_revisions_shape() -> None:
    exact = spec(REVISION).assert_exact
    client = SessionClient(server())
    exact(await client.open(), "InitializeResult")
    created = await client.request("tools/call", name="sleeper", arguments={}, task={})
    exact(created["result"], "CreateTaskResult")
    task_id = created["result"]["task"]["taskId"]
    exact((await client.request("tasks/get", taskId=task_id))["result"], "GetTaskResult")
    exact((await client.request("tasks/result", taskId=task_id))["result"], "CallToolResult")
    exact((await client.request("tasks/get", taskId=task_id))["result"], "GetTaskResult")
    running = await client.request("tools/call", name="sleeper", arguments={"seconds": 9}, task={})
    cancel = await client.request("tasks/cancel", taskId=running["result"]["task"]["taskId"])
    exact(cancel["result"], "CancelTaskResult")
