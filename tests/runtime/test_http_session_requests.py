"""A 2025-11-25 session's requests through the ASGI app in process: what each asks of the
store. A call answered in one JSON response loads the session and nothing else (no stream
named, no lease, no release); a call that streams names its stream when it opens, leases
its calls to this worker under that name and releases them when over, and the event ids
the client sees name that same stream."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.http.app import McpHttpApp
from mcp_schemagen.runtime.http.settings import HttpSettings
from mcp_schemagen.runtime.jsonrpc import RequestId
from mcp_schemagen.runtime.registry import ToolEntry
from mcp_schemagen.runtime.server import Server
from mcp_schemagen.runtime.store import MemoryStore

REVISION = "2025-11-25"


def quick(text: str) -> str:
    return text


async def chatty(text: str) -> str:
    get_context().log("info", "working")  # a message during the call: the reply streams
    await asyncio.sleep(0)
    return text


class CountingStore(MemoryStore):
    """The in-memory store, recording every call the endpoint makes of it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    async def load_session(self, session_id: str) -> dict[str, Any] | None:
        self.calls.append(("load_session", session_id))
        return await super().load_session(session_id)

    async def update_session(self, session_id: str, changes: dict[str, Any]) -> None:
        self.calls.append(("update_session", changes))
        await super().update_session(session_id, changes)

    def track_calls(self, stream_id: str, request_ids: list[RequestId]) -> None:
        self.calls.append(("track_calls", (stream_id, list(request_ids))))

    async def open_stream(self, stream_id: str) -> None:
        self.calls.append(("open_stream", stream_id))
        await super().open_stream(stream_id)

    async def append_event(self, stream_id: str, message: bytes, last: bool) -> int:
        self.calls.append(("append_event", stream_id))
        return await super().append_event(stream_id, message, last)

    async def release_calls(self, stream_id: str) -> None:
        self.calls.append(("release_calls", stream_id))


def _server() -> Server:
    entries = [
        ToolEntry(
            name=handler.__name__,
            published={REVISION: {"name": handler.__name__, "inputSchema": {"type": "object"}}},
            input_schema={"type": "object"},
            output_schema=None,
            handler=handler,
            arguments={"text": "text"},
            defaults={},
        )
        for handler in (quick, chatty)
    ]
    return Server(tools=entries, name="t", version="1", revisions=[REVISION])


async def _post(
    app: McpHttpApp, message: dict[str, Any], headers: dict[str, str]
) -> tuple[int, dict[bytes, bytes], bytes]:
    """One POST as uvicorn hands it over: status, response headers, the whole body."""
    body = orjson.dumps(message)
    every = {
        "host": "127.0.0.1:8000",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "content-length": str(len(body)),
        **headers,
    }
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/mcp",
        "headers": [(k.encode(), v.encode()) for k, v in every.items()],
    }
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.get_running_loop().create_future()  # no disconnect: wait, as uvicorn
        raise AssertionError("unreachable")

    sent: list[dict[str, Any]] = []

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    await app(scope, receive, send)
    start = sent[0]
    return start["status"], dict(start["headers"]), b"".join(e.get("body", b"") for e in sent[1:])


async def _session(app: McpHttpApp) -> dict[str, str]:
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": REVISION,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    _, headers, _ = await _post(app, initialize, {})
    session = {"mcp-session-id": headers[b"mcp-session-id"].decode()}
    session["mcp-protocol-version"] = REVISION
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    status, _, _ = await _post(app, initialized, session)
    assert status == 202
    return session


def _call(request_id: int, tool: str) -> dict[str, Any]:
    params = {"name": tool, "arguments": {"text": f"hello {request_id}"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_a_call_answered_in_json_only_loads_the_session() -> None:
    async def scenario() -> None:
        store = CountingStore()
        app = McpHttpApp(_server(), HttpSettings(), store)
        await app.start()
        session = await _session(app)
        for request_id in (1, 2, 3):
            store.calls.clear()
            status, headers, body = await _post(app, _call(request_id, "quick"), session)
            assert status == 200 and headers[b"content-type"] == b"application/json"
            reply = orjson.loads(body)
            assert reply["id"] == request_id
            assert reply["result"]["content"][0]["text"] == f"hello {request_id}"
            assert store.calls == [("load_session", session["mcp-session-id"])]
        await store.close()

    asyncio.run(scenario())


def test_a_streamed_call_names_leases_and_releases_its_stream() -> None:
    async def scenario() -> None:
        store = CountingStore()
        app = McpHttpApp(_server(), HttpSettings(), store)
        await app.start()
        session = await _session(app)
        session_id = session["mcp-session-id"]
        keys = set()
        for request_id in (7, 8):
            store.calls.clear()
            status, headers, body = await _post(app, _call(request_id, "chatty"), session)
            assert status == 200 and headers[b"content-type"] == b"text/event-stream"
            ids = [line[4:] for line in body.decode().splitlines() if line.startswith("id: ")]
            streams = {event_id.rpartition("/")[0] for event_id in ids}
            assert len(streams) == 1 and len(ids) == 3  # priming, the log, the reply
            key = f"{session_id}/{streams.pop()}"
            keys.add(key)
            names = [name for name, _ in store.calls]
            assert names == [
                "load_session",
                "track_calls",
                "open_stream",
                "append_event",
                "append_event",
                "release_calls",
            ]
            assert store.calls[1] == ("track_calls", (key, [request_id]))
            assert all(arg == key for name, arg in store.calls[2:])
            data = [line[6:] for line in body.splitlines() if line.startswith(b"data: ")]
            reply = orjson.loads(data[-1])
            assert reply["result"]["content"][0]["text"] == f"hello {request_id}"
        assert len(keys) == 2  # every stream a name of its own
        await store.close()

    asyncio.run(scenario())
