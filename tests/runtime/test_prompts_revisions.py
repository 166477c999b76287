"""Prompts in every protocol revision: each prompts/list, prompts/get, completion/complete
and initialize message the server sends validates, exactly, against that revision's
schema.json; errors are -32602 naming what is wrong; content a revision lacks is refused."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcp_schemagen.runtime.asking.questions import form
from mcp_schemagen.runtime.content import audio, embedded_text, image, resource_link
from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.prompt_result import PromptResult, assistant, user
from mcp_schemagen.runtime.prompts.table import load_prompts
from mcp_schemagen.runtime.protocol import BY_NAME, NAMES
from mcp_schemagen.runtime.server import Server
from tests.support.spec_check import spec

STATELESS = "2026-07-28"
DEFINITION = {
    "name": "code_review",
    "title": "Code review",
    "description": "Review code.",
    "icons": [{"src": "https://example.com/r.png", "mimeType": "image/png"}],
    "_meta": {"example.com/kind": "review"},
    "arguments": [
        {"name": "code", "description": "The code.", "required": True},
        {
            "name": "language",
            "title": "Language",
            "x-mcp-codegen-schema": {"type": "string", "enum": ["python", "pascal", "go"]},
        },
    ],
}


def code_review(*, code: str, language: str | None = None) -> Any:
    return PromptResult(
        [
            user(f"Review this {language or 'code'}:\n{code}"),
            assistant(image(b"\x89PNG", "image/png")),
        ],
        description="A review",
    )


async def with_resource() -> Any:
    return [user(embedded_text("test://doc", "hello")), "and a plain string"]


def with_audio() -> Any:
    return [user(audio(b"RIFF", "audio/wav"))]


def with_link() -> Any:
    return [assistant(resource_link("test://doc", "doc"))]


async def asks() -> Any:
    answer = await get_context().elicit(
        "Which context?", form({"context": {"type": "string"}}, required=["context"]), key="ctx"
    )
    return f"context: {(answer.content or {}).get('context')}"


def broken() -> Any:
    raise RuntimeError("no luck")


def _server(revisions: tuple[str, ...]) -> Server:
    rows = {
        "code_review": {
            "definition": DEFINITION,
            "arguments": {"code": "code", "language": "language"},
        },
        "with_resource": {"definition": {"name": "with_resource"}, "arguments": {}},
        "with_audio": {"definition": {"name": "with_audio"}, "arguments": {}},
        "with_link": {"definition": {"name": "with_link"}, "arguments": {}},
        "broken": {"definition": {"name": "broken"}, "arguments": {}},
        "asks": {"definition": {"name": "asks"}, "arguments": {}},
    }
    handlers = {
        "code_review": code_review,
        "with_resource": with_resource,
        "with_audio": with_audio,
        "with_link": with_link,
        "broken": broken,
        "asks": asks,
    }
    prompts = load_prompts(rows, handlers, revisions)  # type: ignore[arg-type]
    return Server(tools=[], name="p", version="1", revisions=revisions, prompts=prompts)


class Client:
    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.check = spec(revision)
        self.server = _server(tuple(NAMES))
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
        assert init["protocolVersion"] == revision
        assert init["capabilities"]["prompts"] == {"listChanged": False}
        assert ("completions" in init["capabilities"]) == BY_NAME[revision].completions_capability
    else:
        found = client.result("server/discover", "DiscoverResult")
        assert found["capabilities"]["prompts"] == {"listChanged": False}
        assert found["capabilities"]["completions"] == {}
    return client


def test_list_is_each_revisions_shape(client: Client) -> None:
    listed = client.result("prompts/list", "ListPromptsResult")
    review = listed["prompts"][0]
    revision = BY_NAME[client.revision]
    assert review.keys() == {k for k in DEFINITION if k in revision.prompt_fields}
    for argument in review["arguments"]:
        assert "x-mcp-codegen-schema" not in argument  # typing is the server's, not published
        assert argument.keys() <= revision.prompt_argument_fields
    if client.revision == STATELESS:
        assert listed["ttlMs"] >= 0 and listed["cacheScope"] == "public"


def test_get_validates_and_shapes_messages(client: Client) -> None:
    got = client.result(
        "prompts/get",
        "GetPromptResult",
        {"name": "code_review", "arguments": {"code": "x = 1", "language": "go"}},
    )
    assert got["description"] == "A review"
    assert got["messages"][0] == {
        "role": "user",
        "content": {"type": "text", "text": "Review this go:\nx = 1"},
    }
    assert got["messages"][1]["content"]["type"] == "image"
    got = client.result("prompts/get", "GetPromptResult", {"name": "with_resource"})
    assert got["messages"][0]["content"]["resource"]["text"] == "hello"
    assert got["messages"][1]["content"]["text"] == "and a plain string"


def test_content_a_revision_lacks_is_refused(client: Client) -> None:
    revision = BY_NAME[client.revision]
    for name, kind in (("with_audio", "audio"), ("with_link", "resource_link")):
        if kind in revision.content:
            client.result("prompts/get", "GetPromptResult", {"name": name})
        else:
            failure = client.error("prompts/get", {"name": name})
            assert failure["code"] == -32603
            assert kind in failure["message"] and client.revision in failure["message"]


def test_errors_name_what_is_wrong(client: Client) -> None:
    unknown = client.error("prompts/get", {"name": "nope"})
    assert unknown["code"] == -32602 and "nope" in unknown["message"]
    missing = client.error("prompts/get", {"name": "code_review"})
    assert missing["code"] == -32602 and "'code'" in missing["message"]
    invalid = client.error(
        "prompts/get", {"name": "code_review", "arguments": {"code": "x", "language": "cobol"}}
    )
    assert invalid["code"] == -32602 and "'language'" in invalid["message"]
    extra = client.error(
        "prompts/get", {"name": "code_review", "arguments": {"code": "x", "lang": "go"}}
    )
    assert extra["code"] == -32602 and "'lang'" in extra["message"]
    failed = client.error("prompts/get", {"name": "broken"})
    assert failed["code"] == -32603 and "no luck" in failed["message"]


def test_enum_arguments_complete_by_prefix(client: Client) -> None:
    ref = {"type": "ref/prompt", "name": "code_review"}
    done = client.result(
        "completion/complete",
        "CompleteResult",
        {"ref": ref, "argument": {"name": "language", "value": "p"}},
    )
    assert done["completion"] == {"values": ["python", "pascal"], "total": 2, "hasMore": False}
    free = client.result(
        "completion/complete",
        "CompleteResult",
        {"ref": ref, "argument": {"name": "code", "value": ""}},
    )
    assert free["completion"]["values"] == []
    assert (
        client.error(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}},
        )["code"]
        == -32602
    )


def test_a_server_without_prompts_declares_none() -> None:
    server = Server(tools=[], name="p", version="1", revisions=NAMES)
    session = server.session()
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    raw = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    reply = json.loads(asyncio.run(server.handle_message(raw, session)) or b"")
    assert "prompts" not in reply["result"]["capabilities"]
    raw = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})
    assert (
        json.loads(asyncio.run(server.handle_message(raw, session)) or b"")["error"]["code"]
        == -32601
    )


def test_a_prompt_handler_asks_the_client_in_2026_07_28() -> None:
    client = Client(STATELESS)
    client.capabilities = {"elicitation": {"form": {}}}
    first = client.send("prompts/get", {"name": "asks"})["result"]
    client.check.assert_exact(first, "InputRequiredResult")
    assert first["inputRequests"]["ctx"]["method"] == "elicitation/create"
    answer = {"action": "accept", "content": {"context": "tests"}}
    retry = {
        "name": "asks",
        "inputResponses": {"ctx": answer},
        "requestState": first["requestState"],
    }
    done = client.result("prompts/get", "GetPromptResult", retry)
    assert done["messages"][0]["content"]["text"] == "context: tests"


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_a_prompt_handler_asks_the_client_in_a_session(revision: str) -> None:
    """The session revisions: the server sends elicitation/create on the session and the
    client's answer reaches the waiting prompt handler, as for a tool handler."""
    server = _server(tuple(NAMES))
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
        get = {"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": "asks"}}
        pending = asyncio.ensure_future(send(get))
        for _ in range(400):
            if sent:
                break
            await asyncio.sleep(0.005)
        (request,) = sent
        check.assert_exact(request, "JSONRPCRequest")
        assert request["method"] == "elicitation/create"
        answer = {"action": "accept", "content": {"context": "session"}}
        assert await send({"jsonrpc": "2.0", "id": request["id"], "result": answer}) is None
        reply: dict[str, Any] = await asyncio.wait_for(pending, 10)
        return reply

    reply = asyncio.run(exchange())
    check.assert_exact(reply["result"], "GetPromptResult")
    assert reply["result"]["messages"][0]["content"]["text"] == "context: session"
