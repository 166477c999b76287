"""The server core's parts on their own: the lister pages any published list (not only
tools), the envelope answers for any route, and an HTTP endpoint needs of the server only
the ``MessageCore`` interface (one message for one session), not the app or a Server."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from mcp_schemagen.runtime.core.cursor import encode_cursor
from mcp_schemagen.runtime.core.envelope import Envelope
from mcp_schemagen.runtime.core.listing import ListCaching, Lister
from mcp_schemagen.runtime.http.endpoint import HttpRequest, Responder
from mcp_schemagen.runtime.http.stateless import StatelessEndpoint
from mcp_schemagen.runtime.jsonrpc import Reply, RequestId, RpcError
from mcp_schemagen.runtime.protocol import BY_NAME, METHOD_NOT_FOUND, newest
from mcp_schemagen.runtime.server import Server
from mcp_schemagen.runtime.session import Session

STATELESS = BY_NAME["2026-07-28"]
SESSION_ERA = BY_NAME["2025-11-25"]
PROMPTS = [{"name": f"prompt-{i}"} for i in range(5)]
STAMP = {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}}


DEFAULT_CACHING = ListCaching()


def _prompts(page_size: int | None, caching: ListCaching = DEFAULT_CACHING) -> Lister:
    return Lister("prompts", lambda _: PROMPTS, page_size=page_size, caching=caching, stamp=STAMP)


def test_a_lister_pages_any_published_list() -> None:
    lister = _prompts(2)
    seen: list[Any] = []
    cursor = None
    while True:
        page = orjson.loads(lister.page(SESSION_ERA, cursor))
        seen += page["prompts"]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert seen == PROMPTS
    assert "ttlMs" not in page  # no caching hints before 2026-07-28


def test_a_stateless_page_carries_the_caching_hints_and_the_stamp() -> None:
    page = orjson.loads(_prompts(None, ListCaching(0, "private")).page(STATELESS, None))
    assert page["prompts"] == PROMPTS and "nextCursor" not in page
    assert (page["ttlMs"], page["cacheScope"], page["resultType"]) == (0, "private", "complete")
    assert page["_meta"] == STAMP


@pytest.mark.parametrize(
    "cursor",
    [encode_cursor("tools", 1), encode_cursor("prompts", 9), encode_cursor("prompts", 0), "x", 7],
)
def test_a_cursor_of_another_list_or_page_is_refused(cursor: Any) -> None:
    with pytest.raises(RpcError, match="Invalid cursor"):
        _prompts(2).page(SESSION_ERA, cursor)


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"ttl_ms": -1}, "ttl_ms"),
        ({"ttl_ms": True}, "ttl_ms"),
        ({"cache_scope": "shared"}, "cache_scope"),
        ({"page_size": 0}, "page_size"),
    ],
)
def test_the_server_refuses_bad_list_options(options: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Server(tools=(), name="t", version="1", revisions=["2026-07-28"], **options)


def test_the_envelope_answers_for_any_route() -> None:
    calls: list[tuple[RequestId, str, dict[str, Any]]] = []

    def route(request_id: RequestId, method: str, params: dict[str, Any], _: Session) -> Reply:
        calls.append((request_id, method, params))
        if method == "missing":
            raise RpcError(METHOD_NOT_FOUND, "no")
        return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}})

    envelope = Envelope(route, SESSION_ERA)
    session = Session()
    assert envelope.receive(b'{"jsonrpc":"2.0","id":1,"method":"a"}', session) is not None
    missing = envelope.receive(b'{"jsonrpc":"2.0","id":2,"method":"missing"}', session)
    assert isinstance(missing, bytes) and orjson.loads(missing)["error"]["code"] == METHOD_NOT_FOUND
    assert envelope.receive(b'{"jsonrpc":"2.0","method":"notifications/x"}', session) is None
    broken = envelope.receive(b"{", session)
    assert isinstance(broken, bytes) and orjson.loads(broken)["error"]["code"] == -32700
    assert calls == [(1, "a", {}), (2, "missing", {})]


class RecordingCore:
    """A MessageCore that is no Server: it answers every request with the capabilities the
    endpoint put into the session."""

    def __init__(self) -> None:
        self.received: list[Any] = []

    def handle(self, message: Any, session: Session) -> Reply:
        self.received.append(message)  # decoded once, by the app
        body = {"capabilities": session.client_capabilities, "info": session.client_info}
        return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "result": body})


def test_an_endpoint_needs_only_the_message_core() -> None:
    core = RecordingCore()
    endpoint = StatelessEndpoint(core, [STATELESS], ["2026-07-28"], {})
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
    }
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}}
    body = orjson.dumps(message)
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
    sent: list[dict[str, Any]] = []

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    request = HttpRequest(headers, receive, Responder(send, newest(["2026-07-28"])), body, message)
    asyncio.run(endpoint.post(request))
    assert core.received == [message]
    assert sent[0]["status"] == 200
    reply = orjson.loads(sent[1]["body"])
    assert reply["result"] == {"capabilities": {"roots": {}}, "info": {"name": "c", "version": "1"}}
