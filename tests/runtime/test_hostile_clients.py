"""The server survives every client: one reply per request, bounded echoes, one handshake.

In process, through ``Server.handle_message``; the stdio side (backpressure, the fuzz
corpus) is in test_stdio_hostile.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from tests.support.inprocess import (
    STATELESS,
    Peer,
    dispatch,
    entry,
    run,
    runtime,
    server_with,
    text,
)
from tests.support.runtime_fixture import REVISIONS

__all__ = ["dispatch", "runtime"]  # fixtures, imported for pytest


class Opaque:
    """Not JSON data: no dump method, not a dataclass."""


def _unsendable_tools(runtime: Any) -> list[Any]:
    """Handlers whose results orjson refuses, each in a sync and an async form."""
    results: dict[str, Any] = {
        "object": Opaque(),
        "object_block": [{"type": "text", "text": Opaque()}],
        "set_structured": runtime.result.ToolResult(content=["x"], structured={"a": {1}}),
    }
    tools = []
    for name, value in results.items():

        def sync(value: Any = value) -> Any:
            return value

        async def coroutine(value: Any = value) -> Any:
            await asyncio.sleep(0)
            return value

        tools.append(entry(runtime, f"sync_{name}", sync))
        tools.append(entry(runtime, f"async_{name}", coroutine))
    return tools


@run
async def test_a_result_holding_an_integer_beyond_64_bits_is_sent_exactly(runtime: Any) -> None:
    # JSON has no integer limit, and orjson (which refuses these) is not the protocol's.
    big = [{"type": "text", "text": "x", "_meta": {"n": 2**70 + 1}}]

    def sync() -> Any:
        return big

    async def coroutine() -> Any:
        await asyncio.sleep(0)
        return big

    tools = [entry(runtime, "sync_big", sync), entry(runtime, "async_big", coroutine)]
    server = server_with(runtime, *tools)
    for revision in ("2025-06-18", STATELESS):
        peer = await Peer.open(server, revision)
        for tool in tools:
            message = peer.message("tools/call", {"name": tool.name})
            reply = json.loads(await server.handle_message(orjson.dumps(message), peer.session))
            assert reply["result"]["content"][0]["_meta"] == {"n": 2**70 + 1}, reply


@run
async def test_unsendable_results_get_one_internal_error_each(runtime: Any) -> None:
    tools = _unsendable_tools(runtime)
    server = server_with(runtime, *tools)
    for revision in ("2025-06-18", STATELESS):
        peer = await Peer.open(server, revision)
        for tool in tools:
            reply = await peer.call(tool.name)
            assert reply.get("error", {}).get("code") == -32603, (revision, tool.name, reply)
            assert tool.name in reply["error"]["message"]
    # In a batch too (2025-03-26 has no structured content): every member answered.
    peer = await Peer.open(server, "2025-03-26")
    unstructured = [tool for tool in tools if "structured" not in tool.name]
    batch = [peer.message("tools/call", {"name": tool.name}) for tool in unstructured]
    replies = await peer.raw(batch)
    assert sorted(r["id"] for r in replies) == [m["id"] for m in batch]  # any order
    assert all(r["error"]["code"] == -32603 for r in replies)


@run
async def test_a_handler_raising_cancelled_error_still_gets_a_reply(runtime: Any) -> None:
    async def gives_up() -> str:
        raise asyncio.CancelledError("the handler's own, not the client's")

    server = server_with(runtime, entry(runtime, "gives_up", gives_up))
    peer = await Peer.open(server, "2025-06-18")
    reply = await peer.call("gives_up")
    assert reply["result"]["isError"] is True
    assert "the handler's own" in text(reply)


@run
async def test_a_broken_exception_message_still_gets_a_reply(runtime: Any) -> None:
    class Broken(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no text")

    def fails() -> str:
        raise Broken()

    server = server_with(runtime, entry(runtime, "fails", fails))
    reply = await (await Peer.open(server, "2025-06-18")).call("fails")
    assert reply["result"]["isError"] is True and text(reply) == "Broken"


# ------------------------------------------------------------- echoed values (issue 10.14)

HUGE = 5_000_000


@run
async def test_error_messages_quote_client_values_briefly(dispatch: ModuleType) -> None:
    huge = "x" * HUGE
    for revision in REVISIONS:
        peer = await Peer.open(dispatch.SERVER, revision)
        replies = [
            await peer.call("get_weather", {"location": 5, "units": huge}),
            await peer.call("create_order", {"customer": {"name": huge}, "items": huge}),
            await peer.call("get_weather", {"location": "Oslo", huge: 1}),
            await peer.call(huge),
            await peer.request(huge),
        ]
        if revision != STATELESS:
            replies.append(await peer.request("logging/setLevel", {"level": huge}))
        for reply in replies:
            encoded = orjson.dumps(reply)
            assert len(encoded) < 8_000, (revision, encoded[:300])
            assert b"characters omitted" in encoded, (revision, encoded[:300])
        # What was expected is kept, after the value.
        invalid = orjson.dumps(replies[0])
        assert b'is not one of [\\"celsius\\",\\"fahrenheit\\"]' in invalid or b"enum" in invalid
    unsupported = await Peer(dispatch.SERVER, None).request(
        "tools/list",
        {"_meta": {"io.modelcontextprotocol/protocolVersion": huge}},
    )
    assert unsupported["error"]["code"] == -32022
    assert len(unsupported["error"]["data"]["requested"]) < 300


def test_shorten(runtime: Any) -> None:
    shorten = runtime.shorten.shorten
    assert shorten("short") == "short"
    long = "a" * 1000 + " is not of type integer"
    cut = shorten(long)
    assert len(cut) <= 300 and cut.endswith(" is not of type integer")
    assert cut.startswith("a" * 100) and "[" in cut and "characters omitted" in cut


# ------------------------------------------------------------------ handshake (issue 10.15)


@run
async def test_a_second_initialize_is_refused_and_the_first_stays(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-03-26")
    again = await peer.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
    assert again["error"]["code"] == -32600
    assert "already initialized" in again["error"]["message"]
    assert "2025-03-26" in again["error"]["message"]
    assert peer.session.revision.name == "2025-03-26"
    # Batches exist in 2025-03-26 only: the connection still speaks it.
    ping = peer.message("ping")
    assert await peer.raw([ping]) == [{"jsonrpc": "2.0", "id": ping["id"], "result": {}}]


@run
async def test_a_failed_initialize_may_be_retried(dispatch: ModuleType) -> None:
    peer = Peer(dispatch.SERVER, None)
    assert (await peer.request("initialize", {}))["error"]["code"] == -32602
    retried = await peer.request("initialize", {"protocolVersion": "2025-06-18"})
    assert retried["result"]["protocolVersion"] == "2025-06-18"


# --------------------------------------------------------- where handlers run (issue 9.11)


@run
async def test_sync_handlers_run_in_workers_unless_marked_nonblocking(runtime: Any) -> None:
    import threading

    seen: dict[str, str] = {}

    def plain() -> str:
        seen["plain"] = threading.current_thread().name
        runtime.context.get_context().log("info", "from a worker")
        return "ok"

    @runtime.workers.nonblocking
    def quick() -> str:
        seen["quick"] = threading.current_thread().name
        return "ok"

    async def coroutine() -> str:
        seen["coroutine"] = threading.current_thread().name
        return "ok"

    server = server_with(
        runtime,
        entry(runtime, "plain", plain),
        entry(runtime, "quick", quick),
        entry(runtime, "coroutine", coroutine),
    )
    peer = await Peer.open(server, "2025-06-18")
    for name in ("plain", "quick", "coroutine"):
        assert text(await peer.call(name)) == "ok"
    loop_thread = threading.current_thread().name
    assert seen["plain"].startswith("mcp-handler-")
    assert seen["quick"] == seen["coroutine"] == loop_thread
    # The log sent from the worker reached the client through the loop's thread.
    assert [m["params"]["data"] for m in peer.sent] == ["from a worker"]


@run
async def test_a_quick_sync_handler_earns_the_loop_unless_marked_blocking(runtime: Any) -> None:
    """Issue 22: quick calls in workers move a sync handler onto the loop (no thread hop);
    ``@blocking`` keeps one in the workers however quick its calls."""
    import threading

    seen: dict[str, list[str]] = {"plain": [], "pinned": []}

    def plain() -> str:
        seen["plain"].append(threading.current_thread().name)
        return "ok"

    @runtime.workers.blocking
    def pinned() -> str:
        seen["pinned"].append(threading.current_thread().name)
        return "ok"

    server = server_with(runtime, entry(runtime, "plain", plain), entry(runtime, "pinned", pinned))
    peer = await Peer.open(server, "2025-06-18")
    for _ in range(4 * runtime.workers.QUICK_STREAK):
        for name in ("plain", "pinned"):
            assert text(await peer.call(name)) == "ok"
    loop_thread = threading.current_thread().name
    assert seen["plain"][0].startswith("mcp-handler-")
    assert seen["plain"][-1] == loop_thread
    assert all(name.startswith("mcp-handler-") for name in seen["pinned"])


def test_a_handler_sent_back_from_the_loop_needs_a_longer_record_then_stays(
    runtime: Any,
) -> None:
    workers = runtime.workers
    placement = workers.Placement(lambda: None)
    quick, slow = workers.QUICK_SECONDS / 2, workers.SLOW_SECONDS * 2
    needed = []
    for _ in range(workers.MAX_DEMOTIONS):
        calls = 0
        while not placement.inline and calls < 10_000:
            placement.worker_call_took(quick)
            calls += 1
        needed.append(calls)
        placement.loop_call_took(workers.SLOW_SECONDS / 2)  # quick enough: stays
        assert placement.inline
        placement.loop_call_took(slow)
        assert not placement.inline
    assert needed == [workers.QUICK_STREAK << n for n in range(workers.MAX_DEMOTIONS)]
    for _ in range(10_000):
        placement.worker_call_took(quick)
    assert not placement.inline  # sent back MAX_DEMOTIONS times: in the workers for good
    placement.worker_call_took(slow)  # a slow call in a worker breaks a streak
    fresh = workers.Placement(lambda: None)
    for _ in range(workers.QUICK_STREAK - 1):
        fresh.worker_call_took(quick)
    fresh.worker_call_took(slow)
    fresh.worker_call_took(quick)
    assert not fresh.inline


def test_a_slow_call_spent_waiting_for_a_cpu_keeps_a_handler_on_the_loop(
    runtime: Any, monkeypatch: Any
) -> None:
    """A busy machine makes a quick call slow by running other work meanwhile (the loop's
    thread ready, waiting for a CPU): that is no reason to send the handler back. Time not
    spent waiting for a CPU (a sleep, I/O) is."""
    workers = runtime.workers
    waited = [0.0]
    monkeypatch.setattr(workers, "runqueue_wait", lambda: waited[0])
    placement = workers.Placement(lambda: None)
    while not placement.inline:
        placement.worker_call_took(workers.QUICK_SECONDS / 2)
    placement.loop_call_took(workers.SLOW_SECONDS / 2)
    slow = workers.SLOW_SECONDS * 5
    for _ in range(10 * workers.MAX_DEMOTIONS):
        waited[0] += slow  # the thread waited for a CPU the whole time
        placement.loop_call_took(slow)
        assert placement.inline
    placement.loop_call_took(slow)  # this time it did not wait: the handler blocked
    assert not placement.inline


def test_runqueue_wait_reads_this_thread_s_schedstat(runtime: Any) -> None:
    first = runtime.workers.runqueue_wait()
    if not Path("/proc/thread-self/schedstat").exists():
        assert first is None  # not Linux: every slow call sends the handler back
        return
    assert first is not None and 0 <= first <= runtime.workers.runqueue_wait()


# ------------------------------------------------ arguments beyond the parameters (9.10)


@run
async def test_kwargs_receive_the_arguments_the_schema_allows(runtime: Any, capsys: Any) -> None:
    import json

    def open_ended(*, class_: str, **extra: Any) -> str:
        return json.dumps({"class_": class_, **extra}, sort_keys=True)

    def closed(*, class_: str) -> str:
        return class_

    schema = {"type": "object", "properties": {"class": {"type": "string"}}}
    names = {"class": "class_"}
    server = server_with(
        runtime,
        entry(runtime, "open_ended", open_ended, input_schema=schema, arguments=names),
        entry(runtime, "closed", closed, input_schema=schema, arguments=names),
    )
    for revision in ("2025-06-18", STATELESS):
        peer = await Peer.open(server, revision)
        reply = await peer.call("open_ended", {"class": "a", "a-b": 1, "unit": "c"})
        assert json.loads(text(reply)) == {"class_": "a", "a-b": 1, "unit": "c"}
        # "class_" would land on the parameter that receives "class": refused, not dropped.
        shadowing = await peer.call("open_ended", {"class": "a", "class_": "b"})
        problem = json.dumps(shadowing)
        assert "not a parameter of this tool" in problem and "receives argument 'class'" in problem
        assert text(await peer.call("closed", {"class": "a", "x": 1})) == "a"
        assert text(await peer.call("closed", {"class": "a", "y": 1})) == "a"
    told = capsys.readouterr().err
    assert told.count("tool 'closed': arguments 'x' are not parameters") == 1
    assert "add **kwargs" in told and "'y'" not in told  # said once per tool


# ------------------------------------------------------- stdio flow control (issue 10.8)


class _CorkedWriter:
    """Congested whenever one reply is held (with ``congests``): the reader must stop after
    every message."""

    def __init__(self, congests: bool = True) -> None:
        self.congests = congests
        self.out: list[bytes] = []
        self.held: list[bytes] = []
        self.corked = False
        self.on_drained: Any = None

    def write(self, message: bytes) -> None:
        (self.held if self.corked else self.out).append(message)

    def cork(self) -> None:
        self.corked = True

    def uncork(self) -> None:
        self.corked = False
        self.out += self.held
        self.held.clear()

    def congested(self) -> bool:
        return self.congests and bool(self.held)


@run
async def test_held_back_input_is_handled_without_recursion(
    runtime: Any, dispatch: ModuleType
) -> None:
    count = 5_000  # far beyond the recursion limit, had each hold-back recursed
    writer = _CorkedWriter()
    done = asyncio.get_running_loop().create_future()
    session = dispatch.SERVER.session(writer.write)
    reader = runtime.stdio._Reader(dispatch.SERVER, session, writer, done)
    reader.data_received(
        b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"ping"}\n' % i for i in range(count))
    )
    assert [orjson.loads(m)["id"] for m in writer.out] == list(range(count))
    reader.eof_received()
    assert done.done()


def _slow_call(request_id: int) -> bytes:
    params = {"name": "slow", "arguments": {"seconds": 30}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return orjson.dumps(message) + b"\n"


def _cancel(request_id: int) -> bytes:
    params = {"requestId": request_id}
    return orjson.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})


@run
async def test_at_the_inflight_limit_requests_queue_and_ping_and_cancellations_pass(
    runtime: Any, dispatch: ModuleType
) -> None:
    limit = 4
    writer = _CorkedWriter(congests=False)
    done = asyncio.get_running_loop().create_future()
    session = dispatch.SERVER.session(writer.write)
    reader = runtime.stdio._Reader(dispatch.SERVER, session, writer, done, max_inflight=limit)
    initialize = {"protocolVersion": "2025-06-18", "capabilities": {}}
    reader.data_received(
        orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize})
        + b"\n"
        + b"".join(_slow_call(i) for i in range(1, limit + 3))  # two more than the slots
    )
    assert len(session.inflight) == limit
    ping = b'{"jsonrpc":"2.0","id":100,"method":"ping"}\n'
    reader.data_received(ping)  # a ping never waits behind queued requests
    assert {orjson.loads(m)["id"] for m in writer.out} == {0, 100}
    reader.data_received(_cancel(limit + 2) + b"\n")  # a queued request: dropped, unstarted
    reader.data_received(_cancel(1) + b"\n")  # a running one: its slot goes to the queue
    await asyncio.sleep(0.01)
    assert set(session.inflight) == {*range(2, limit + 2)}
    for request_id in list(session.inflight):
        session.cancel(request_id)
    await asyncio.sleep(0.01)
    reader.eof_received()
    await asyncio.sleep(0.01)
    assert done.done()
    # Cancelled requests get no reply, the queued one that was cancelled never started.
    assert {orjson.loads(m)["id"] for m in writer.out} == {0, 100}


def _nested(depth: int, kind: str) -> bytes:
    """JSON of arrays (or objects) ``depth`` levels deep, the innermost empty (as text:
    orjson writes no more than 255 levels)."""
    if kind == "array":
        return b"[" * depth + b"]" * depth
    return b'{"k":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


async def _call_nested(peer: Peer, tool: str, nested: bytes) -> Any:
    message = orjson.dumps(peer.message("tools/call", {"name": tool, "arguments": {"a": 0}}))
    return await peer.raw(message.replace(b'"a":0', b'"a":' + nested))


@run
async def test_deeply_nested_arguments_are_invalid_params_naming_the_limit(
    runtime: Any, capsys: Any
) -> None:
    limit = runtime.validation.MAX_DEPTH
    schemas = {  # each made jsonschema-rs hit its recursion limit (-32603 and a traceback)
        "items": {"type": "object", "properties": {"a": {"type": "array", "items": {}}}},
        "const": {"type": "object", "properties": {"a": {"const": 1}}},
        "open": {"type": "object"},
    }
    tools = [
        entry(runtime, name, lambda **_: "ran", input_schema=schema, arguments={"a": "a"})
        for name, schema in schemas.items()
    ]
    server = server_with(runtime, *tools)
    for revision in REVISIONS:
        peer = await Peer.open(server, revision)
        for tool in tools:
            for kind in ("array", "object"):
                for depth in (limit, 500, 1000):  # the arguments object is one level more
                    reply = await _call_nested(peer, tool.name, _nested(depth, kind))
                    if revision >= "2025-11-25":  # a tool execution error the model reads
                        assert reply["result"]["isError"] is True, reply
                        said = reply["result"]["content"][0]["text"]
                    else:
                        assert reply["error"]["code"] == -32602, (revision, reply)
                        said = json.dumps(reply["error"])
                    assert f"more than {limit} levels" in said, said
                fits = json.dumps(await _call_nested(peer, tool.name, _nested(limit - 1, kind)))
                assert f"more than {limit} levels" not in fits, fits  # at the limit: validated
                if tool.name == "open" or (tool.name == "items" and kind == "array"):
                    assert "ran" in fits, fits
    assert "Traceback" not in capsys.readouterr().err


class _Stdin:
    """The read side of stdio as ``_Reader`` drives it: paused and resumed."""

    def __init__(self) -> None:
        self.reading = True
        self.pauses = 0

    def is_reading(self) -> bool:
        return self.reading

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.reading = False
        self.pauses += 1

    def resume_reading(self) -> None:
        self.reading = True


@run
async def test_stdin_is_not_read_while_the_queue_holds_8_mib_of_requests(
    runtime: Any, dispatch: ModuleType
) -> None:
    stdio = runtime.stdio
    limit, count, pad = 4, 200, 64 * 1024  # 200 requests of 64 KiB: 12.5 MiB
    writer = _CorkedWriter(congests=False)
    done = asyncio.get_running_loop().create_future()
    session = dispatch.SERVER.session(writer.write)
    reader = stdio._Reader(dispatch.SERVER, session, writer, done, max_inflight=limit)
    stdin = _Stdin()
    reader.reading = stdin
    initialize = {"protocolVersion": "2025-06-18", "capabilities": {}}
    lines = [
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "slow", "arguments": {"seconds": 30}, "_meta": {"p": "x" * pad}},
            }
        )
        + b"\n"
        for i in range(1, count + 1)
    ]
    first = orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize})
    reader.data_received(first + b"\n" + b"".join(lines))
    # The queue stops at the limit (one line may cross it); the rest waits unread.
    assert len(session.inflight) == limit
    assert stdio.MAX_QUEUED_BYTES <= reader._queued_bytes < stdio.MAX_QUEUED_BYTES + len(lines[0])
    assert reader._backlog and not stdin.reading and not reader.flowing.is_set()
    held = len(reader._backlog)
    # As running requests end, queued ones start and the backlog is taken in, never past
    # the limit; once all of it fits, stdin is read again.
    started: set[int] = set()
    for _ in range(count):
        if not (reader._queue or reader._backlog):
            break
        started |= set(session.inflight)
        for request_id in list(session.inflight):
            session.cancel(request_id)
        await asyncio.sleep(0.01)
        assert reader._queued_bytes < stdio.MAX_QUEUED_BYTES + len(lines[0])
        assert len(reader._backlog) <= held
    started |= set(session.inflight)
    assert started == set(range(1, count + 1))  # every request started, in turn
    assert stdin.reading and reader.flowing.is_set()
    for request_id in list(session.inflight):
        session.cancel(request_id)
    reader.eof_received()
    await asyncio.sleep(0.01)
    assert done.done()
