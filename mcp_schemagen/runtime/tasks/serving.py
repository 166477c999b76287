"""The tasks extension's methods (2026-07-28, ``io.modelcontextprotocol/tasks``):
``tasks/get`` (the task's ``DetailedTask``), ``tasks/update`` (answers to its
``inputRequests``) and ``tasks/cancel``, each answered by any worker sharing the store.

Only a client that declares the extension on the request reaches a task (-32021 naming
it otherwise); a task id another principal created, or unknown, or expired, is the same
-32602 ("Task not found"), so an id leaks nothing of whose it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import orjson

from .. import jsonrpc
from ..asking.interaction import Channel, RoundChannel
from ..core.dispatch_tool import DispatchTool
from ..core.lifecycle import run_call
from ..jsonrpc import Reply, RpcError
from ..protocol import INVALID_PARAMS, META_CLIENT_CAPABILITIES, MISSING_REQUIRED_CLIENT_CAPABILITY
from ..session.request import RequestContext
from . import legacy
from .channel import TaskChannel
from .handoff import HandoffChannel, first_of
from .records import EXTENSION, create_result, detailed, is_finished, timestamp
from .runner import TaskRunner, cancelled, outcome_of, store_guarded
from .settings import TaskSettings


def declares_tasks(meta: Mapping[str, Any] | None) -> bool:
    """Whether the request's client capabilities include the tasks extension."""
    capabilities = None if meta is None else meta.get(META_CLIENT_CAPABILITIES)
    extensions = capabilities.get("extensions") if type(capabilities) is dict else None
    return type(extensions) is dict and type(extensions.get(EXTENSION)) is dict


def missing_extension(what: str) -> RpcError:
    return RpcError(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        f"Missing required client capability: {what} needs the tasks extension"
        f" ({EXTENSION}) declared in the request's client capabilities",
        {"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
    )


class Tasks(TaskRunner):
    """Runs tools/call as tasks (runner.py) and answers the tasks/* methods."""

    def offer(
        self,
        tool: DispatchTool,
        kwargs: dict[str, Any],
        request: RequestContext,
        channel: Channel | None,
    ) -> Reply | None:
        """A tools/call's reply when it runs as a task: a task-capable tool called by a
        client that declared the extension (the server decides: always, here); -32021
        for a tool that must run as one, called by a client that did not; None: a plain
        call (a session revision's client, or a tool that may run either way)."""
        settings = self.settings.get(tool.name)
        if not request.revision.stateless:
            return legacy.offer(self, tool, settings, kwargs, request)
        if settings is None:
            return None
        if declares_tasks(request.meta):
            if settings.started_by_handler and isinstance(channel, RoundChannel):
                handoff = self._handoff(tool, settings, kwargs, request, channel)
                return asyncio.ensure_future(store_guarded(request.id, handoff))
            return self.start(tool, settings, kwargs, request)
        if settings.required:
            raise missing_extension(f"tool {tool.name!r}")
        return None

    async def _handoff(
        self,
        tool: DispatchTool,
        settings: TaskSettings,
        kwargs: dict[str, Any],
        request: RequestContext,
        round_: RoundChannel,
    ) -> bytes:
        """A call run in its own rounds until its handler starts the task (handoff.py)."""
        handoff: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        started: list[TaskChannel] = []

        async def begin() -> TaskChannel:
            record, channel = await self.new_task(tool, settings, request)
            started.append(channel)
            handoff.set_result(jsonrpc.result(request.id, create_result(record, self.stamp)))
            return channel

        reply = run_call(
            tool, kwargs, tool.name, request, HandoffChannel(round_, begin), self.stamp
        )
        if isinstance(reply, bytes):
            return reply  # answered before any task began
        assert isinstance(reply, asyncio.Task)  # the lifecycle's task of a running call
        work: asyncio.Task[bytes] = reply
        if not await first_of(work, handoff):
            return work.result()
        # The rest of the run is the task's: no longer this request's to cancel.
        request.session.forget(request.id, work)
        self.supervise(started[0], asyncio.ensure_future(outcome_of(lambda: work)))
        return handoff.result()

    def route(self, request: RequestContext) -> Reply:
        if not request.revision.stateless:
            return legacy.route(self, request)
        if not declares_tasks(request.meta):
            raise missing_extension(request.method)
        task_id = request.params.get("taskId")
        if type(task_id) is not str:
            raise RpcError(INVALID_PARAMS, f"{request.method} needs taskId, a string")
        if request.method == "tasks/get":
            return asyncio.ensure_future(store_guarded(request.id, self._get(request, task_id)))
        if request.method == "tasks/update":
            responses = request.params.get("inputResponses")
            if type(responses) is not dict:
                raise RpcError(INVALID_PARAMS, "tasks/update needs inputResponses, an object")
            updated = self._update(request, task_id, responses)
            return asyncio.ensure_future(store_guarded(request.id, updated))
        return asyncio.ensure_future(store_guarded(request.id, self._cancel(request, task_id)))

    async def _get(self, request: RequestContext, task_id: str) -> bytes:
        try:
            record = await self.record(request, task_id)
        except RpcError as failure:
            return jsonrpc.error(request.id, failure)
        return jsonrpc.result(request.id, detailed(record, self.stamp))

    async def _update(
        self, request: RequestContext, task_id: str, responses: dict[str, Any]
    ) -> bytes:
        try:
            await self.record(request, task_id)
        except RpcError as failure:
            return jsonrpc.error(request.id, failure)
        answers = {key: orjson.dumps(value).decode() for key, value in responses.items()}
        if answers:
            await self.store.answer(task_id, answers, timestamp())
            running = self.running.get(task_id)
            if running is not None:
                running[1].wake.set()
        return self._ack(request)

    async def _cancel(self, request: RequestContext, task_id: str) -> bytes:
        try:
            record = await self.record(request, task_id)
        except RpcError as failure:
            return jsonrpc.error(request.id, failure)
        if not is_finished(record):  # a finished task's cancel is the same ack
            await self.store.request_cancel(task_id)
            self.cancel_here(task_id)
            if record.get("queued") == "1":  # no task worker runs it yet: it ends here
                await self.store.write(task_id, cancelled(), clear_questions=True)
        return self._ack(request)

    async def status_notice(self, request: RequestContext, task_id: str) -> dict[str, Any] | None:
        """The params of ``notifications/tasks`` for a listener (``request``: its
        ``subscriptions/listen``): the task as ``tasks/get`` would answer it now, as
        SEP-2663 asks; None when the task is not the listener's (another principal's,
        unknown, expired), exactly where tasks/get would answer "Task not found"."""
        try:
            record = await self.record(request, task_id)
        except RpcError:
            return None
        task = detailed(record, {})
        del task["resultType"], task["_meta"]  # a result's fields, not a notification's
        return task

    def _ack(self, request: RequestContext) -> bytes:
        return jsonrpc.result(request.id, {"resultType": "complete", "_meta": self.stamp})
