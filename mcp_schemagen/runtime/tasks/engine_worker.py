"""``python -m PACKAGE task-worker --redis URL``: a taskiq worker that runs the tasks the
HTTP server (``--task-engine taskiq``) put on the queue, with the package's own handlers.

Each message says "run task X" (tasks/engine.py). The worker takes the task in the store
(its own lease from now; a task already finished, e.g. cancelled while it waited, is
skipped), runs the handler through the same call lifecycle a server runs it with
(core/lifecycle.py) and the same supervision (runner.py: the lease renewed, a cancel sent
to any server worker honoured, the outcome written). ``get_context()`` asking goes
through the task's record (tasks/channel.py), answered by ``tasks/update`` at any server
worker. A worker killed mid-task stops renewing the lease, and the task ends as lost (or
runs again, ``"onLost": "rerun"``) exactly as for a server worker that died.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol import BY_NAME, META_CLIENT_CAPABILITIES
from ..session import Session
from ..session.request import RequestContext
from .channel import TaskChannel
from .engine import (
    QUEUE_SUFFIX,
    TASK_NAME,
    EngineMissing,
    engine_installed,
    make_broker,
    missing_engine,
    taken,
)
from .records import is_finished
from .runner import TaskRunner, cancelled, outcome_of

if TYPE_CHECKING:
    import argparse

    from ..store.redis_store import RedisStore


class Served(Protocol):
    """What the worker needs of the package's server (runtime/server.py): its tasks."""

    @property
    def tasks(self) -> TaskRunner | None: ...


def parser(package: str) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog=f"python -m {package} task-worker",
        description=(
            f"Run the {package} tasks that HTTP servers started with --task-engine taskiq "
            "put on the queue (taskiq, on the store's Redis)."
        ),
        allow_abbrev=False,
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="the Redis the servers' --store names (default $MCP_STORE)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="tasks this worker runs at once (default $MCP_TASK_MAX_RUNNING or 1000)",
    )
    return parser


def worker_main(load: Callable[[], Served], package: str, argv: Sequence[str]) -> None:
    """Run the worker; ``load`` gives the server (its handlers) once the options are read."""
    cli = parser(package)
    args = cli.parse_args(argv)
    url = args.redis or os.environ.get("MCP_STORE", "")
    from ..store.url import is_redis_url

    if not is_redis_url(url):
        cli.error("--redis redis://HOST:PORT/DB is needed (the servers' --store), or MCP_STORE")
    concurrency = args.concurrency or int(os.environ.get("MCP_TASK_MAX_RUNNING", "1000"))
    if concurrency < 1:
        cli.error("--concurrency must be 1 or more")
    if not engine_installed():
        sys.exit(missing_engine(package))
    asyncio.run(_serve(load(), url, concurrency, package))


async def _serve(server: Served, url: str, concurrency: int, package: str) -> None:
    from taskiq.receiver import Receiver

    from ..store.redis_store import RedisStore
    from ..store.redis_tasks import RedisTaskStore

    runner = server.tasks
    if runner is None:
        sys.exit(f"{package} has no tool that runs as a task: there is nothing to work on")
    reason = await _unanswered(url)
    if reason is not None:
        sys.exit(
            f"--redis {_shown(url)}: Redis does not answer ({reason}); start it or fix the URL"
        )
    store = RedisStore(url)
    runner.store = RedisTaskStore(store)
    runner.store.on_status = _announcer(store)
    await store.start()
    try:
        broker = make_broker(url, store.prefix, listening=True)
    except EngineMissing:
        sys.exit(missing_engine(package))
    broker.is_worker_process = True

    async def run_task(message: dict[str, Any]) -> None:
        await run_taken(runner, message)

    broker.register_task(run_task, task_name=TASK_NAME)
    finish = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, finish.set)
    receiver = Receiver(broker, max_async_tasks=concurrency, propagate_exceptions=False)
    print(
        f"{package}: task worker on {_shown(url)} (queue {store.prefix}{QUEUE_SUFFIX}); "
        f"up to {concurrency} tasks at once",
        file=sys.stderr,
        flush=True,
    )
    try:
        await receiver.listen(finish)
    finally:
        await broker.shutdown()
        await store.close()


def _announcer(store: RedisStore) -> Callable[[str], None]:
    """Tell the servers' workers that a task's status changed here (the store's pub/sub,
    as their own hubs do), so their ``subscriptions/listen`` streams hear of it; a
    notice lost while Redis is away costs only a notification: polling still tells."""
    from ..store import StoreUnavailable
    from ..subscriptions.notices import TASK, encode

    sending: set[asyncio.Task[None]] = set()

    async def publish(task_id: str) -> None:
        with contextlib.suppress(StoreUnavailable):
            await store.publish_notice(encode((TASK, task_id)))

    def announce(task_id: str) -> None:
        job = asyncio.ensure_future(publish(task_id))
        sending.add(job)  # kept until done: a task nobody holds may be collected
        job.add_done_callback(sending.discard)

    return announce


async def _unanswered(url: str) -> str | None:
    """Why Redis at ``url`` does not answer a ping at once; None when it does."""
    import redis.asyncio as redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    from ..store.redis_connections import closed

    client = redis.Redis.from_url(
        url, socket_connect_timeout=3.0, socket_timeout=3.0, retry=Retry(NoBackoff(), 0)
    )
    try:
        await client.ping()
    except Exception as exc:
        return " ".join(str(exc).split()) or type(exc).__name__
    finally:
        await closed(client)
    return None


def _shown(url: str) -> str:
    """Where the Redis is, without its password or query (for the start-up line)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


async def run_taken(runner: TaskRunner, message: dict[str, Any]) -> None:
    """Take the task ``message`` names and run it to its end (its outcome in the store)."""
    task_id: str = message["taskId"]
    tool = runner.tools.get(message["tool"])
    record = await runner.store.read(task_id)
    if tool is None or record is None or is_finished(record):
        return  # expired, cancelled while it waited, or a tool this build does not have
    if record.get("cancel") == "1":  # cancelled as it was taken: never started
        await runner.store.write(task_id, cancelled(), clear_questions=True)
        return
    if not await runner.store.write(task_id, taken(runner.lease_ms), clear_questions=False):
        return
    capabilities = message.get("capabilities") or {}
    arguments = message.get("arguments") or {}
    revision = BY_NAME[message["revision"]]
    request = RequestContext(
        id="task:" + task_id,
        method="tools/call",
        params={"name": tool.name, "arguments": arguments},
        meta={META_CLIENT_CAPABILITIES: capabilities},
        revision=revision,
        session=Session(),
        log_rank=None,
        principal=_principal(message.get("principal")),
    )
    channel = TaskChannel(capabilities, runner.store, task_id)
    kwargs = tool.keyword_arguments(arguments)
    stamp = runner.stamp
    work = asyncio.ensure_future(
        outcome_of(lambda: _run_call(tool, kwargs, request, channel, stamp))
    )
    await runner.supervise(channel, work)


def _run_call(tool: Any, kwargs: Any, request: RequestContext, channel: Any, stamp: Any) -> Any:
    from ..core.lifecycle import run_call

    return run_call(tool, kwargs, tool.name, request, channel, stamp)


def _principal(fields: dict[str, Any] | None) -> Any:
    if fields is None:
        return None
    from ..auth.principal import Principal

    return Principal(
        subject=fields["subject"],
        client_id=fields.get("client_id"),
        scopes=frozenset(fields.get("scopes") or ()),
        issuer=fields["issuer"],
        claims=fields.get("claims") or {},
    )
