"""Running a tools/call as a durable task: the record made in the store first, then the
handler run in the background by the same call lifecycle a plain call uses
(core/lifecycle.py), its outcome written to the record.

The record exists before ``CreateTaskResult`` is sent (the extension's MUST), so a
``tasks/get`` that reaches any worker sharing the store finds it. While the handler runs,
this worker renews the task's lease every ``renew`` seconds and looks for a
``tasks/cancel`` sent to another worker; a worker that dies stops renewing, and the first
reader after the lease runs out ends the task as ``failed`` with the lost-task error
(tasks/serving.py), so no task stays ``working`` for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import orjson

from .. import jsonrpc
from ..core.dispatch_tool import DispatchTool
from ..core.lifecycle import run_call
from ..jsonrpc import Reply, RequestId, RpcError
from ..protocol import INTERNAL_ERROR, INVALID_PARAMS, META_CLIENT_CAPABILITIES
from ..session import Session
from ..session.request import RequestContext
from ..shorten import shorten
from ..store import StoreUnavailable
from ..store.tasks import MemoryTaskStore, TaskStore, now_ms
from .channel import TaskChannel
from .records import (
    core_of,
    create_result,
    finished,
    is_finished,
    lost,
    new_record,
    new_task_id,
    timestamp,
)
from .settings import TaskSettings

if TYPE_CHECKING:
    from .engine import TaskiqEngine
    from .session_status import Attach

LEASE_SECONDS = float(os.environ.get("MCP_TASK_LEASE_SECONDS", "10"))
# Bounds on the tasks one worker runs at once, and one principal's among them.
MAX_RUNNING = int(os.environ.get("MCP_TASK_MAX_RUNNING", "1000"))
MAX_PER_PRINCIPAL = int(os.environ.get("MCP_TASK_MAX_PER_PRINCIPAL", "100"))
# How often a task whose tool file says onLost "rerun" is run in all, at most.
MAX_ATTEMPTS = 3
# A task refused for a bound: the JSON-RPC "server error" range (implementation-defined).
TOO_MANY_TASKS = -32000
CANCELLED_MESSAGE = "Cancelled at the client's request"


def owner_of(request: RequestContext) -> str:
    """Who may see a task: the authorized principal (issuer and subject) that created it;
    without authorization, whoever holds its unguessable id (and its session, below)."""
    principal = request.principal
    return "" if principal is None else f"{principal.issuer}\n{principal.subject}"


def session_of(request: RequestContext) -> str:
    """The session a task is bound to besides its owner: the handshake era's (HTTP's
    Mcp-Session-Id, stdio's one connection), so another session's requests find no such
    task; "" in 2026-07-28, which has no sessions (there the id and the principal are the
    key, as SEP-2663 says)."""
    session = request.session
    return "" if session.revision is None else session.binding_key()


class TaskRunner:
    """The tasks this worker runs, in ``store`` (memory until a transport sets one);
    ``settings`` the task-capable tools' settings, by name."""

    def __init__(
        self,
        settings: Mapping[str, TaskSettings],
        stamp: Mapping[str, Any],
        lease_seconds: float = LEASE_SECONDS,
        max_running: int = MAX_RUNNING,
        max_per_principal: int = MAX_PER_PRINCIPAL,
    ) -> None:
        self.settings = settings
        self.tools: Mapping[str, DispatchTool] = {}  # set by the server: for a task run again
        self.max_running = max_running
        self.max_per_principal = max_per_principal
        self._owners: dict[str, str] = {}  # the owner of each task counted here, by id
        self.store: TaskStore = MemoryTaskStore()
        self.stamp = stamp
        self.lease_ms = int(lease_seconds * 1000)
        self.renew_seconds = max(lease_seconds / 5, 0.05)
        # The tasks this worker runs: their work (cancelled to stop them) and channel.
        self.running: dict[str, tuple[asyncio.Future[dict[str, str]], TaskChannel]] = {}
        # With --task-engine: tasks are put on its queue and run by engine workers
        # (tasks/engine.py); None: run here.
        self.engine: TaskiqEngine | None = None
        # Offers every store notice heard by this worker (the subscriptions hub's attach,
        # set by the server): a tasks/result hears its task's status changes by it.
        self.hear: Attach | None = None

    def start(
        self,
        tool: DispatchTool,
        settings: TaskSettings,
        kwargs: Mapping[str, Any],
        request: RequestContext,
    ) -> Reply:
        """The reply to a tools/call that runs as a task from its start: its
        ``CreateTaskResult`` once the record is stored."""
        created = self._create(tool, settings, kwargs, request)
        return asyncio.ensure_future(store_guarded(request.id, created))

    async def new_task(
        self, tool: DispatchTool, settings: TaskSettings, request: RequestContext
    ) -> tuple[dict[str, str], TaskChannel]:
        """A task stored for ``request``: its record as created, and the channel its
        handler asks the client through from now on (2026-07-28)."""
        task_id = new_task_id()
        owner = self._reserve(task_id, owner_of(request))
        arguments = request.params.get("arguments") or {} if settings.rerun_if_lost else None
        record = new_record(
            task_id, owner, tool.name, settings.ttl_ms, settings.poll_interval_ms,
            now_ms() + self.lease_ms, arguments, session_of(request),
        )  # fmt: skip
        try:
            await self.store.create(task_id, record, settings.ttl_ms, session_of(request))
        except BaseException:
            self._owners.pop(task_id, None)
            raise
        capabilities = (request.meta or {}).get(META_CLIENT_CAPABILITIES) or {}
        return record, TaskChannel(capabilities, self.store, task_id)

    async def _create(
        self,
        tool: DispatchTool,
        settings: TaskSettings,
        kwargs: Mapping[str, Any],
        request: RequestContext,
    ) -> bytes:
        if self.engine is not None and request.revision.stateless:
            return await self._queue(self.engine, tool, settings, request)
        try:
            record, channel = await self.new_task(tool, settings, request)
        except RpcError as failure:  # past a bound
            return jsonrpc.error(request.id, failure)
        # The call's own request, on a session of its own: the tools/call is answered,
        # so its notifications (progress, log) have nowhere to go (the extension sends
        # none on tasks) and nothing else shares its id.
        alone = request._replace(id="task:" + channel.task_id, session=Session())
        work = outcome_of(lambda: run_call(tool, kwargs, tool.name, alone, channel, self.stamp))
        self.supervise(channel, asyncio.ensure_future(work))
        return jsonrpc.result(request.id, create_result(record, self.stamp))

    async def _queue(
        self,
        engine: TaskiqEngine,
        tool: DispatchTool,
        settings: TaskSettings,
        request: RequestContext,
    ) -> bytes:
        """Store a task an engine worker runs (tasks/engine.py), then put it on the queue.
        It runs elsewhere, so its principal's tasks, queued and running, are counted in
        the store across every server process, not in this one."""
        task_id, owner = new_task_id(), owner_of(request)
        arguments = request.params.get("arguments") or {}
        record = new_record(
            task_id, owner, tool.name, settings.ttl_ms, settings.poll_interval_ms,
            now_ms() + self.lease_ms, arguments if settings.rerun_if_lost else None,
        )  # fmt: skip
        if not owner:  # no principal to count: the queue's bound and the workers' hold
            await self.store.create(task_id, record, settings.ttl_ms)
        elif not await self.store.create_within(
            task_id, record, settings.ttl_ms, owner, self.max_per_principal
        ):
            return jsonrpc.error(request.id, self._too_many_of_yours("are queued or running"))
        await engine.enqueue(task_id, tool.name, arguments, request)
        return jsonrpc.result(request.id, create_result(record, self.stamp))

    def supervise(
        self,
        channel: TaskChannel,
        work: asyncio.Future[dict[str, str]],
        ended: Callable[[dict[str, str]], None] | None = None,
    ) -> asyncio.Future[None]:
        """Watch ``work`` (the task's handler, its outcome as record fields) until it ends,
        then write its outcome (and tell ``ended`` the fields, once written); meanwhile
        renew the lease and honour a cancel. The watch returned ends once the outcome is
        written."""
        task_id = channel.task_id
        self.running[task_id] = (work, channel)
        watching = asyncio.ensure_future(self._watch(task_id, work, ended))
        watching.add_done_callback(lambda _: self._done(task_id))
        return watching

    def _reserve(self, task_id: str, owner: str) -> str:
        """Count a new task, or refuse it past a bound (this worker's, its principal's)."""
        if len(self._owners) >= self.max_running:
            raise RpcError(
                TOO_MANY_TASKS,
                f"Too many tasks: this server process runs {len(self._owners)} already"
                " (MCP_TASK_MAX_RUNNING); try again when some have finished",
            )
        if owner and sum(o == owner for o in self._owners.values()) >= self.max_per_principal:
            raise self._too_many_of_yours("are running")
        self._owners[task_id] = owner
        return owner

    def _too_many_of_yours(self, state: str) -> RpcError:
        return RpcError(
            TOO_MANY_TASKS,
            f"Too many tasks of yours: {self.max_per_principal} {state}"
            " (MCP_TASK_MAX_PER_PRINCIPAL); try again when some have finished",
        )

    def _done(self, task_id: str) -> None:
        self.running.pop(task_id, None)
        self._owners.pop(task_id, None)

    async def _watch(
        self,
        task_id: str,
        work: asyncio.Future[dict[str, str]],
        ended: Callable[[dict[str, str]], None] | None,
    ) -> None:
        beat = asyncio.ensure_future(self._heartbeat(task_id, work))
        try:
            outcome = await work
        except asyncio.CancelledError:
            outcome = cancelled()
        finally:
            beat.cancel()
        with contextlib.suppress(StoreUnavailable):  # the lease ends it as lost instead
            if await self.store.write(task_id, outcome, clear_questions=True) and ended:
                ended(outcome)

    async def _heartbeat(self, task_id: str, work: asyncio.Future[Any]) -> None:
        """Renew the lease; stop the work when a client cancelled it (on any worker) or
        the task was finished elsewhere."""
        while not work.done():
            await asyncio.sleep(self.renew_seconds)
            try:
                record = await self.store.read(task_id)
                alive = record is not None and record.get("cancel") != "1"
                alive = alive and await self.store.write(
                    task_id, {"lease": str(now_ms() + self.lease_ms)}, clear_questions=False
                )
            except StoreUnavailable:
                continue  # Redis away: keep working; the lease may run out meanwhile
            if not alive:
                work.cancel()
                return

    async def record(self, request: RequestContext, task_id: str) -> dict[str, str]:
        """The task's record, for its owner only; a task whose worker died ended now."""
        record = await self.store.read(task_id)
        core = core_of(record) if record is not None else {}
        if (
            record is None
            or core["owner"] != owner_of(request)
            or core.get("session", "") != session_of(request)
        ):
            raise RpcError(INVALID_PARAMS, f"Task not found: {shorten(task_id)}")
        if not is_finished(record) and int(record.get("lease", "0")) < now_ms():
            # The worker running it stopped renewing: it died. Run it again here when its
            # tool file says that is safe, else end it, once, as lost.
            # An engine's task (tasks/engine.py) that no task worker took is not run again.
            never_taken = record.get("queued") == "1"
            if never_taken or not await self._rerun_if_lost(task_id, record, request):
                await self.store.end_if_lost(task_id, _lost(record), now_ms())
            record = await self.store.read(task_id) or record
        return record

    async def _rerun_if_lost(
        self, task_id: str, record: dict[str, str], request: RequestContext
    ) -> bool:
        core = core_of(record)
        settings, tool = self.settings.get(core["tool"]), self.tools.get(core["tool"])
        attempt = int(record.get("attempt", "1"))
        if settings is None or not settings.rerun_if_lost or tool is None:
            return False
        if "arguments" not in core or attempt >= MAX_ATTEMPTS:
            return False
        fields = {
            "status": "working",
            "statusMessage": f"Running again (attempt {attempt + 1} of {MAX_ATTEMPTS}): the"
            " server process running it stopped before it finished",
            "lastUpdatedAt": timestamp(),
            "lease": str(now_ms() + self.lease_ms),
            "attempt": str(attempt + 1),
        }
        if await self.store.end_if_lost(task_id, fields, now_ms()):  # this worker took it
            if self.engine is not None and request.revision.stateless:  # back on the queue
                message = fields["statusMessage"]
                await self.engine.enqueue(task_id, tool.name, core["arguments"], request, message)
            else:
                self._run_again(task_id, core["owner"], tool, core["arguments"], request)
        return True  # taken here, or by another reader a moment ago

    def _run_again(
        self,
        task_id: str,
        owner: str,
        tool: DispatchTool,
        arguments: dict[str, Any],
        request: RequestContext,
    ) -> None:
        self._owners[task_id] = owner
        capabilities = (request.meta or {}).get(META_CLIENT_CAPABILITIES) or {}
        channel = TaskChannel(capabilities, self.store, task_id)
        asking = channel if request.revision.stateless else None
        alone = request._replace(id="task:" + task_id, session=Session(), params={})
        kwargs = tool.keyword_arguments(arguments)
        work = outcome_of(lambda: run_call(tool, kwargs, tool.name, alone, asking, self.stamp))
        self.supervise(channel, asyncio.ensure_future(work))

    def cancel_here(self, task_id: str) -> None:
        """Stop the task at once when this worker runs it."""
        running = self.running.get(task_id)
        if running is not None:
            running[0].cancel()


def cancelled() -> dict[str, str]:
    """The fields that end a task a client cancelled."""
    return finished("cancelled", CANCELLED_MESSAGE)


def _lost(record: dict[str, str]) -> dict[str, str]:
    if "queued" in record:  # an engine's task: its own explanation
        from .engine import lost_in_engine

        return lost_in_engine(record)
    return lost()


async def outcome_of(call: Callable[[], Reply]) -> dict[str, str]:
    """The record fields that end a task whose handler ``call`` answers (the JSON-RPC
    response the call lifecycle makes): completed with its result, or failed with its
    JSON-RPC error."""
    try:
        reply = call()
        response = reply if isinstance(reply, bytes) else await reply  # type: ignore[misc]
    except RpcError as failure:
        return finished("failed", failure.message, error=failure.body())
    message = orjson.loads(response)
    if "error" in message:
        error = message["error"]
        return finished("failed", str(error.get("message", "")), error=error)
    return finished("completed", None, result=message["result"])


async def store_guarded(request_id: RequestId, answer: Awaitable[bytes]) -> bytes:
    """``answer``, or while the store cannot be reached a JSON-RPC error saying so (an
    exception out of a reply still running would leave the request unanswered)."""
    try:
        return await answer
    except StoreUnavailable as exc:
        data = {"retryAfterSeconds": exc.retry_after_seconds}
        return jsonrpc.error(request_id, RpcError(INTERNAL_ERROR, str(exc), data))
