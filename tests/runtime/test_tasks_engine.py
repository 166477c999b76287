"""The task engine's parts in one process: the server's side putting a task on taskiq's
queue (taskiq's own in-memory broker here; Redis in tests/e2e/test_tasks_engine.py), the
worker's side taking it from the shared task store, the explained ends of a task no
worker took or whose worker died, and the options that turn it on."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import orjson
import pytest
from taskiq import AsyncBroker, BrokerMessage, InMemoryBroker

from mcp_schemagen.runtime.auth.principal import Principal
from mcp_schemagen.runtime.http.settings import HttpSettings
from mcp_schemagen.runtime.main import main
from mcp_schemagen.runtime.store.tasks import now_ms
from mcp_schemagen.runtime.tasks.engine import (
    NOT_TAKEN_MESSAGE,
    TASK_NAME,
    WAITING_MESSAGE,
    WORKER_LOST_MESSAGE,
    TaskiqEngine,
)
from mcp_schemagen.runtime.tasks.engine_worker import run_taken
from mcp_schemagen.runtime.tasks.records import new_record
from tests.runtime.test_tasks import WITH_TASKS, Client, run, server


class HeldQueue(AsyncBroker):
    """A taskiq broker whose messages nobody takes: kept for the test to read."""

    def __init__(self) -> None:
        super().__init__()
        self.kicked: list[BrokerMessage] = []

    async def kick(self, message: BrokerMessage) -> None:
        self.kicked.append(message)

    async def listen(self) -> AsyncGenerator[bytes, None]:
        return
        yield b""


@run
async def test_the_server_queues_the_task_and_the_worker_side_runs_it() -> None:
    front, back = server(), server()  # a server process and an engine worker
    assert front.tasks is not None and back.tasks is not None
    back.tasks.store = front.tasks.store  # one store, as one Redis
    broker = InMemoryBroker(await_inplace=False)
    ran: list[str] = []

    async def run_task(message: dict[str, Any]) -> None:
        ran.append(message["taskId"])
        await run_taken(back.tasks, message)  # type: ignore[arg-type]

    broker.register_task(run_task, task_name=TASK_NAME)
    client = Client(front, WITH_TASKS)
    # A queue no worker listens on: the task waits, and the server does not run it.
    held = HeldQueue()
    front.tasks.engine = TaskiqEngine(held, front.tasks.store)
    waiting = (await client.call("sleeper", seconds=0.05))["result"]
    task = (await client.request("tasks/get", taskId=waiting["taskId"]))["result"]
    assert (task["status"], task["statusMessage"]) == ("working", WAITING_MESSAGE)
    assert front.tasks.running == {}  # the server does not run it itself
    assert [m.task_name for m in held.kicked] == [TASK_NAME]

    front.tasks.engine = TaskiqEngine(broker, front.tasks.store)
    created = (await client.call("sleeper", seconds=0.05))["result"]
    assert created["resultType"] == "task"
    done = await client.until(created["taskId"], "completed", "failed")
    assert done["result"]["content"] == [{"type": "text", "text": "slept 0.05"}]
    assert ran == [created["taskId"]] and "statusMessage" not in done


@run
async def test_a_task_no_worker_took_in_time_ends_failed_never_started() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    # Queued (never taken) with its queue bound run out; a rerun tool is not run again.
    record = new_record("q", "", "rerunnable", 60_000, 100, now_ms() - 1, {"seconds": 0.05})
    await srv.tasks.store.create("q", {**record, "queued": "1"}, 60_000)
    ended = (await client.request("tasks/get", taskId="q"))["result"]
    assert ended["status"] == "failed"
    assert ended["error"] == {"code": -32603, "message": NOT_TAKEN_MESSAGE}
    assert srv.tasks.running == {}


@run
async def test_a_task_lost_with_its_engine_worker_says_so() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    record = new_record("w", "", "sleeper", 60_000, 100, now_ms() - 1)
    await srv.tasks.store.create("w", {**record, "queued": "0"}, 60_000)  # taken, then lost
    ended = (await client.request("tasks/get", taskId="w"))["result"]
    assert ended["error"] == {"code": -32603, "message": WORKER_LOST_MESSAGE}
    assert ended["statusMessage"] == WORKER_LOST_MESSAGE


@run
async def test_a_task_finished_while_it_waited_is_not_run() -> None:
    srv = server()
    assert srv.tasks is not None
    record = new_record("c", "", "sleeper", 60_000, 100, now_ms() + 60_000)
    await srv.tasks.store.create("c", {**record, "queued": "1"}, 60_000)
    await srv.tasks.store.write("c", {"status": "cancelled"}, clear_questions=True)
    message = {"taskId": "c", "tool": "sleeper", "arguments": {}, "revision": "2026-07-28"}
    await run_taken(srv.tasks, message)
    assert srv.tasks.running == {}


def test_the_setting_travels_to_worker_processes_in_the_environment() -> None:
    settings = HttpSettings(store="redis://127.0.0.1:6379/0", task_engine="taskiq")
    assert settings.environment()["MCP_TASK_ENGINE"] == "taskiq"
    assert HttpSettings.from_environment(settings.environment()).task_engine == "taskiq"
    assert "MCP_TASK_ENGINE" not in HttpSettings().environment()


@pytest.mark.parametrize(
    ("argv", "environment", "message"),
    [
        (
            ["--http", "--task-engine", "taskiq"],
            None,
            "--task-engine taskiq needs --store redis://HOST:PORT/DB: the engine's queue and"
            " the tasks' records live in that Redis, shared with the task workers",
        ),
        (["--http", "--store", "redis://x/0"], "celery", "MCP_TASK_ENGINE 'celery': the task"),
        (["--task-engine", "taskiq"], None, "--task-engine needs --http"),
        (["task-worker"], None, "--redis redis://HOST:PORT/DB is needed (the servers' --store)"),
    ],
)
def test_the_options_are_checked_with_a_clear_message(
    argv: list[str],
    environment: str | None,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("MCP_STORE", raising=False)
    if environment is None:
        monkeypatch.delenv("MCP_TASK_ENGINE", raising=False)
    else:
        monkeypatch.setenv("MCP_TASK_ENGINE", environment)
    with pytest.raises(SystemExit) as stopped:
        main(lambda: server(), "pkg", argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


@run
async def test_a_task_cancelled_while_it_waits_ends_cancelled_and_never_runs() -> None:
    srv = server()
    client = Client(srv, WITH_TASKS)
    assert srv.tasks is not None
    held = HeldQueue()
    srv.tasks.engine = TaskiqEngine(held, srv.tasks.store)
    task_id = (await client.call("sleeper", seconds=0.05))["result"]["taskId"]
    await client.request("tasks/cancel", taskId=task_id)
    ended = (await client.request("tasks/get", taskId=task_id))["result"]
    assert (ended["status"], ended["statusMessage"]) == (
        "cancelled",
        "Cancelled at the client's request",
    )
    # The message still in the queue, taken later: the worker does not run the handler.
    await run_taken(srv.tasks, {**orjson.loads(held.kicked[0].message)["args"][0]})
    assert srv.tasks.running == {}


@run
async def test_a_cancel_that_crosses_the_take_ends_the_task_unrun() -> None:
    srv = server()
    assert srv.tasks is not None
    record = new_record("x", "", "sleeper", 60_000, 100, now_ms() + 60_000)
    await srv.tasks.store.create("x", {**record, "queued": "1", "cancel": "1"}, 60_000)
    message = {"taskId": "x", "tool": "sleeper", "arguments": {}, "revision": "2026-07-28"}
    await run_taken(srv.tasks, message)
    assert srv.tasks.running == {}
    ended = await srv.tasks.store.read("x")
    assert ended is not None and ended["status"] == "cancelled"


def test_an_app_given_the_engine_without_its_redis_store_says_what_is_wrong() -> None:
    from mcp_schemagen.runtime.store import MemoryStore
    from mcp_schemagen.runtime.store.tasks import MemoryTaskStore
    from mcp_schemagen.runtime.tasks.engine import engine_for

    with pytest.raises(ValueError, match="the task engines are taskiq"):
        engine_for("celery", MemoryStore(), MemoryTaskStore())
    with pytest.raises(ValueError, match=r"needs the Redis store \(--store redis://"):
        engine_for("taskiq", MemoryStore(), MemoryTaskStore())
    assert engine_for(None, MemoryStore(), MemoryTaskStore()) is None


@run
async def test_one_principals_queued_tasks_are_capped_across_server_processes() -> None:
    # Two server processes on one store (one Redis): alice's engine tasks are counted
    # there, wherever she calls, and past the cap she is told why; bob is still served.
    front, other = server(), server()
    assert front.tasks is not None and other.tasks is not None
    other.tasks.store = front.tasks.store
    principal = {"who": "alice"}
    for srv in (front, other):
        srv.principal_of = lambda: Principal(principal["who"], None, frozenset(), "iss", {})
        assert srv.tasks is not None
        srv.tasks.engine = TaskiqEngine(HeldQueue(), front.tasks.store)
        srv.tasks.max_per_principal = 2
    at_front, at_other = Client(front, WITH_TASKS), Client(other, WITH_TASKS)
    first = (await at_front.call("sleeper", seconds=30))["result"]["taskId"]
    (await at_other.call("sleeper", seconds=30))["result"]["taskId"]
    refused = (await at_front.call("sleeper", seconds=30))["error"]
    assert refused == {
        "code": -32000,
        "message": "Too many tasks of yours: 2 are queued or running"
        " (MCP_TASK_MAX_PER_PRINCIPAL); try again when some have finished",
    }
    assert "error" in await at_other.call("sleeper", seconds=30)
    principal["who"] = "bob"
    assert (await at_other.call("sleeper", seconds=30))["result"]["resultType"] == "task"
    principal["who"] = "alice"  # one of hers ends: room for one more
    await at_other.request("tasks/cancel", taskId=first)
    assert (await at_other.call("sleeper", seconds=30))["result"]["resultType"] == "task"
    assert "error" in await at_front.call("sleeper", seconds=30)


@run
async def test_a_lost_engine_task_no_longer_counts_against_its_principal() -> None:
    srv = server()
    assert srv.tasks is not None
    srv.principal_of = lambda: Principal("alice", None, frozenset(), "iss", {})
    srv.tasks.engine = TaskiqEngine(HeldQueue(), srv.tasks.store)
    srv.tasks.max_per_principal = 1
    client = Client(srv, WITH_TASKS)
    lost_id = (await client.call("sleeper", seconds=30))["result"]["taskId"]
    assert "error" in await client.call("sleeper", seconds=30)
    # Its queue bound ran out (no worker took it): not counted, even before it is read.
    await srv.tasks.store.write(lost_id, {"lease": str(now_ms() - 1)}, clear_questions=False)
    assert (await client.call("sleeper", seconds=30))["result"]["resultType"] == "task"


class ClosedQueue(HeldQueue):
    """A held queue that records its shutdown."""

    def __init__(self) -> None:
        super().__init__()
        self.shut_down = 0

    async def shutdown(self) -> None:
        self.shut_down += 1
        await super().shutdown()


@run
async def test_the_servers_broker_is_shut_down_with_the_app() -> None:
    import asyncio

    from mcp_schemagen.runtime.http.app import McpHttpApp
    from mcp_schemagen.runtime.store import MemoryStore

    srv = server()
    app = McpHttpApp(srv, HttpSettings(), MemoryStore())
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    sent: list[str] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message["type"])

    lifespan = asyncio.ensure_future(app({"type": "lifespan"}, inbox.get, send))
    await inbox.put({"type": "lifespan.startup"})
    while not sent:
        await asyncio.sleep(0.01)
    assert srv.tasks is not None
    queue = ClosedQueue()
    srv.tasks.engine = TaskiqEngine(queue, srv.tasks.store)
    assert (await Client(srv, WITH_TASKS).call("sleeper", seconds=1))["result"]["taskId"]
    await inbox.put({"type": "lifespan.shutdown"})
    await asyncio.wait_for(lifespan, 10)
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert queue.shut_down == 1
