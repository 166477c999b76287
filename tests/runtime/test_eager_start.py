"""core/eager.start_task: a coroutine's first step runs at once, as its own task."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import pytest

from mcp_schemagen.runtime.core.eager import start_task

MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="caller")


def test_a_coroutine_that_never_waits_is_done_when_started() -> None:
    seen: dict[str, Any] = {}

    async def quick() -> int:
        seen["task"] = asyncio.current_task()
        async with asyncio.timeout(5):  # needs a current task: the eager step has one
            MARK.set("handler")
            return 42

    async def main() -> None:
        outer = asyncio.current_task()
        task = start_task(asyncio.get_running_loop(), quick())
        assert task.done() and task.result() == 42
        assert seen["task"] is task
        assert asyncio.current_task() is outer  # the caller's task is current again
        assert MARK.get() == "caller"  # the step ran in the task's own context

    asyncio.run(main())


def test_a_coroutine_that_waits_is_a_task_from_its_first_wait() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        gate: asyncio.Future[str] = loop.create_future()
        steps: list[str] = []

        async def waits() -> str:
            steps.append("first")
            value = await gate
            steps.append("second")
            return value

        task = start_task(loop, waits())
        assert steps == ["first"] and not task.done()
        gate.set_result("ok")
        assert await task == "ok" and steps == ["first", "second"]

        gate = loop.create_future()  # a new one: never resolved
        blocked = start_task(loop, waits())
        assert not blocked.done()
        blocked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await blocked
        assert blocked.cancelled()

    asyncio.run(main())


def test_an_exception_in_the_first_step_is_the_task_s() -> None:
    async def fails() -> None:
        raise ValueError("no")

    async def main() -> None:
        task = start_task(asyncio.get_running_loop(), fails())
        assert task.done() and isinstance(task.exception(), ValueError)

    asyncio.run(main())
