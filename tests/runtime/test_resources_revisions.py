"""Resources in every protocol revision: each resources/list, resources/templates/list,
resources/read, completion/complete and initialize message the server sends validates,
exactly, against that revision's schema.json; a URI the server does not have is each
revision's not-found error; readers may ask the client as tool handlers do."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcp_schemagen.runtime.asking.questions import form
from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.protocol import BY_NAME, NAMES
from mcp_schemagen.runtime.protocol.resources import (
    RESOURCE_FIELDS,
    TEMPLATE_FIELDS,
    publish_resource,
)
from mcp_schemagen.runtime.resources.result import ResourceResult
from mcp_schemagen.runtime.resources.table import load_resources
from mcp_schemagen.runtime.server import Server
from tests.support.spec_check import spec

STATELESS = "2026-07-28"
ICONS = [{"src": "https://example.com/r.png", "mimeType": "image/png"}]
TEXT = {
    "uri": "app://readme",
    "name": "readme",
    "title": "Read me",
    "description": "The project's README.",
    "mimeType": "text/markdown",
    "size": 7,
    "annotations": {"audience": ["user"], "priority": 0.5, "lastModified": "2025-01-01T00:00:00Z"},
    "icons": ICONS,
    "_meta": {"example.com/kind": "doc"},
    "x-mcp-codegen-file": "README.md",
}
LOGS = {
    "uriTemplate": "app://logs/{day}{?level}",
    "name": "logs",
    "title": "Logs",
    "mimeType": "text/plain",
    "icons": ICONS,
    "x-mcp-codegen-schema": {
        "day": {"pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
        "level": {"enum": ["info", "error", "warning"]},
    },
}


def read_logs(*, day: str, level: str | None = None) -> Any:
    return f"{day}: {level or 'all'}"


def read_status() -> Any:
    return ResourceResult([b"\x00\x01", {"uri": "app://status/x", "text": "x"}], ttl_ms=5000)


async def read_asks(*, who: str) -> Any:
    answer = await get_context().elicit(
        "Whose?", form({"name": {"type": "string"}}, required=["name"]), key="whose"
    )
    return f"{who}: {(answer.content or {}).get('name')}"


def read_broken() -> Any:
    raise RuntimeError("disk on fire")


def _server(revisions: tuple[str, ...] = tuple(NAMES)) -> Server:
    rows = [
        {
            "definition": TEXT,
            "variables": {},
            "contents": [{"uri": "app://readme", "mimeType": "text/markdown", "text": "# Hello"}],
        },
        {"definition": {"uri": "app://status", "name": "status"}, "variables": {}},
        {"definition": {"uri": "app://broken", "name": "broken"}, "variables": {}},
        {"definition": LOGS, "variables": {"day": "day", "level": "level"}},
        {
            "definition": {"uriTemplate": "app://asks/{who}", "name": "asks"},
            "variables": {"who": "who"},
        },
    ]
    readers = {
        "app://status": read_status,
        "app://broken": read_broken,
        "app://logs/{day}{?level}": read_logs,
        "app://asks/{who}": read_asks,
    }
    resources = load_resources(rows, readers, revisions)  # type: ignore[arg-type]
    return Server(tools=[], name="r", version="1", revisions=revisions, resources=resources)


class Client:
    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.check = spec(revision)
        self.server = _server()
        self.session = self.server.session()
        self.next_id = 0
        self.capabilities: dict[str, Any] = {}

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        params = dict(params or {})
        if self.revision == STATELESS:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            }
        raw = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = asyncio.run(self.server.handle_message(raw, self.session))
        assert reply is not None
        message: dict[str, Any] = json.loads(reply)
        return message

    def result(
        self, method: str, definition: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        message = self.send(method, params)
        assert "result" in message, message
        self.check.assert_exact(message["result"], definition)
        return message["result"]  # type: ignore[no-any-return]

    def error(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        message = self.send(method, params)
        assert "error" in message, message
        envelope = (
            "JSONRPCErrorResponse" if self.check.has("JSONRPCErrorResponse") else "JSONRPCError"
        )
        self.check.assert_exact(message, envelope)
        return message["error"]  # type: ignore[no-any-return]


@pytest.fixture(params=NAMES)
def client(request: pytest.FixtureRequest) -> Client:
    revision = request.param
    client = Client(revision)
    if revision != STATELESS:
        init = client.result(
            "initialize",
            "InitializeResult",
            {
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        capabilities = init["capabilities"]
    else:
        capabilities = client.result("server/discover", "DiscoverResult")["capabilities"]
    assert capabilities["resources"] == {}  # no subscribe, no listChanged
    assert "prompts" not in capabilities
    assert ("completions" in capabilities) == BY_NAME[revision].completions_capability
    return client


@pytest.mark.parametrize("revision", NAMES)
def test_field_sets_are_each_revisions_schema(revision: str) -> None:
    check = spec(revision)
    for definition, fields in (
        ("Resource", RESOURCE_FIELDS),
        ("ResourceTemplate", TEMPLATE_FIELDS),
    ):
        assert set(check.definitions[definition]["properties"]) == fields[revision]


def test_lists_are_each_revisions_shape(client: Client) -> None:
    listed = client.result("resources/list", "ListResourcesResult")
    revision = BY_NAME[client.revision]
    readme = listed["resources"][0]
    assert readme == publish_resource(TEXT, revision)[0]
    assert "x-mcp-codegen-file" not in readme
    assert [r["uri"] for r in listed["resources"]] == [
        "app://readme",
        "app://status",
        "app://broken",
    ]
    templates = client.result("resources/templates/list", "ListResourceTemplatesResult")
    logs = templates["resourceTemplates"][0]
    assert logs == publish_resource(LOGS, revision)[0]
    assert "x-mcp-codegen-schema" not in logs
    if client.revision == STATELESS:
        for page in (listed, templates):
            assert page["ttlMs"] == 300_000 and page["cacheScope"] == "public"


def test_read_a_file_a_reader_and_a_template(client: Client) -> None:
    read = client.result("resources/read", "ReadResourceResult", {"uri": "app://readme"})
    assert read["contents"] == [
        {"uri": "app://readme", "mimeType": "text/markdown", "text": "# Hello"}
    ]
    status = client.result("resources/read", "ReadResourceResult", {"uri": "app://status"})
    assert status["contents"] == [
        {"uri": "app://status", "blob": "AAE="},
        {"uri": "app://status/x", "text": "x"},
    ]
    uri = "app://logs/2025-01-02?level=error"
    logs = client.result("resources/read", "ReadResourceResult", {"uri": uri})
    assert logs["contents"] == [{"uri": uri, "mimeType": "text/plain", "text": "2025-01-02: error"}]
    if client.revision == STATELESS:  # a file is as fixed as the lists; a reader's is not
        assert (read["ttlMs"], read["cacheScope"]) == (300_000, "public")
        assert (status["ttlMs"], status["cacheScope"]) == (5000, "private")
        assert (logs["ttlMs"], logs["cacheScope"]) == (0, "private")


def test_errors_name_what_is_wrong(client: Client) -> None:
    missing = client.error("resources/read", {"uri": "app://nope"})
    assert missing["code"] == (-32602 if client.revision == STATELESS else -32002)
    assert missing["data"] == {"uri": "app://nope"}
    invalid = client.error("resources/read", {"uri": "app://logs/yesterday"})
    assert invalid["code"] == -32602 and "'day'" in invalid["message"]
    assert invalid["data"] == {"argument": "day"}
    bad_level = client.error("resources/read", {"uri": "app://logs/2025-01-02?level=loud"})
    assert bad_level["code"] == -32602 and "'level'" in bad_level["message"]
    unknown_query = client.error("resources/read", {"uri": "app://logs/2025-01-02?x=1"})
    assert unknown_query["code"] == missing["code"]  # not an expansion of the template
    failed = client.error("resources/read", {"uri": "app://broken"})
    assert failed["code"] == -32603 and "disk on fire" in failed["message"]
    assert client.error("resources/read", {})["code"] == -32602


def test_template_variables_complete_by_prefix(client: Client) -> None:
    ref = {"type": "ref/resource", "uri": "app://logs/{day}{?level}"}
    done = client.result(
        "completion/complete",
        "CompleteResult",
        {"ref": ref, "argument": {"name": "level", "value": "e"}},
    )
    assert done["completion"] == {"values": ["error"], "total": 1, "hasMore": False}
    free = client.result(
        "completion/complete",
        "CompleteResult",
        {"ref": ref, "argument": {"name": "day", "value": ""}},
    )
    assert free["completion"]["values"] == []
    wrong = {"type": "ref/resource", "uri": "app://readme"}
    failure = client.error("completion/complete", {"ref": wrong, "argument": {"name": "a"}})
    assert failure["code"] == -32602
    unknown = client.error("completion/complete", {"ref": ref, "argument": {"name": "nope"}})
    assert unknown["code"] == -32602 and "'nope'" in unknown["message"]


def test_a_server_without_resources_declares_none() -> None:
    server = Server(tools=[], name="p", version="1", revisions=NAMES)
    session = server.session()
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    reply = json.loads(asyncio.run(server.handle_message(raw, session)) or b"")
    assert "resources" not in reply["result"]["capabilities"]
    assert "completions" not in reply["result"]["capabilities"]
    for method in ("resources/list", "resources/read", "completion/complete"):
        raw = json.dumps({"jsonrpc": "2.0", "id": 2, "method": method, "params": {}})
        answer = json.loads(asyncio.run(server.handle_message(raw, session)) or b"")
        assert answer["error"]["code"] == -32601


def test_a_reader_asks_the_client_in_2026_07_28() -> None:
    client = Client(STATELESS)
    client.capabilities = {"elicitation": {"form": {}}}
    first = client.send("resources/read", {"uri": "app://asks/ann"})["result"]
    client.check.assert_exact(first, "InputRequiredResult")
    assert first["inputRequests"]["whose"]["method"] == "elicitation/create"
    answer = {"action": "accept", "content": {"name": "Ann"}}
    retry = {
        "uri": "app://asks/ann",
        "inputResponses": {"whose": answer},
        "requestState": first["requestState"],
    }
    done = client.result("resources/read", "ReadResourceResult", retry)
    assert done["contents"][0]["text"] == "ann: Ann"
    # The state is bound to the URI read: replayed on another URI it is refused.
    other = {**retry, "uri": "app://asks/bob"}
    assert client.error("resources/read", other)["code"] == -32602


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_a_reader_asks_the_client_in_a_session(revision: str) -> None:
    server = _server()
    sent: list[dict[str, Any]] = []
    session = server.session(lambda data: sent.append(json.loads(data)))
    check = spec(revision)

    async def exchange() -> dict[str, Any]:
        async def send(message: dict[str, Any]) -> Any:
            reply = server.receive(json.dumps(message), session)
            if reply is not None and not isinstance(reply, bytes):
                reply = await reply
            return None if reply is None else json.loads(reply)

        init = {
            "protocolVersion": revision,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"},
        }
        await send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        read = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "resources/read",
            "params": {"uri": "app://asks/x"},
        }
        pending = asyncio.ensure_future(send(read))
        for _ in range(400):
            if sent:
                break
            await asyncio.sleep(0.005)
        (request,) = sent
        check.assert_exact(request, "JSONRPCRequest")
        assert request["method"] == "elicitation/create"
        answer = {"action": "accept", "content": {"name": "Xi"}}
        assert await send({"jsonrpc": "2.0", "id": request["id"], "result": answer}) is None
        reply: dict[str, Any] = await asyncio.wait_for(pending, 10)
        return reply

    reply = asyncio.run(exchange())
    check.assert_exact(reply["result"], "ReadResourceResult")
    assert reply["result"]["contents"][0]["text"] == "x: Xi"


def test_a_sync_reader_runs_off_the_event_loop_and_can_be_cancelled_as_a_task() -> None:
    """The lifecycle tools use: a plain ``def`` reader runs in a worker thread (so a slow
    one does not stall the loop), and its reply is a task the session tracks."""
    import threading

    seen: list[str] = []

    def read_thread() -> Any:
        seen.append(threading.current_thread().name)
        return "ok"

    rows = [{"definition": {"uri": "app://thread", "name": "thread"}, "variables": {}}]
    resources = load_resources(rows, {"app://thread": read_thread}, NAMES)  # type: ignore[arg-type]
    server = Server(tools=[], name="r", version="1", revisions=NAMES, resources=resources)

    async def read() -> dict[str, Any]:
        session = server.session()
        meta = {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        raw = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "resources/read",
                "params": {"uri": "app://thread", "_meta": meta},
            }
        )
        reply = server.receive(raw, session)
        assert isinstance(reply, asyncio.Task)  # running in a worker: a tracked task
        return json.loads(await reply)  # type: ignore[no-any-return]

    answer = asyncio.run(read())
    assert answer["result"]["contents"] == [{"uri": "app://thread", "text": "ok"}]
    assert seen and seen[0] != threading.main_thread().name
