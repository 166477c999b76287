"""Durable tasks with the official MCP Python SDK client (mcp 2.3) over Streamable HTTP.

The SDK has no tasks of its own, but its extension interface speaks them: a
``ClientExtension`` declaring ``io.modelcontextprotocol/tasks`` with a ``ResultClaim`` on
``resultType: "task"`` makes ``call_tool`` poll ``tasks/get`` (``Mcp-Name``: the task id,
as SEP-2663 asks), answer ``inputRequests`` with ``tasks/update`` and return the final
``CallToolResult``, so the caller sees a plain call. The SDK validates every message with
its own models.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import anyio
import pytest

from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    build_project,
    free_port,
    http_command,
    serving,
)
from tests.support.paths import needs_shared

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp_types import CallToolResult, Request, RequestParams, Result  # noqa: E402
from pydantic import ConfigDict, Field  # noqa: E402

PACKAGE = "conformance_server"
pytestmark = needs_shared


class TaskRef(RequestParams):
    task_id: str = Field(alias="taskId")


class Answers(TaskRef):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


class GetTask(Request[TaskRef, Literal["tasks/get"]]):
    name_param: ClassVar[str | None] = "taskId"


class UpdateTask(Request[Answers, Literal["tasks/update"]]):
    name_param: ClassVar[str | None] = "taskId"


class CreatedTask(Result):
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class DetailedTask(Result):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")
    status: str
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = Field(default=None, alias="inputRequests")


class TasksExtension(ClientExtension):
    """Tasks for the SDK client: every task polled to its end; questions answered by
    ``answer(method, params)``."""

    identifier = "io.modelcontextprotocol/tasks"

    def __init__(self) -> None:
        self.seen: list[str] = []  # each status the client saw, in order

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=CreatedTask, resolve=self.resolve)]

    async def resolve(self, created: CreatedTask, ctx: ClaimContext) -> CallToolResult:
        ref = TaskRef(taskId=created.task_id)
        with anyio.fail_after(30):
            while True:
                task = await ctx.session.send_request(
                    GetTask(method="tasks/get", params=ref), DetailedTask
                )
                self.seen.append(task.status)
                if task.status == "completed":
                    assert task.result is not None
                    return CallToolResult.model_validate(task.result)
                if task.status in ("failed", "cancelled"):
                    raise RuntimeError(f"task {task.status}: {task.error}")
                if task.status == "input_required" and task.input_requests:
                    responses = {
                        key: self.answer(**asked) for key, asked in task.input_requests.items()
                    }
                    answers = Answers(taskId=created.task_id, inputResponses=responses)
                    await ctx.session.send_request(
                        UpdateTask(method="tasks/update", params=answers), Result
                    )
                await anyio.sleep((created.poll_interval_ms or 200) / 1000)

    @staticmethod
    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert method == "elicitation/create", method
        return {"action": "accept", "content": {"confirm": True}}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("tasks-sdk")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    port = free_port()
    with serving(root, http_command(PACKAGE, port), port, folder / "server.log") as served:
        yield served


def text_of(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def test_the_sdk_client_runs_tasks_as_plain_calls(url: str, tmp_path: Path) -> None:
    async def talk() -> None:
        tasks = TasksExtension()
        transport = streamable_http_client(url)

        # An elicitation callback declares the capability; inside a task the questions
        # come back through tasks/get instead, answered by the extension.
        async def never(*_: Any) -> Any:
            raise AssertionError("a task's question reached the elicitation callback")

        async with Client(
            transport, mode="2026-07-28", extensions=[tasks], elicitation_callback=never
        ) as client:
            done = await client.call_tool("slow_compute", {"seconds": 0.5, "label": "sdk"})
            assert text_of(done) == "computed sdk after 0.5 s"
            assert tasks.seen[0] == "working" and tasks.seen[-1] == "completed"
            tasks.seen.clear()
            deleted = await client.call_tool("confirm_delete", {"filename": "a.txt"})
            assert text_of(deleted) == "deleted a.txt"
            assert "input_required" in tasks.seen
            failed = await client.call_tool("failing_job", {})
            assert failed.is_error and "failing_job failed" in text_of(failed)
            assert text_of(await client.call_tool("greet", {"name": "sdk"})) == "Hello, sdk!"

    anyio.run(talk)
