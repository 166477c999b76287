"""Start a task and run its first step at once, as Python 3.12's eager tasks do.

Most ``async def`` handlers finish without ever waiting (or their first wait is their
last); a task started the plain way runs its first step on the loop's next pass and
delivers its result a pass after that, each pass a poll of the selector. Run eagerly,
such a call is done before ``start_task`` returns, so its reply goes out with the read
that brought the request. A handler that does wait is a task like any other from its
first wait on: cancellation, progress and the session's bookkeeping are unchanged.

The first step runs as the task, in the task's own context (``asyncio.current_task()``,
``asyncio.timeout()`` and context variables behave as in any later step). Python 3.12+
does this itself (``Task(eager_start=True)``); on 3.11 the step the new task scheduled is
taken off the loop's ready queue and run at once. A loop without that queue (uvloop)
gets a plain task.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

if sys.version_info >= (3, 12):

    def start_task(
        loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]
    ) -> asyncio.Task[T]:
        return asyncio.Task(coroutine, loop=loop, eager_start=True)

else:
    from asyncio.tasks import (  # type: ignore[attr-defined]
        _current_tasks,
        _enter_task,
        _leave_task,
    )

    def start_task(
        loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]
    ) -> asyncio.Task[T]:
        # A Task made directly, as 3.12's eager start does (neither consults the loop's
        # task factory): loop.create_task's Python wrapper is a cost on every call.
        task: asyncio.Task[T] = asyncio.Task(coroutine, loop=loop)
        ready = getattr(loop, "_ready", None)
        if not ready:
            return task
        step = ready[-1]
        if not _steps(step, task):
            return task  # not the step this task just scheduled: leave the loop its order
        ready.pop()
        # Another task may be running (a call handled in process from a coroutine): it
        # steps aside for this step, as 3.12 swaps the current task for an eager one.
        outer = _current_tasks.get(loop)  # asyncio.current_task(loop), in Python on 3.11
        if outer is not None:
            _leave_task(loop, outer)
        try:
            step._run()
        finally:
            if outer is not None:
                _enter_task(loop, outer)
        return task

    def _steps(handle: asyncio.Handle, task: asyncio.Task[Any]) -> bool:
        """Whether ``handle`` is a step of ``task`` (the one its creation scheduled)."""
        owner: object = getattr(handle._callback, "__self__", None)  # type: ignore[attr-defined]
        return owner is task and not handle.cancelled()
