"""The typed client of tests/client/tasks_project against its server, tools that run as
tasks: plain calls driven to their typed result, handles (status, wait, cancel), failures,
a question answered by the callback, timeouts. Run in a fresh interpreter by
test_tasks_client.py, with the built package on PYTHONPATH:

    python tasks_scenario.py stdio|http MODE [URL]

Prints one line per step; an assertion stops it with a non-zero exit."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import types
from tasks_server.client import (
    Client,
    TaskCancelled,
    TaskFailed,
    TaskInputError,
    TaskTimeout,
    ToolCallError,
    connect_http,
    connect_stdio,
)

ASKED: list[str] = []


async def elicit(context: Any, params: Any) -> types.ElicitResult:
    ASKED.append(params.message)
    return types.ElicitResult(action="accept", content={"confirm": True})


async def refuse(context: Any, params: Any) -> types.ErrorData:
    return types.ErrorData(code=-32603, message="no one here to answer")


@asynccontextmanager
async def connected(
    transport: str, mode: str, url: str | None, **options: Any
) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with connect_stdio(mode=mode, **options) as client:
            yield client
    else:
        assert url is not None
        async with connect_http(url, mode=mode, **options) as client:
            yield client


def text_of(blocks: list[types.ContentBlock]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, types.TextContent))


async def scenario(transport: str, mode: str, url: str | None) -> None:
    async with connected(transport, mode, url, elicitation=elicit) as client:
        print("protocol", client.sdk.protocol_version)
        report = await client.tools.make_report(rows=3, seconds=0.2)
        print("call make_report", report["rows"], report["summary"])

        handle = await client.tools.start_make_report(rows=5, seconds=0.5)
        assert isinstance(handle.task_id, str) and len(handle.task_id) >= 16, handle.task_id
        first = await handle.status()
        assert first.task_id == handle.task_id and first.status == "working", first
        assert first.poll_interval_ms == 50, first
        done = await handle.wait()
        print("handle make_report", done["rows"], done["summary"])
        assert (await handle.status()).status == "completed"

        deleted = await client.tools.confirm_delete(filename="a.txt")
        print("call confirm_delete", text_of(deleted))
        assert ASKED == ["Delete a.txt?"], ASKED

        try:
            await client.tools.failing_job()
        except ToolCallError as error:
            print("isError failing_job", error.text)
        try:
            await client.tools.failing_job(protocol=True)
        except TaskFailed as error:
            print("failed failing_job", error.code, error.message)

        long = await client.tools.start_make_report(rows=1, seconds=60)
        try:
            await long.wait(timeout=0.3)
        except TaskTimeout as error:
            print("timeout", error.task_id == long.task_id, (await long.status()).status)
        await long.cancel()
        try:
            await long.wait()
        except TaskCancelled as error:
            print("cancelled", error.task_id == long.task_id, (await long.status()).status)

        print("plain", text_of(await client.tools.plain_echo(text="hi")))

    if mode != "legacy":
        # 2026-07-28: the question comes back in tasks/get, answered by the callback; one
        # that cannot answer it makes the client say so and cancel the task.
        async with connected(transport, mode, url, elicitation=refuse) as client:
            handle = await client.tools.start_confirm_delete(filename="b.txt")
            try:
                await handle.wait()
            except TaskInputError as error:
                print("unanswerable", str(error))
                print("after unanswerable", (await handle.status()).status)


if __name__ == "__main__":
    anyio.run(scenario, sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
