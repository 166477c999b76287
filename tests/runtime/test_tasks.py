"""Durable tasks (the tasks extension, 2026-07-28) in process, on the memory task store:
what a client that declares the extension sees, what one that does not sees, questions
inside a task, cancellation, another principal, TTL expiry, a worker lost mid-task, and
the build's checks of the tool file."""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from mcp_schemagen.check.task_checks import check_task_fields
from mcp_schemagen.runtime.asking.questions import form
from mcp_schemagen.runtime.auth.principal import Principal
from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.protocol import BY_NAME
from mcp_schemagen.runtime.registry import PublishedForms, ToolEntry
from mcp_schemagen.runtime.result import ToolError
from mcp_schemagen.runtime.server import Server
from mcp_schemagen.runtime.store.tasks import now_ms
from mcp_schemagen.runtime.tasks.records import LOST_MESSAGE, new_record
from mcp_schemagen.source import Source

STATELESS = "2026-07-28"
REVISIONS = ["2025-11-25", STATELESS]
EXTENSION = "io.modelcontextprotocol/tasks"
WITH_TASKS = {"elicitation": {"form": {}}, "extensions": {EXTENSION: {}}}
CONFIRM = form({"ok": {"type": "boolean"}})


def run(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), 20))

    return wrapper


async def sleeper(*, seconds: float = 0.05) -> str:
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


def broken() -> str:
    raise ToolError("it broke")


async def asker() -> str:
    ctx = get_context()
    first = await ctx.elicit("First?", CONFIRM, key="ok")
    both = await asyncio.gather(
        ctx.elicit("Again?", CONFIRM, key="ok"), ctx.elicit("Other?", CONFIRM, key="other")
    )
    return f"{first.action} {[a.action for a in both]}"


def plain() -> str:
    return "plain"


async def greeter() -> str:
    """Asks in the call's own rounds, then goes on as a task (start: "handler")."""
    ctx = get_context()
    answer = await ctx.elicit("Name?", form({"name": {"type": "string"}}), key="name")
    assert await ctx.start_task() is True
    await asyncio.sleep(0.01)
    return f"Hello, {(answer.content or {}).get('name')}"


def entry(handler: Callable[..., Any], support: str | None, **task: int | str) -> ToolEntry:
    definition: dict[str, Any] = {"name": handler.__name__, "inputSchema": {"type": "object"}}
    if support is not None:
        definition["execution"] = {"taskSupport": support}
    if task:
        definition["x-mcp-codegen-task"] = task
    return ToolEntry(
        name=handler.__name__,
        published=PublishedForms(definition, {r: BY_NAME[r] for r in REVISIONS}),
        input_schema={"type": "object"},
        output_schema=None,
        handler=handler,
        arguments={"seconds": "seconds"},
        defaults={},
    )


async def rerunnable(*, seconds: float = 0.05) -> str:
    await asyncio.sleep(seconds)
    return f"ran again for {seconds}"


def server(ttl_ms: int = 60_000) -> Server:
    tools = [
        entry(sleeper, "optional", ttlMs=ttl_ms, pollIntervalMs=100),
        entry(rerunnable, "optional", onLost="rerun"),
        entry(broken, "required"),
        entry(asker, "optional"),
        entry(plain, None),
        entry(greeter, "required", start="handler"),
    ]
    return Server(tools=tools, name="t", version="1", revisions=REVISIONS)


class Client:
    def __init__(self, srv: Server, capabilities: dict[str, Any]) -> None:
        self.server, self.capabilities = srv, capabilities
        self.session = srv.session()
        self.ids = itertools.count(1)

    async def request(self, method: str, **params: Any) -> dict[str, Any]:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
        }
        message = {"jsonrpc": "2.0", "id": next(self.ids), "method": method, "params": params}
        reply = self.server.receive(orjson.dumps(message), self.session)
        if reply is not None and not isinstance(reply, bytes):
            reply = await reply
        assert reply is not None
        answer: dict[str, Any] = orjson.loads(reply)
        return answer

    async def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        return await self.request("tools/call", name=name, arguments=arguments)

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        for _ in range(400):
            task = (await self.request("tasks/get", taskId=task_id))["result"]
            if task["status"] in statuses:
                return task
            await asyncio.sleep(0.01)
        raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


@run
async def test_a_declaring_client_gets_a_task_stored_before_the_answer() -> None:
    client = Client(server(), WITH_TASKS)
    created = (await client.call("sleeper", seconds=0.05))["result"]
    assert created["resultType"] == "task"
    assert created["status"] == "working"
    assert (created["ttlMs"], created["pollIntervalMs"]) == (60_000, 100)
    assert not {"result", "error", "inputRequests", "requestState", "task"} & created.keys()
    task_id = created["taskId"]
    working = (await client.request("tasks/get", taskId=task_id))["result"]  # at once
    assert working["taskId"] == task_id and working["resultType"] == "complete"
    done = await client.until(task_id, "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "slept 0.05"}]
    assert done["result"].get("isError", False) is False


@run
async def test_a_tool_error_completes_and_a_sync_only_tool_never_becomes_a_task() -> None:
    client = Client(server(), WITH_TASKS)
    created = (await client.call("broken"))["result"]
    done = await client.until(created["taskId"], "completed", "failed")
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert (await client.call("plain"))["result"]["content"][0]["text"] == "plain"


@run
async def test_without_the_extension_calls_are_plain_and_tasks_methods_are_refused() -> None:
    client = Client(server(), {})
    plain_call = (await client.call("sleeper", seconds=0))["result"]
    assert plain_call["resultType"] == "complete" and "taskId" not in plain_call
    refused = (await client.call("broken"))["error"]
    assert refused["code"] == -32021
    assert refused["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    for method in ("tasks/get", "tasks/cancel"):
        assert (await client.request(method, taskId="x"))["error"]["code"] == -32021


@run
async def test_questions_inside_a_task_are_its_input_required_state() -> None:
    client = Client(server(), WITH_TASKS)
    task_id = (await client.call("asker"))["result"]["taskId"]
    asked = await client.until(task_id, "input_required")
    assert list(asked["inputRequests"]) == ["ok"]
    assert asked["inputRequests"]["ok"]["method"] == "elicitation/create"
    ack = await client.request(
        "tasks/update", taskId=task_id, inputResponses={"ok": {"action": "decline"}}
    )
    assert ack["result"] == {"resultType": "complete", "_meta": ack["result"]["_meta"]}
    # The second round asks "ok" again: its wire key is new (unique over the task).
    second = await client.until(task_id, "input_required")
    for _ in range(100):
        if len(second.get("inputRequests", {})) == 2:
            break
        second = await client.until(task_id, "input_required")
    assert sorted(second["inputRequests"]) == ["ok#2", "other"]
    await client.request(
        "tasks/update", taskId=task_id, inputResponses={"other": {"action": "cancel"}}
    )
    partial = (await client.request("tasks/get", taskId=task_id))["result"]
    assert partial["status"] == "input_required" and list(partial["inputRequests"]) == ["ok#2"]
    await client.request(
        "tasks/update", taskId=task_id, inputResponses={"ok#2": {"action": "decline"}}
    )
    done = await client.until(task_id, "completed")
    assert done["result"]["content"][0]["text"] == "decline ['decline', 'cancel']"


@run
async def test_a_handler_asks_in_the_calls_rounds_then_goes_on_as_a_task() -> None:
    client = Client(server(), WITH_TASKS)
    first = (await client.call("greeter"))["result"]
    assert first["resultType"] == "input_required" and "taskId" not in first
    answer = {"name": {"action": "accept", "content": {"name": "Alice"}}}
    second = (
        await client.request(
            "tools/call",
            name="greeter",
            arguments={},
            inputResponses=answer,
            requestState=first["requestState"],
        )
    )["result"]
    assert second["resultType"] == "task"
    assert not {"requestState", "inputRequests"} & second.keys()
    done = await client.until(second["taskId"], "completed")
    assert done["result"]["content"][0]["text"] == "Hello, Alice"
    # A client without the extension: a required tool refuses it, before any round.
    assert (await Client(server(), {}).call("greeter"))["error"]["code"] == -32021


@run
async def test_cancel_ends_a_running_task_and_is_idempotent() -> None:
    client = Client(server(), WITH_TASKS)
    task_id = (await client.call("sleeper", seconds=30))["result"]["taskId"]
    assert (await client.request("tasks/cancel", taskId=task_id))["result"]["resultType"] == (
        "complete"
    )
    cancelled = await client.until(task_id, "cancelled")
    assert cancelled["statusMessage"] == "Cancelled at the client's request"
    again = await client.request("tasks/cancel", taskId=task_id)
    assert again["result"]["resultType"] == "complete"
    unknown = await client.request("tasks/get", taskId="nobody-made-this")
    assert unknown["error"]["code"] == -32602


@run
async def test_another_principal_cannot_see_or_cancel_a_task() -> None:
    srv = server()
    principal = {"who": "alice"}
    srv.principal_of = lambda: Principal(principal["who"], None, frozenset(), "iss", {})
    client = Client(srv, WITH_TASKS)
    task_id = (await client.call("sleeper", seconds=30))["result"]["taskId"]
    principal["who"] = "mallory"
    for method in ("tasks/get", "tasks/cancel"):
        refused = await client.request(method, taskId=task_id)
        assert refused["error"]["code"] == -32602, refused
    principal["who"] = "alice"
    assert (await client.request("tasks/get", taskId=task_id))["result"]["status"] == "working"
    await client.request("tasks/cancel", taskId=task_id)


@run
async def test_a_task_expires_with_its_ttl() -> None:
    client = Client(server(ttl_ms=200), WITH_TASKS)
    task_id = (await client.call("sleeper", seconds=0))["result"]["taskId"]
    await client.until(task_id, "completed")
    await asyncio.sleep(0.3)
    assert (await client.request("tasks/get", taskId=task_id))["error"]["code"] == -32602


@run
async def test_a_task_whose_worker_stopped_renewing_ends_failed_as_lost() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    # What another worker finds when the one running a task died: a record not finished
    # whose lease ran out (no worker here runs it).
    record = new_record("orphan", "", "sleeper", 60_000, 100, now_ms() - 1)
    await srv.tasks.store.create("orphan", record, 60_000)
    lost = (await client.request("tasks/get", taskId="orphan"))["result"]
    assert lost["status"] == "failed"
    assert lost["error"] == {"code": -32603, "message": LOST_MESSAGE}
    assert lost["statusMessage"] == LOST_MESSAGE
    # Finished tasks never change again (a late write of the dead worker is refused).
    late = {"status": "completed", "result": "{}"}
    assert await srv.tasks.store.write("orphan", late, clear_questions=False) is False


def test_the_build_checks_the_task_fields_with_pointers() -> None:
    source = Source(
        "tool",
        "tools/job.json",
        "",
        {
            "name": "job",
            "execution": {"taskSupport": "optinal"},
            "x-mcp-codegen-task": {"ttlMS": 5, "pollIntervalMs": 0},
        },
    )
    messages = [str(d) for d in check_task_fields(source)]
    assert (
        "tools/job.json#/execution/taskSupport: error: execution.taskSupport must be one of"
        " 'forbidden', 'optional', 'required', not 'optinal'; did you mean 'optional'?"
    ) in messages
    assert any("#/x-mcp-codegen-task/ttlMS" in m and "did you mean 'ttlMs'" in m for m in messages)
    assert any("#/x-mcp-codegen-task/pollIntervalMs" in m and "positive" in m for m in messages)
    assert not any("never runs as a task" in m for m in messages)  # the typo is the fault
    idle = Source("tool", "i.json", "", {"name": "i", "x-mcp-codegen-task": {"ttlMs": 5}})
    assert any("never runs as a task" in str(d) for d in check_task_fields(idle))
    fine = Source("tool", "t.json", "", {"name": "j", "execution": {"taskSupport": "required"}})
    assert check_task_fields(fine) == []


def test_task_support_is_published_exactly_per_revision() -> None:
    published = entry(sleeper, "optional", ttlMs=5000).published
    assert published["2025-11-25"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in published[STATELESS]  # the extension: the server decides
    for revision in REVISIONS:
        assert "x-mcp-codegen-task" not in published[revision]
    capabilities = server().negotiation.capabilities_of
    assert capabilities(BY_NAME[STATELESS])["extensions"] == {EXTENSION: {}}
    assert "extensions" not in capabilities(BY_NAME["2025-11-25"])
    no_tasks = Server(tools=[entry(plain, None)], name="t", version="1", revisions=REVISIONS)
    assert "extensions" not in no_tasks.negotiation.capabilities_of(BY_NAME[STATELESS])
    assert no_tasks.tasks is None


@run
async def test_tasks_past_a_bound_are_refused_with_a_clear_error() -> None:
    srv = server()
    assert srv.tasks is not None
    srv.tasks.max_running, srv.tasks.max_per_principal = 3, 2
    principal = {"who": "alice"}
    srv.principal_of = lambda: Principal(principal["who"], None, frozenset(), "iss", {})
    client = Client(srv, WITH_TASKS)
    first = [(await client.call("sleeper", seconds=30))["result"]["taskId"] for _ in range(2)]
    refused = (await client.call("sleeper", seconds=30))["error"]
    assert refused["code"] == -32000 and "Too many tasks of yours" in refused["message"]
    principal["who"] = "bob"
    third = (await client.call("sleeper", seconds=30))["result"]["taskId"]
    full = (await client.call("sleeper", seconds=30))["error"]
    assert "MCP_TASK_MAX_RUNNING" in full["message"]
    await client.request("tasks/cancel", taskId=third)
    await client.until(third, "cancelled")
    await asyncio.sleep(0.01)  # the finished task is no longer counted
    assert (await client.call("sleeper", seconds=0))["result"]["resultType"] == "task"
    principal["who"] = "alice"
    for task_id in first:
        await client.request("tasks/cancel", taskId=task_id)


@run
async def test_a_lost_task_whose_tool_file_allows_it_runs_again() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    store = srv.tasks.store
    # As a dead worker left it: running, its lease out, its arguments kept.
    orphan = new_record("again", "", "rerunnable", 60_000, 100, now_ms() - 1, {"seconds": 0.05})
    await store.create("again", orphan, 60_000)
    taken = (await client.request("tasks/get", taskId="again"))["result"]
    assert taken["status"] == "working"
    assert taken["statusMessage"].startswith("Running again (attempt 2 of 3)")
    done = await client.until("again", "completed", "failed")
    assert done["result"]["content"][0]["text"] == "ran again for 0.05"
    # The last attempt lost too: it ends failed, explained.
    last = {**orphan, "attempt": "3"}
    await store.create("last", last, 60_000)
    failed = (await client.request("tasks/get", taskId="last"))["result"]
    assert failed["status"] == "failed" and failed["error"]["message"] == LOST_MESSAGE
    # A tool whose file does not say so is never run again.
    plain_orphan = new_record("once", "", "sleeper", 60_000, 100, now_ms() - 1, {})
    await store.create("once", plain_orphan, 60_000)
    assert (await client.request("tasks/get", taskId="once"))["result"]["status"] == "failed"
