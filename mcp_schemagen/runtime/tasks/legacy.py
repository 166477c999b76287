"""The experimental tasks of 2025-11-25 (basic/utilities/tasks), for clients of that
revision: a ``tools/call`` with ``params.task`` answers ``{"task": Task}``;
``tasks/get`` answers the ``Task``; ``tasks/result`` waits until the task is finished and
answers what the call would have (its result, with the related-task ``_meta``, or its
JSON-RPC error); ``tasks/cancel`` cancels it and answers the cancelled ``Task`` (-32602
for one already finished). The records, workers and leases are the extension's
(runner.py): one task store serves both eras.

The capability declared is ``tasks: {list, cancel, requests: {tools: {call}}}``:
``tasks/list`` lists the requesting session's own tasks (a task is bound to the session
that created it, runner.session_of), oldest first, in cursor pages. A
``"required"`` tool called without ``params.task`` and a ``"forbidden"`` one called with
it answer -32601, as that revision says. The handler asks the client as in any session
call (a request on the session's stream), the request's ``_meta`` naming the task
(``io.modelcontextprotocol/related-task``), the task ``input_required`` meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from .. import jsonrpc
from ..asking.errors import ClientTimeout
from ..asking.interaction import SessionChannel
from ..core.cursor import encode_cursor, page_index
from ..core.dispatch_tool import DispatchTool
from ..core.lifecycle import run_call
from ..jsonrpc import Reply, RpcError
from ..protocol import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, Revision
from ..session import Session
from ..session.request import RequestContext
from ..store import StoreUnavailable
from ..store.tasks import TaskStore
from .records import finished, is_finished, timestamp
from .runner import CANCELLED_MESSAGE, TaskRunner, outcome_of, session_of, store_guarded
from .session_status import STATUS_NOTIFICATION, ResultStream, status_message, task_of
from .settings import TaskSettings

if TYPE_CHECKING:
    from ..asking.questions import Question

RELATED_TASK = "io.modelcontextprotocol/related-task"
LIST_PAGE_SIZE = 50  # tasks per tasks/list page
__all__ = ["STATUS_NOTIFICATION", "offer", "route", "task_of"]
# How often tasks/result looks whether a task finished (it may run on another worker).
RESULT_POLL_SECONDS = 0.1


def offer(
    tasks: TaskRunner,
    tool: DispatchTool,
    settings: TaskSettings | None,
    kwargs: Mapping[str, Any],
    request: RequestContext,
) -> Reply | None:
    """The reply to a 2025-11-25 tools/call that runs as a task; None: a plain call."""
    if "tasks/get" not in request.revision.task_methods:
        return None  # before 2025-11-25: no tasks at all
    wanted = type(request.params.get("task")) is dict
    if settings is None:
        if wanted:
            raise RpcError(METHOD_NOT_FOUND, f"Tool {tool.name} does not run as a task")
        return None
    if not wanted:
        if settings.required:
            text = f"Tool {tool.name} runs only as a task: call it with params.task"
            raise RpcError(METHOD_NOT_FOUND, text)
        return None
    created = _create(tasks, tool, settings, kwargs, request)
    return asyncio.ensure_future(store_guarded(request.id, created))


async def _create(
    tasks: TaskRunner,
    tool: DispatchTool,
    settings: TaskSettings,
    kwargs: Mapping[str, Any],
    request: RequestContext,
) -> bytes:
    try:
        record, channel = await tasks.new_task(tool, settings, request)
    except RpcError as failure:  # past a bound
        return jsonrpc.error(request.id, failure)
    # The session's own channel asks the client; the call's id is the task's, so a later
    # request reusing the tools/call's id is not mistaken for it.
    alone = request._replace(id="task:" + channel.task_id)
    asking = SessionTaskChannel(request.session, tasks.store, channel.task_id)
    work = outcome_of(lambda: run_call(tool, kwargs, tool.name, alone, asking, tasks.stamp))
    session = request.session

    def ended(outcome: dict[str, str]) -> None:
        announce(session, {**record, **outcome})

    tasks.supervise(channel, asyncio.ensure_future(work), ended)
    return jsonrpc.result(request.id, {"task": task_of(record)})


# The sessions of the tasks/result requests waiting in this worker, by task id: over HTTP
# each has the request's own stream open, where the task's questions can go.
_WAITING: dict[str, list[Session]] = {}


def announce(session: Session, record: Mapping[str, str]) -> None:
    """``notifications/tasks/status`` of the task's state now, to the session that created
    it (the requester: a task is bound to its session), on its one stream (stdio). Over
    HTTP the answered tools/call left no stream: the store's notice of the change reaches
    the session's stream wherever it is held (session_status.py)."""
    if not session.call_scoped:
        session.send(status_message(record))


class _Related:
    """A question whose request names the task it is asked for (its ``_meta``)."""

    def __init__(self, question: Question, task_id: str) -> None:
        self._question = question
        self._task_id = task_id
        self.method = question.method

    def params(self, revision: Revision) -> dict[str, Any]:
        params = self._question.params(revision)
        meta = {**params.get("_meta", {}), RELATED_TASK: {"taskId": self._task_id}}
        return {**params, "_meta": meta}

    def parse(self, result: Any) -> Any:
        return self._question.parse(result)


class SessionTaskChannel(SessionChannel):
    """A 2025-11-25 task's questions: asked on the session, as in a plain call, with the
    task ``input_required`` until the client has answered them all."""

    __slots__ = ("_store", "_task_id")

    def __init__(self, session: Session, store: TaskStore, task_id: str) -> None:
        super().__init__(session)
        self._store = store
        self._task_id = task_id

    async def ask(
        self, questions: Mapping[str, Question], revision: Revision, timeout: float
    ) -> dict[str, Any]:
        waiting = {
            "status": "input_required",
            "statusMessage": "Waiting for the client to answer " + ", ".join(questions),
            "lastUpdatedAt": timestamp(),
        }
        await self._store.write(self._task_id, waiting, clear_questions=False)
        await self._announce()
        related: dict[str, Any] = {k: _Related(q, self._task_id) for k, q in questions.items()}
        try:
            if not self._session.call_scoped:  # stdio: the session's one stream
                return await super().ask(related, revision, timeout)
            # HTTP: the tools/call's stream ended with its answer; as 2025-11-25 says, the
            # client calls tasks/result on seeing input_required, and the questions go on
            # that request's stream (at the worker running the task).
            session = await _result_stream(self._task_id, timeout, questions)
            return await SessionChannel(session).ask(related, revision, timeout)
        finally:
            working = {"status": "working", "lastUpdatedAt": timestamp(), "statusMessage": ""}
            with contextlib.suppress(StoreUnavailable):
                if await self._store.write(self._task_id, working, clear_questions=False):
                    await self._announce()

    async def _announce(self) -> None:
        record = await self._store.read(self._task_id)
        if record is not None:
            announce(self._session, record)


async def _result_stream(
    task_id: str, timeout: float, questions: Mapping[str, Question]
) -> Session:
    """The session of a tasks/result of the task waiting in this worker, once one is."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not _WAITING.get(task_id):
        if asyncio.get_running_loop().time() >= deadline:
            methods = ", ".join(sorted({q.method for q in questions.values()}))
            raise ClientTimeout(
                f"The client did not call tasks/result to answer {methods} within {timeout:g} s"
            )
        await asyncio.sleep(RESULT_POLL_SECONDS)
    return _WAITING[task_id][-1]


def route(tasks: TaskRunner, request: RequestContext) -> Reply:
    if request.method == "tasks/list":
        cursor = request.params.get("cursor")
        page = 0 if cursor is None else page_index("tasks", cursor)
        if page is None:
            raise RpcError(INVALID_PARAMS, "Invalid cursor")
        return asyncio.ensure_future(store_guarded(request.id, _list(tasks, request, page)))
    task_id = request.params.get("taskId")
    if type(task_id) is not str:
        raise RpcError(INVALID_PARAMS, f"{request.method} needs taskId, a string")
    answer = {"tasks/get": _get, "tasks/result": _result, "tasks/cancel": _cancel}
    answered = answer[request.method](tasks, request, task_id)
    return asyncio.ensure_future(store_guarded(request.id, answered))


async def _list(tasks: TaskRunner, request: RequestContext, page: int) -> bytes:
    """One page of the session's tasks, each as tasks/get shows it."""
    ids = await tasks.store.of_session(session_of(request))
    shown: list[dict[str, Any]] = []
    for task_id in ids[page * LIST_PAGE_SIZE : (page + 1) * LIST_PAGE_SIZE]:
        try:
            shown.append(task_of(await tasks.record(request, task_id)))
        except RpcError:  # expired since, or another principal's: not this client's to see
            continue
    result: dict[str, Any] = {"tasks": shown}
    if len(ids) > (page + 1) * LIST_PAGE_SIZE:
        result["nextCursor"] = encode_cursor("tasks", page + 1)
    return jsonrpc.result(request.id, result)


async def _get(tasks: TaskRunner, request: RequestContext, task_id: str) -> bytes:
    try:
        record = await tasks.record(request, task_id)
    except RpcError as failure:
        return jsonrpc.error(request.id, failure)
    return jsonrpc.result(request.id, task_of(record))


async def _result(tasks: TaskRunner, request: RequestContext, task_id: str) -> bytes:
    """What the call would have answered, once the task is finished."""
    waiting = _WAITING.setdefault(task_id, [])
    waiting.append(request.session)
    statuses: ResultStream | None = None
    try:
        record = await tasks.record(request, task_id)
        if request.session.call_scoped and not is_finished(record):
            # HTTP: this request's stream carries the task's status notifications.
            statuses = ResultStream(tasks.store, tasks.hear, request.session, task_id)
            await statuses.start()
        while not is_finished(record):
            await asyncio.sleep(RESULT_POLL_SECONDS)
            record = await tasks.record(request, task_id)
        if statuses is not None:
            statuses.send(record)  # the terminal status before the result, once
    except RpcError as failure:
        return jsonrpc.error(request.id, failure)
    finally:
        waiting.remove(request.session)
        if not waiting:
            _WAITING.pop(task_id, None)
        if statuses is not None:
            await statuses.stop()
    related = {RELATED_TASK: {"taskId": task_id}}
    if record["status"] == "completed":
        result = orjson.loads(record["result"])
        result["_meta"] = {**result.get("_meta", {}), **related}
        return jsonrpc.result(request.id, result)
    if record["status"] == "failed":
        error = orjson.loads(record["error"])
        return jsonrpc.error(
            request.id, RpcError(error["code"], error["message"], error.get("data"))
        )
    return jsonrpc.error(request.id, RpcError(INTERNAL_ERROR, f"Task {task_id} was cancelled"))


async def _cancel(tasks: TaskRunner, request: RequestContext, task_id: str) -> bytes:
    try:
        record = await tasks.record(request, task_id)
    except RpcError as failure:
        return jsonrpc.error(request.id, failure)
    ended = finished("cancelled", CANCELLED_MESSAGE)
    if is_finished(record) or not await tasks.store.write(task_id, ended, clear_questions=True):
        text = f"Task {task_id} is already {record['status']}: it cannot be cancelled"
        return jsonrpc.error(request.id, RpcError(INVALID_PARAMS, text))
    tasks.cancel_here(task_id)  # elsewhere, the running worker's heartbeat sees it ended
    announce(request.session, {**record, **ended})  # the requester's session: the task's own
    return jsonrpc.result(request.id, task_of({**record, **ended}))
