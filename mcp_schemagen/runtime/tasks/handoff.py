"""A call that asks first and goes on as a task (a tool file's
``"x-mcp-codegen-task": {"start": "handler"}``): SEP-2663's composition with multi
round-trip requests.

The handler runs as a plain 2026-07-28 call: a question without an answer ends the round
with ``input_required`` and the retry runs it again, as always. When it calls
``await get_context().start_task()``, the task is stored, the tools/call is answered with
its ``CreateTaskResult`` (no ``requestState``, no ``inputRequests``: the rounds' state
stays behind), and the same run goes on in the background as the task, asking through
the task from then on. A handler that returns without starting one answers the call with
its result, as a plain call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..asking.interaction import Channel, RoundChannel
from ..protocol import Revision
from .channel import TaskChannel

if TYPE_CHECKING:
    from ..asking.questions import Question


class HandoffChannel(RoundChannel):
    """The round's channel until ``begin_task``, the task's after. A ``RoundChannel`` to
    the call lifecycle (an unanswered question before the task ends the round)."""

    __slots__ = ("_begin", "_current", "_round")

    def __init__(self, round_: RoundChannel, begin: Callable[[], Awaitable[TaskChannel]]) -> None:
        Channel.__init__(self, round_.capabilities)  # the round's state stays in the round
        self._round = round_
        self._current: Channel = round_
        self._begin: Callable[[], Awaitable[TaskChannel]] | None = begin

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        return await self._current.ask(questions, revision, timeout)

    async def sealed(self, answers: dict[str, Any]) -> str:
        return await self._round.sealed(answers)

    async def begin_task(self) -> bool:
        if self._begin is not None:
            begin, self._begin = self._begin, None
            self._current = await begin()
        return True


async def first_of(work: asyncio.Future[bytes], handoff: asyncio.Future[bytes]) -> bool:
    """Wait until the handler answered (False) or started its task (True); a client gone
    meanwhile cancels the handler too."""
    try:
        await asyncio.wait({work, handoff}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        work.cancel()
        raise
    return handoff.done()
