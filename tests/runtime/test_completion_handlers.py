"""Completion handlers (x-mcp-codegen-complete) in every protocol revision: the handler's
values answer completion/complete (sync or async, given the typed text and the client's
context.arguments), capped at 100 with total and hasMore; a failing or ill-returning
handler is a -32603 error and the server goes on; without a handler the enum completes
by prefix. Each answer validates exactly against the revision's CompleteResult."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from mcp_schemagen.runtime.core.completion import completer_key
from mcp_schemagen.runtime.prompts.table import load_prompts
from mcp_schemagen.runtime.protocol import NAMES
from mcp_schemagen.runtime.resources.table import load_resources
from mcp_schemagen.runtime.server import Server
from tests.support.spec_check import spec

STATELESS = "2026-07-28"
TEMPLATE = "app://cities/{country}/{city}"
CITIES = ["Oslo", "Bergen", "Berlin", "Bern"]
PROMPT = {
    "name": "trip",
    "arguments": [
        {"name": "country", "x-mcp-codegen-schema": {"enum": ["no", "de", "ch"]}},
        {"name": "city", "x-mcp-codegen-complete": True},
        {"name": "many", "x-mcp-codegen-complete": True},
        {"name": "broken", "x-mcp-codegen-complete": True},
        {"name": "wrong", "x-mcp-codegen-complete": True},
    ],
}
seen: list[tuple[str, dict[str, str]]] = []


def complete_city(*, value: str, arguments: Mapping[str, str]) -> Sequence[str]:
    seen.append((value, dict(arguments)))
    return [c for c in CITIES if c.startswith(value)]


async def complete_many(*, value: str, arguments: Mapping[str, str]) -> Sequence[str]:
    await asyncio.sleep(0)
    return tuple(f"{value}{n}" for n in range(150))


def complete_broken(*, value: str, arguments: Mapping[str, str]) -> Sequence[str]:
    raise RuntimeError("the city index is down")


def complete_wrong(*, value: str, arguments: Mapping[str, str]) -> Any:
    return "Oslo"  # a string, not a list of them


async def read_city(*, country: str, city: str) -> str:
    return city


def _server() -> Server:
    rows = {
        "trip": {
            "definition": PROMPT,
            "arguments": {a["name"]: a["name"] for a in PROMPT["arguments"]},
        }
    }  # type: ignore[index]
    completers = {
        completer_key("prompt", "trip", "city"): complete_city,
        completer_key("prompt", "trip", "many"): complete_many,
        completer_key("prompt", "trip", "broken"): complete_broken,
        completer_key("prompt", "trip", "wrong"): complete_wrong,
    }
    prompts = load_prompts(rows, {"trip": lambda **_: "go"}, NAMES, completers)  # type: ignore[arg-type]
    template = {"uriTemplate": TEMPLATE, "name": "city"}
    resource_rows = [{"definition": template, "variables": {"country": "country", "city": "city"}}]
    resources = load_resources(
        resource_rows,  # type: ignore[arg-type]
        {TEMPLATE: read_city},
        NAMES,
        {completer_key("resource", TEMPLATE, "city"): complete_city},
    )
    return Server(
        tools=[], name="c", version="1", revisions=NAMES, prompts=prompts, resources=resources
    )


class Client:
    def __init__(self, revision: str) -> None:
        self.revision = revision
        self.check = spec(revision)
        self.server = _server()
        self.session = self.server.session()
        self.next_id = 0

    def send(self, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        if self.revision == STATELESS:
            params = dict(params)
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        raw = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": self.next_id,
                "method": "completion/complete",
                "params": params,
            }
        )
        reply = asyncio.run(self.server.handle_message(raw, self.session))
        assert reply is not None
        message: dict[str, Any] = json.loads(reply)
        return message

    def complete(self, ref: dict[str, Any], name: str, value: str, **context: str) -> Any:
        params: dict[str, Any] = {"ref": ref, "argument": {"name": name, "value": value}}
        if context:
            params["context"] = {"arguments": context}
        message = self.send(params)
        assert "result" in message, message
        self.check.assert_exact(message["result"], "CompleteResult")
        return message["result"]["completion"]

    def error(self, ref: dict[str, Any], name: str) -> dict[str, Any]:
        message = self.send({"ref": ref, "argument": {"name": name, "value": "x"}})
        assert "error" in message, message
        return message["error"]  # type: ignore[no-any-return]


PROMPT_REF = {"type": "ref/prompt", "name": "trip"}
TEMPLATE_REF = {"type": "ref/resource", "uri": TEMPLATE}


@pytest.fixture(params=NAMES)
def client(request: pytest.FixtureRequest) -> Client:
    client = Client(request.param)
    if request.param != STATELESS:
        init = {
            "protocolVersion": request.param,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        raw = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        asyncio.run(client.server.handle_message(raw, client.session))
    return client


def test_a_sync_handler_completes_with_the_context_arguments(client: Client) -> None:
    seen.clear()
    done = client.complete(PROMPT_REF, "city", "Ber", country="de")
    assert done == {"values": ["Bergen", "Berlin", "Bern"], "total": 3, "hasMore": False}
    assert seen == [("Ber", {"country": "de"})]
    done = client.complete(TEMPLATE_REF, "city", "O", country="no")
    assert done == {"values": ["Oslo"], "total": 1, "hasMore": False}
    assert seen[-1] == ("O", {"country": "no"})


def test_an_async_handler_is_capped_at_100(client: Client) -> None:
    done = client.complete(PROMPT_REF, "many", "v")
    assert done["values"] == [f"v{n}" for n in range(100)]
    assert (done["total"], done["hasMore"]) == (150, True)


def test_without_a_handler_the_enum_completes_by_prefix(client: Client) -> None:
    assert client.complete(PROMPT_REF, "country", "c")["values"] == ["ch"]


def test_a_failing_or_ill_returning_handler_is_an_internal_error(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    failed = client.error(PROMPT_REF, "broken")
    assert failed["code"] == -32603
    assert "the city index is down" in failed["message"]
    assert "'broken'" in failed["message"]
    assert "RuntimeError" in capsys.readouterr().err  # logged with its traceback
    wrong = client.error(PROMPT_REF, "wrong")
    assert wrong["code"] == -32603 and "not a list of strings" in wrong["message"]
    # the server goes on answering
    assert client.complete(PROMPT_REF, "city", "Os")["values"] == ["Oslo"]


def test_bad_context_arguments_are_invalid_params(client: Client) -> None:
    message = client.send(
        {
            "ref": PROMPT_REF,
            "argument": {"name": "city", "value": ""},
            "context": {"arguments": {"country": 7}},
        }
    )
    assert message["error"]["code"] == -32602
    assert "context.arguments" in message["error"]["message"]
