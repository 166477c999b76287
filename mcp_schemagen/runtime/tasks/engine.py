"""Handing a task's run to a task-queue engine (``--task-engine taskiq``): the server
stores the task as always, then puts one message "run task X" on taskiq's queue in the
same Redis; an engine worker (``python -m PACKAGE task-worker``, tasks/engine_worker.py)
takes it and runs the handler.

Everything durable stays in the task store (store/tasks.py): the record, its lease, a
cancel, the questions and answers, the TTL. So ``tasks/get``, ``tasks/update`` and
``tasks/cancel`` are answered by any server worker exactly as for a task run in-process,
and the engine carries nothing but which task to run and what the call said (tool,
arguments, the client's capabilities, its revision, who called).

A task waits in the queue with a lease of ``MCP_TASK_QUEUE_SECONDS`` (default 600): no
engine worker taking it by then ends it ``failed`` as never started, so a task is never
``working`` for ever when no engine worker runs. Once a worker takes it, the lease is the
ordinary one, renewed while it runs.

taskiq is imported only here and only when the engine is configured: a server without
it never imports taskiq (tests/runtime/test_startup_imports.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol import META_CLIENT_CAPABILITIES
from ..store import StoreUnavailable
from ..store.tasks import TaskStore, now_ms
from .records import finished, timestamp

if TYPE_CHECKING:
    from ..auth.principal import Principal
    from ..session.request import RequestContext

ENGINES = ("taskiq",)
ENV_TASK_ENGINE = "MCP_TASK_ENGINE"
# The name the server kicks and the engine worker registers: the one function it runs.
TASK_NAME = "mcp_codegen.run_task"
QUEUE_SUFFIX = "task-engine"  # after the store's key prefix: mcp:task-engine
QUEUE_SECONDS = float(os.environ.get("MCP_TASK_QUEUE_SECONDS", "600"))
WAITING_MESSAGE = "Waiting for a task worker to take it"
NOT_TAKEN_MESSAGE = (
    "The task was never started: no task worker took it from the queue within "
    "MCP_TASK_QUEUE_SECONDS. Start one (python -m PACKAGE task-worker), then call the tool again."
)
WORKER_LOST_MESSAGE = (
    "The task was lost: the task worker running it stopped before it finished. "
    "Its effects, if any, are unknown; call the tool again if that is safe."
)
KICK_FAILED_MESSAGE = "The task could not be handed to the task queue"


class EngineMissing(RuntimeError):
    """taskiq or taskiq-redis is not installed."""


def missing_engine(package: str) -> str:
    extra = package.replace("_", "-")
    return (
        f"--task-engine taskiq needs taskiq and taskiq-redis: pip install '{extra}[tasks]'"
        " (or pip install taskiq taskiq-redis)"
    )


def engine_installed() -> bool:
    """Whether taskiq and taskiq-redis can be imported (without importing them)."""
    from importlib.util import find_spec

    return find_spec("taskiq") is not None and find_spec("taskiq_redis") is not None


def make_broker(redis_url: str, prefix: str, *, listening: bool = False) -> Any:
    """taskiq's broker on ``redis_url``: a Redis list as the queue (each message taken by
    one worker, never redelivered: a run lost with its worker is our lease's to end).

    ``listening``: a task worker's, which waits on the queue with a BRPOP that blocks
    until a message comes. redis 8's default 5 s socket timeout would end that wait with
    a TimeoutError, and with it the worker and every task it runs, after 5 s with nothing
    new on the queue; so its reads wait without a timeout (TCP keepalive notices a
    connection gone dead)."""
    try:
        from taskiq_redis import ListQueueBroker
    except ImportError as exc:
        raise EngineMissing(
            f"{ENV_TASK_ENGINE}=taskiq needs taskiq and taskiq-redis ({exc}): install the "
            "server's tasks extra (pip install 'PACKAGE[tasks]')"
        ) from None
    waits: dict[str, Any] = {"socket_timeout": None, "socket_keepalive": True}
    return ListQueueBroker(
        redis_url, queue_name=prefix + QUEUE_SUFFIX, **(waits if listening else {})
    )


def principal_fields(principal: Principal | None) -> dict[str, Any] | None:
    if principal is None:
        return None
    return {
        "subject": principal.subject,
        "client_id": principal.client_id,
        "scopes": sorted(principal.scopes),
        "issuer": principal.issuer,
        "claims": dict(principal.claims),
    }


class TaskiqEngine:
    """The server's side: enqueue "run task X" on the broker (started on first use)."""

    def __init__(self, broker: Any, store: TaskStore) -> None:
        from taskiq.kicker import AsyncKicker

        self.broker = broker
        self._store = store
        self._kicker: AsyncKicker[Any, Any] = AsyncKicker(TASK_NAME, broker, {})
        self._started = False

    async def enqueue(
        self,
        task_id: str,
        tool: str,
        arguments: Any,
        request: RequestContext,
        status_message: str = WAITING_MESSAGE,
    ) -> None:
        """Mark the task as waiting for a worker (its lease the queue's bound), then put
        it on the queue; a queue that cannot be reached ends it failed and says so."""
        waiting = {
            "lease": str(now_ms() + int(QUEUE_SECONDS * 1000)),
            "queued": "1",
            "statusMessage": status_message,
        }
        if not await self._store.write(task_id, waiting, clear_questions=False):
            return  # finished meanwhile (cancelled): nothing to run
        capabilities = (request.meta or {}).get(META_CLIENT_CAPABILITIES) or {}
        try:
            if not self._started:
                await self.broker.startup()
                self._started = True
            await self._kicker.kiq(
                {
                    "taskId": task_id,
                    "tool": tool,
                    "arguments": arguments,
                    "capabilities": capabilities,
                    "revision": request.revision.name,
                    "principal": principal_fields(request.principal),
                }
            )
        except Exception as exc:  # redis' errors: the queue is away
            failed = finished("failed", KICK_FAILED_MESSAGE, error=_error(KICK_FAILED_MESSAGE))
            await self._store.write(task_id, failed, clear_questions=True)
            raise StoreUnavailable() from exc

    async def close(self) -> None:
        if self._started:
            await self.broker.shutdown()


def _error(message: str) -> dict[str, Any]:
    return {"code": -32603, "message": message}


def lost_in_engine(record: Mapping[str, str]) -> dict[str, str]:
    """The fields that end an engine's task whose lease ran out: never taken from the
    queue within its bound, or lost with the task worker running it."""
    if record.get("queued") == "1":
        return finished("failed", NOT_TAKEN_MESSAGE, error=_error(NOT_TAKEN_MESSAGE))
    return finished("failed", WORKER_LOST_MESSAGE, error=_error(WORKER_LOST_MESSAGE))


def taken(lease_ms: int) -> dict[str, str]:
    """The fields an engine worker writes as it takes a task: its own lease from now."""
    return {
        "lease": str(now_ms() + lease_ms),
        "queued": "0",
        "statusMessage": "",
        "lastUpdatedAt": timestamp(),
    }


def engine_for(name: str | None, store: Any, tasks_store: TaskStore) -> TaskiqEngine | None:
    """The engine ``--task-engine``/``MCP_TASK_ENGINE`` names, on the store's Redis."""
    if not name:
        return None
    if name not in ENGINES:
        raise ValueError(f"{ENV_TASK_ENGINE}={name!r}: the task engines are {', '.join(ENGINES)}")
    url = getattr(store, "url", None)
    if url is None:
        raise ValueError(
            f"{ENV_TASK_ENGINE}={name}: the task engine needs the Redis store (--store redis://…)"
        )
    return TaskiqEngine(make_broker(url, store.prefix), tasks_store)
