"""Asking the client from inside a task: the question becomes the task's
``input_required`` state, the client answers with ``tasks/update``.

The handler's body is the one a plain call runs (``get_context().elicit(...)`` and the
rest, asking/): only its channel differs. Where a plain 2026-07-28 call ends its round
with ``input_required`` and runs the handler again, a task keeps running: the questions
are written to its record (``q:KEY``) with status ``input_required``, and the handler
waits until ``tasks/update`` (on any worker) has moved an answer to each (``a:KEY``).

A key is never used twice in one task (the extension's rule): a key asked again gets a
``#N`` suffix on the wire, and the handler still sees the answer under its own key.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from ..asking.errors import ClientTimeout
from ..asking.interaction import Channel
from ..protocol import Revision
from ..store.tasks import TaskStore
from .records import is_finished, timestamp

if TYPE_CHECKING:
    from ..asking.questions import Question

# How often a waiting handler looks for answers another worker took (one read).
ANSWER_POLL_SECONDS = 0.1


class TaskChannel(Channel):
    """The questions of the task ``task_id``; ``wake`` is set by a ``tasks/update`` this
    worker answered, so a waiting handler need not wait for its next look."""

    __slots__ = ("_store", "_used", "task_id", "wake")

    def __init__(self, capabilities: dict[str, Any], store: TaskStore, task_id: str) -> None:
        super().__init__(capabilities)
        self._store = store
        self.task_id = task_id
        self._used: set[str] = set()
        self.wake = asyncio.Event()

    def _wire_key(self, key: str) -> str:
        wire, n = key, 1
        while wire in self._used:
            n += 1
            wire = f"{key}#{n}"
        self._used.add(wire)
        return wire

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        wire = {self._wire_key(key): key for key in questions}
        fields = {
            "q:" + w: orjson.dumps(
                {"method": questions[k].method, "params": questions[k].params(revision)}
            ).decode()
            for w, k in wire.items()
        }
        fields.update(status="input_required", lastUpdatedAt=timestamp())
        fields["statusMessage"] = "Waiting for the client to answer " + ", ".join(wire)
        if not await self._store.write(self.task_id, fields, clear_questions=False):
            raise asyncio.CancelledError  # finished meanwhile (cancelled): stop here
        deadline = time.monotonic() + timeout
        while True:
            record = await self._store.read(self.task_id)
            if record is None or is_finished(record):
                raise asyncio.CancelledError
            if all("a:" + w in record for w in wire):
                return {
                    k: questions[k].parse(orjson.loads(record["a:" + w])) for w, k in wire.items()
                }
            left = deadline - time.monotonic()
            if left <= 0:
                raise ClientTimeout(
                    f"The client did not answer {', '.join(wire)} within {timeout:g} s"
                )
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), min(ANSWER_POLL_SECONDS, left))
