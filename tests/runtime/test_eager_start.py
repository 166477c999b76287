"""core/eager.start_task: a coroutine's first step runs at once, as its own task; a call
of an async handler that never waits is answered as a sync handler's is."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

import orjson
import pytest

from mcp_schemagen.runtime.core.eager import start_task
from mcp_schemagen.runtime.protocol import NAMES
from mcp_schemagen.runtime.registry import ToolEntry
from mcp_schemagen.runtime.server import Server

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


def _server_of(*handlers: Any) -> Server:
    entries = [
        ToolEntry(
            name=handler.__name__,
            published={
                r: {"name": handler.__name__, "inputSchema": {"type": "object"}} for r in NAMES
            },
            input_schema={"type": "object"},
            output_schema=None,
            handler=handler,
            arguments={},
            defaults={},
        )
        for handler in handlers
    ]
    return Server(tools=entries, name="t", version="1", revisions=NAMES)


def test_an_async_handler_that_never_waits_is_answered_as_a_sync_one_is() -> None:
    """Its reply comes back from ``receive`` as bytes (no task for the transport to look
    into); one that waits is a task the client can cancel, and ping passes meanwhile."""
    gate: dict[str, asyncio.Future[str]] = {}

    async def quick() -> str:
        async with asyncio.timeout(5):  # the eager step runs as a task
            return "quick"

    async def waits() -> str:
        gate["future"] = asyncio.get_running_loop().create_future()
        return await gate["future"]

    async def main() -> None:
        server = _server_of(quick, waits)
        session = server.session()
        initialize = {"protocolVersion": "2025-06-18", "capabilities": {}}
        server.receive(
            orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}),
            session,
        )

        def call(request_id: int, name: str) -> Any:
            params = {"name": name, "arguments": {}}
            message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
            return server.receive(orjson.dumps(message), session)

        reply = call(1, "quick")
        assert type(reply) is bytes
        assert orjson.loads(reply)["result"]["content"] == [{"type": "text", "text": "quick"}]

        running = call(2, "waits")
        assert isinstance(running, asyncio.Task) and not running.done()
        ping = server.receive(b'{"jsonrpc":"2.0","id":3,"method":"ping"}', session)
        assert type(ping) is bytes and orjson.loads(ping)["result"] == {}
        cancelled = {"requestId": 2}
        notice = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancelled}
        assert server.receive(orjson.dumps(notice), session) is None
        with pytest.raises(asyncio.CancelledError):
            await running
        assert gate["future"].cancelled()

    asyncio.run(main())


def _session_of(server: Server) -> Any:
    session = server.session()
    initialize = {"protocolVersion": "2025-06-18", "capabilities": {}}
    message = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}
    server.receive(orjson.dumps(message), session)
    return session


def _call(server: Server, session: Any, request_id: int, name: str) -> Any:
    params = {"name": name, "arguments": {}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return server.receive(orjson.dumps(message), session)


async def _answer(reply: Any) -> Any:
    """The JSON-RPC result of a reply (bytes, or a task whose result is bytes)."""
    if isinstance(reply, asyncio.Task):
        reply = await reply
    return orjson.loads(reply)["result"]


def test_an_async_handler_runs_as_its_own_task_in_its_own_context() -> None:
    """Even answered in its first step, the handler runs in the call's own task: there
    ``current_task()`` is that task, not the caller's, ``asyncio.timeout`` works, and a
    context variable it sets stays in its context (what driving the coroutine by hand,
    without a task, would break: docs/benchmarks.md, Profiles)."""
    seen: dict[str, Any] = {}

    async def marks() -> str:
        seen["task"] = asyncio.current_task()
        async with asyncio.timeout(5):
            MARK.set("handler")
            return MARK.get()

    async def main() -> None:
        server = _server_of(marks)
        session = _session_of(server)
        outer = asyncio.current_task()
        reply = _call(server, session, 1, "marks")
        assert type(reply) is bytes  # answered in its first step
        assert (await _answer(reply))["content"] == [{"type": "text", "text": "handler"}]
        assert seen["task"] is not outer and seen["task"].done()
        assert asyncio.current_task() is outer and MARK.get() == "caller"

    asyncio.run(main())


def test_what_an_async_handler_raises_or_returns_is_shaped_as_before() -> None:
    """Raised in the first step or after a wait, an exception is the tool's error result;
    so is the handler's own CancelledError and a deadline it set that expired; a
    coroutine it returns is awaited."""

    async def fails_at_once() -> str:
        raise ValueError("bad input")

    async def fails_later() -> str:
        await asyncio.sleep(0)
        raise ValueError("bad later")

    async def cancels_itself() -> str:
        raise asyncio.CancelledError("the handler's own")

    async def deadline() -> str:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(5)
        return "never"

    async def inner() -> str:
        return "inner value"

    async def returns_a_coroutine() -> Any:
        return inner()

    async def main() -> None:
        server = _server_of(
            fails_at_once, fails_later, cancels_itself, deadline, returns_a_coroutine
        )
        session = _session_of(server)
        expected = {
            "fails_at_once": (True, "bad input"),
            "fails_later": (True, "bad later"),
            "cancels_itself": (True, "the handler's own"),
            "deadline": (True, "TimeoutError"),
            "returns_a_coroutine": (False, "inner value"),
        }
        for number, (name, (is_error, text)) in enumerate(expected.items(), 1):
            result = await _answer(_call(server, session, number, name))
            assert bool(result.get("isError")) is is_error, (name, result)
            assert result["content"] == [{"type": "text", "text": text}], (name, result)

    asyncio.run(main())


def test_a_call_cancelled_before_its_loop_ran_it_never_starts_the_handler() -> None:
    """On a loop without eager start (uvloop), a call cancelled before the loop's next
    pass is cancelled with its handler's task: the handler never runs."""
    uvloop = pytest.importorskip("uvloop")
    steps: list[str] = []

    async def waits() -> str:
        steps.append("ran")
        await asyncio.sleep(5)
        return "never"

    async def main() -> None:
        server = _server_of(waits)
        session = _session_of(server)
        running = _call(server, session, 1, "waits")
        assert isinstance(running, asyncio.Task) and not running.done()
        notice = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
        assert server.receive(orjson.dumps(notice), session) is None
        with pytest.raises(asyncio.CancelledError):
            await running
        await asyncio.sleep(0.01)
        assert steps == []

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main())
