"""Handlers that ask the client (elicitation, sampling, roots), in process, in every
revision: session revisions send a JSON-RPC request and route the client's response back;
2026-07-28 ends the round with an input_required result and takes the retry's answers."""

from __future__ import annotations

import asyncio
import base64
import functools
import itertools
import os
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import pytest

from mcp_schemagen.runtime import main as entry
from mcp_schemagen.runtime.asking.questions import (
    ClientCapabilityMissing,
    Elicit,
    ListRoots,
    Sample,
    form,
)
from mcp_schemagen.runtime.asking.request_state import (
    KEY_VARIABLE,
    MemoryStateStore,
    RequestStateSeal,
)
from mcp_schemagen.runtime.context import get_context
from mcp_schemagen.runtime.protocol import BY_NAME, NAMES
from mcp_schemagen.runtime.registry import ToolEntry
from mcp_schemagen.runtime.server import Server

STATELESS = "2026-07-28"
SESSION_REVISIONS = [r for r in NAMES if r != STATELESS]
ELICITING = [r for r in SESSION_REVISIONS if "elicitation/create" in BY_NAME[r].client_requests]
ALL_CAPABILITIES = {"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}}
CONFIRM_FORM = form(
    {"ok": {"type": "boolean", "title": "Delete it?", "default": False}}, required=["ok"]
)


def run(test: Callable[..., Awaitable[None]]) -> Callable[..., None]:
    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(asyncio.wait_for(test(*args, **kwargs), 20))

    return wrapper


# ------------------------------------------------------------------ handlers under test


async def delete_file(*, path: str = "notes.txt") -> str:
    """Work before the question runs on every 2026-07-28 round; the deletion after it once."""
    answer = await get_context().elicit(f"Delete {path}?", CONFIRM_FORM, key="confirm")
    if not answer.accepted or not (answer.content or {}).get("ok"):
        return f"kept {path} ({answer.action})"
    return f"deleted {path}"


async def summarize(*, text: str = "a long text") -> str:
    answer = await get_context().sample([f"Summarize: {text}"], max_tokens=50, key="summary")
    return f"{answer.model}: {answer.text}"


async def roots() -> str:
    return ", ".join(r["uri"] for r in await get_context().list_roots())


async def interview() -> str:
    """Two rounds: a name, then (several questions at once) a colour and the roots."""
    ctx = get_context()
    name = await ctx.elicit("Name?", form({"name": {"type": "string"}}, required=["name"]))
    assert name.content is not None
    more = await ctx.ask(
        {
            "colour": Elicit("Colour?", form({"colour": {"type": "string"}})),
            "roots": ListRoots(),
        }
    )
    colour = more["colour"].content or {}
    return f"{name.content['name']} likes {colour.get('colour')}; roots {len(more['roots'])}"


async def careful() -> str:
    """A handler that turns a missing capability into its own answer."""
    ctx = get_context()
    if not ctx.client_supports(Sample(["hi"], max_tokens=5)):
        return "no sampling here"
    try:
        return (await ctx.sample(["hi"], max_tokens=5)).text
    except ClientCapabilityMissing as missing:
        return f"missing {missing.required}"


async def enums() -> str:
    schema = form(
        {
            "untitled": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "titled": {"type": "string", "oneOf": [{"const": "v1", "title": "First"}]},
            "legacy": {"type": "string", "enum": ["x"], "enumNames": ["Ex"]},
        }
    )
    answer = await get_context().elicit("Pick", schema)
    return str(answer.content)


async def multi() -> str:
    schema = form({"many": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}})
    return str((await get_context().elicit("Pick several", schema)).content)


async def open_url() -> str:
    answer = await get_context().elicit("Sign in", url="https://example.com/login")
    return answer.action


async def slow_question(*, timeout: float = 30) -> str:
    return (await get_context().elicit("?", CONFIRM_FORM, timeout=timeout)).action


async def gathered() -> str:
    """Three questions at once, the plain asyncio way: one round in every revision."""
    ctx = get_context()
    name, summary, listed = await asyncio.gather(
        ctx.elicit("Name?", form({"name": {"type": "string"}}, required=["name"])),
        ctx.sample(["hi"], max_tokens=5),
        ctx.list_roots(),
    )
    assert name.content is not None
    return f"{name.content['name']}; {summary.text}; roots {len(listed)}"


TOOLS = [
    delete_file,
    summarize,
    roots,
    interview,
    careful,
    enums,
    multi,
    open_url,
    slow_question,
    gathered,
]


def server(**options: Any) -> Server:
    entries = [
        ToolEntry(
            name=handler.__name__,
            published={
                r: {"name": handler.__name__, "inputSchema": {"type": "object"}} for r in NAMES
            },
            input_schema={"type": "object"},
            output_schema=None,
            handler=handler,
            arguments={"path": "path", "text": "text", "timeout": "timeout"},
            defaults={},
        )
        for handler in TOOLS
    ]
    return Server(tools=entries, name="t", version="1", revisions=NAMES, **options)


class Client:
    """A client in process; it answers the server's requests with ``answer``."""

    def __init__(self, srv: Server, revision: str, capabilities: dict[str, Any]) -> None:
        self.server = srv
        self.revision = revision
        self.capabilities = capabilities
        self.outbox: list[dict[str, Any]] = []  # what the server sent (requests, notifications)
        self.session = srv.session(lambda data: self.outbox.append(orjson.loads(data)))
        self.ids = itertools.count(1)

    async def open(self) -> Client:
        if self.revision != STATELESS:
            params = {"protocolVersion": self.revision, "capabilities": self.capabilities}
            await self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        return self

    async def send(self, message: dict[str, Any]) -> Any:
        reply = self.server.receive(orjson.dumps(message), self.session)
        if reply is not None and not isinstance(reply, bytes):
            reply = await reply
        return None if reply is None else orjson.loads(reply)

    def call_message(self, name: str, **params: Any) -> dict[str, Any]:
        params = {"name": name, "arguments": params.pop("arguments", {}), **params}
        if self.revision == STATELESS:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS,
                "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            }
        return {"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call", "params": params}

    async def call(self, name: str, **params: Any) -> Any:
        return await self.send(self.call_message(name, **params))

    async def requests(self, count: int) -> list[dict[str, Any]]:
        """Wait until the server has sent ``count`` requests; return them."""
        for _ in range(200):
            found = [m for m in self.outbox if "id" in m and "method" in m]
            if len(found) >= count:
                return found
            await asyncio.sleep(0.005)
        raise AssertionError(f"the server sent {self.outbox}")

    async def call_answering(self, name: str, *answers: Any, **params: Any) -> Any:
        """A session-revision call whose server requests get ``answers`` in order."""
        before = len([m for m in self.outbox if "id" in m and "method" in m])
        call = asyncio.ensure_future(self.call(name, **params))
        for index, answer in enumerate(answers, start=before):
            request = (await self.requests(index + 1))[index]
            response = {"jsonrpc": "2.0", "id": request["id"], **answer}
            assert await self.send(response) is None
        return await call


def text(reply: dict[str, Any]) -> str:
    result = reply["result"]
    if "toolResult" in result:  # 2024-10-07: the value itself, an error as {"error": ...}
        value = result["toolResult"]
        return str(value["error"] if isinstance(value, dict) and "error" in value else value)
    return "".join(b["text"] for b in result["content"] if b["type"] == "text")


def failed(reply: dict[str, Any]) -> bool:
    result = reply["result"]
    if "toolResult" in result:
        return isinstance(result["toolResult"], dict) and "error" in result["toolResult"]
    return bool(result.get("isError"))


def accept(**content: Any) -> dict[str, Any]:
    return {"result": {"action": "accept", "content": content}}


# ------------------------------------------------------------------ session revisions


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
@run
async def test_elicitation_request_and_response_are_routed(revision: str) -> None:
    client = await Client(server(), revision, ALL_CAPABILITIES).open()
    reply = await client.call_answering("delete_file", accept(ok=True), arguments={"path": "a"})
    assert text(reply) == "deleted a"
    (request,) = await client.requests(1)
    assert request["method"] == "elicitation/create"
    assert request["params"]["message"] == "Delete a?"
    schema = request["params"]["requestedSchema"]
    assert schema["required"] == ["ok"]
    # 2025-06-18 defines no defaults in forms; 2025-11-25 does (SEP-1034)
    assert ("default" in schema["properties"]["ok"]) == (revision == "2025-11-25")
    declined = await client.call_answering("delete_file", {"result": {"action": "decline"}})
    assert text(declined) == "kept notes.txt (decline)"


@run
async def test_enum_forms_by_revision() -> None:
    modern = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    await modern.call_answering("enums", accept(untitled="a"))
    fields = (await modern.requests(1))[0]["params"]["requestedSchema"]["properties"]
    assert fields["titled"]["oneOf"] == [{"const": "v1", "title": "First"}]
    assert fields["legacy"]["enumNames"] == ["Ex"] and fields["untitled"]["default"] == "a"
    older = await Client(server(), "2025-06-18", ALL_CAPABILITIES).open()
    await older.call_answering("enums", accept(untitled="a"))
    fields = (await older.requests(1))[0]["params"]["requestedSchema"]["properties"]
    assert fields["titled"] == {"type": "string", "enum": ["v1"], "enumNames": ["First"]}
    assert "default" not in fields["untitled"]
    refused = await older.call("multi")
    assert refused["result"]["isError"] and "no multi-select" in text(refused)


@pytest.mark.parametrize("revision", SESSION_REVISIONS)
@run
async def test_sampling_and_roots_in_every_session_revision(revision: str) -> None:
    client = await Client(server(), revision, ALL_CAPABILITIES).open()
    sampled = {"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m"}
    reply = await client.call_answering("summarize", {"result": sampled})
    assert text(reply) == "m: short"
    request = (await client.requests(1))[0]
    assert request["method"] == "sampling/createMessage"
    assert request["params"] == {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Summarize: a long text"}}
        ],
        "maxTokens": 50,
    }
    listed = {"roots": [{"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}]}
    assert text(await client.call_answering("roots", {"result": listed})) == "file:///a, file:///b"


@pytest.mark.parametrize("revision", [r for r in SESSION_REVISIONS if r not in ELICITING])
@run
async def test_a_revision_without_elicitation_sends_none(revision: str) -> None:
    client = await Client(server(), revision, ALL_CAPABILITIES).open()
    reply = await client.call("delete_file")
    assert failed(reply) and "has no elicitation/create request" in text(reply)
    assert client.outbox == []


@run
async def test_missing_capability_in_a_session_is_a_tool_error() -> None:
    client = await Client(server(), "2025-11-25", {"sampling": {}}).open()
    reply = await client.call("delete_file")
    assert reply["result"]["isError"]
    assert (
        text(reply) == "The client does not support elicitation: it did not declare the capability"
    )
    url = await client.call("open_url")
    assert "URL mode elicitation" in text(url)
    assert client.outbox == []  # nothing was sent to a client that cannot answer
    bare = await Client(server(), "2025-11-25", {}).open()
    assert text(await bare.call("careful")) == "no sampling here"


@run
async def test_url_mode() -> None:
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    reply = await client.call_answering("open_url", {"result": {"action": "accept"}})
    assert text(reply) == "accept"
    params = (await client.requests(1))[0]["params"]
    assert params["mode"] == "url" and params["url"] == "https://example.com/login"
    assert "elicitationId" in params  # 2025-11-25 requires it


@run
async def test_client_errors_timeouts_and_cancellation() -> None:
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    refused = {"error": {"code": -1, "message": "User rejected sampling"}}
    reply = await client.call_answering("summarize", refused)
    assert reply["result"]["isError"]
    assert text(reply) == "The client refused the request: User rejected sampling"

    malformed = await client.call_answering("summarize", {"result": {"role": "assistant"}})
    assert "lacks its role, content or model" in text(malformed)
    mismatched = await client.call_answering("delete_file", accept(ok="yes"))
    assert text(mismatched) == (
        "the accepted form does not match what was asked: field 'ok': \"yes\" is not of type"
        ' "boolean" (type)'
    )
    incomplete = await client.call_answering("delete_file", accept())
    assert text(incomplete).endswith(': "ok" is a required property (required)')

    timed_out = await client.call("slow_question", arguments={"timeout": 0.05})
    assert timed_out["result"]["isError"] and "did not answer" in text(timed_out)
    asked = [m for m in client.outbox if m.get("method") == "elicitation/create"][-1]
    cancelled = client.outbox[-1]
    assert cancelled["method"] == "notifications/cancelled"
    assert cancelled["params"]["requestId"] == asked["id"]

    # The call being cancelled cancels the request it waits for.
    client.outbox.clear()
    message = client.call_message("slow_question")
    call = asyncio.ensure_future(client.send(message))
    (asked,) = await client.requests(1)
    cancel = {"requestId": message["id"], "reason": "user"}
    await client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
    with pytest.raises(asyncio.CancelledError):
        await call
    assert client.outbox[-1]["method"] == "notifications/cancelled"
    assert client.outbox[-1]["params"]["requestId"] == asked["id"]
    # A late answer to it, or an answer to nothing, is dropped quietly.
    assert await client.send({"jsonrpc": "2.0", "id": asked["id"], **accept(ok=True)}) is None


@run
async def test_several_questions_at_once_in_a_session() -> None:
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    call = asyncio.ensure_future(client.call("interview"))
    (first,) = await client.requests(1)
    await client.send({"jsonrpc": "2.0", "id": first["id"], **accept(name="Ada")})
    both = (await client.requests(3))[1:]
    assert {r["method"] for r in both} == {"elicitation/create", "roots/list"}
    for request in reversed(both):  # answered out of order
        answer = (
            accept(colour="red") if request["method"] != "roots/list" else {"result": {"roots": []}}
        )
        await client.send({"jsonrpc": "2.0", "id": request["id"], **answer})
    assert text(await call) == "Ada likes red; roots 0"


# ------------------------------------------------------------------ 2026-07-28


@run
async def test_input_required_round_trip() -> None:
    client = await Client(server(), STATELESS, ALL_CAPABILITIES).open()
    first = (await client.call("delete_file", arguments={"path": "a"}))["result"]
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["confirm"]  # the author's key
    assert first["inputRequests"]["confirm"]["method"] == "elicitation/create"
    assert first["inputRequests"]["confirm"]["params"]["requestedSchema"] == CONFIRM_FORM
    assert isinstance(first["requestState"], str)
    assert first["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "t"
    assert client.outbox == []  # no server-to-client requests in this revision
    done = await client.call(
        "delete_file",
        arguments={"path": "a"},
        inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}, "extra": 1},
        requestState=first["requestState"],
    )
    assert done["result"]["resultType"] == "complete" and text(done) == "deleted a"


@run
async def test_multi_round_with_several_requests_in_a_round() -> None:
    client = await Client(server(), STATELESS, ALL_CAPABILITIES).open()
    one = (await client.call("interview"))["result"]
    assert list(one["inputRequests"]) == ["elicit-1"]
    two = (
        await client.call(
            "interview",
            inputResponses={"elicit-1": {"action": "accept", "content": {"name": "Ada"}}},
            requestState=one["requestState"],
        )
    )["result"]
    assert two["resultType"] == "input_required" and two["requestState"] != one["requestState"]
    assert sorted(two["inputRequests"]) == ["colour", "roots"]
    # the second round's retry carries only its own answers: the name comes from the state
    three = await client.call(
        "interview",
        inputResponses={
            "colour": {"action": "accept", "content": {"colour": "blue"}},
            "roots": {"roots": [{"uri": "file:///x"}]},
        },
        requestState=two["requestState"],
    )
    assert text(three) == "Ada likes blue; roots 1"
    # an answer missing or malformed is asked again, not an error
    again = await client.call(
        "interview",
        inputResponses={"colour": {"action": "accept", "content": {"colour": "blue"}}, "roots": 5},
        requestState=two["requestState"],
    )
    assert list(again["result"]["inputRequests"]) == ["roots"]


@run
async def test_request_state_is_integrity_protected_and_bound() -> None:
    client = await Client(server(), STATELESS, ALL_CAPABILITIES).open()
    state = (await client.call("delete_file", arguments={"path": "a"}))["result"]["requestState"]
    answer = {"confirm": {"action": "accept", "content": {"ok": True}}}
    version, body, tag = state.split(".")
    forged_body = orjson.loads(base64.urlsafe_b64decode(body + "==="))
    forged_body["a"] = {"confirm": {"action": "accept", "content": {"ok": True}}}
    forged = ".".join([version, base64.urlsafe_b64encode(orjson.dumps(forged_body)).decode(), tag])
    for bad in (state + "-TAMPERED", forged, "garbage"):
        reply = await client.call(
            "delete_file", arguments={"path": "a"}, inputResponses=answer, requestState=bad
        )
        assert reply["error"]["code"] == -32602, bad
        assert "Invalid or expired requestState" in reply["error"]["message"]
    other = await client.call(
        "delete_file", arguments={"path": "b"}, inputResponses=answer, requestState=state
    )
    assert "issued for another call" in other["error"]["message"]
    for bad_params in ({"inputResponses": None}, {"inputResponses": [1]}, {"requestState": 3}):
        assert (await client.call("delete_file", **bad_params))["error"]["code"] == -32602
    # another server with another key refuses it; one sharing the key accepts it
    stranger = await Client(
        server(request_state=RequestStateSeal(b"k" * 32)), STATELESS, ALL_CAPABILITIES
    ).open()
    refused = await stranger.call(
        "delete_file", arguments={"path": "a"}, inputResponses=answer, requestState=state
    )
    assert refused["error"]["code"] == -32602


@run
async def test_a_retry_lands_on_another_worker_through_a_shared_store() -> None:
    store = MemoryStateStore()  # stands for a store every worker reaches (Redis, issue 12)
    key = b"shared secret of all workers!!!!"
    one = await Client(
        server(request_state=RequestStateSeal(key, store=store)), STATELESS, ALL_CAPABILITIES
    ).open()
    two = await Client(
        server(request_state=RequestStateSeal(key, store=store)), STATELESS, ALL_CAPABILITIES
    ).open()
    first = (await one.call("interview"))["result"]
    name = {"elicit-1": {"action": "accept", "content": {"name": "Secret Name"}}}
    second = (await two.call("interview", inputResponses=name, requestState=first["requestState"]))[
        "result"
    ]
    assert (
        "Secret Name"
        not in base64.urlsafe_b64decode(second["requestState"].split(".")[1] + "===").decode()
    )
    answers = {"colour": {"action": "accept", "content": {"colour": "red"}}, "roots": {"roots": []}}
    done = await one.call("interview", inputResponses=answers, requestState=second["requestState"])
    assert text(done) == "Secret Name likes red; roots 0"


@run
async def test_missing_capability_in_2026_is_the_spec_error() -> None:
    client = await Client(server(), STATELESS, {"sampling": {}}).open()
    reply = await client.call("delete_file")
    assert reply["error"]["code"] == -32021
    assert reply["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}
    asked = (await client.call("careful"))["result"]
    assert asked["resultType"] == "input_required"
    assert [r["method"] for r in asked["inputRequests"].values()] == ["sampling/createMessage"]
    bare = await Client(server(), STATELESS, {}).open()
    assert text(await bare.call("careful")) == "no sampling here"


@pytest.mark.parametrize("revision", [*ELICITING, STATELESS])
@run
async def test_one_handler_body_in_every_revision(revision: str) -> None:
    client = await Client(server(), revision, ALL_CAPABILITIES).open()
    answer = {"action": "accept", "content": {"ok": False}}
    if revision == STATELESS:
        first = (await client.call("delete_file"))["result"]
        reply = await client.call(
            "delete_file", inputResponses={"confirm": answer}, requestState=first["requestState"]
        )
    else:
        reply = await client.call_answering("delete_file", {"result": answer})
    assert text(reply) == "kept notes.txt (accept)"


@run
async def test_answers_without_a_state_and_a_stale_state() -> None:
    client = await Client(server(), STATELESS, ALL_CAPABILITIES).open()
    answer = {"confirm": {"action": "accept", "content": {"ok": True}}, "unknown": {"x": 1}}
    # a first call that already carries the answer (no requestState) completes
    assert text(await client.call("delete_file", inputResponses=answer)) == "deleted notes.txt"
    stale = Server(
        tools=[t.entry for t in server().tools.values()],
        name="t",
        version="1",
        revisions=NAMES,
        request_state=RequestStateSeal(b"k" * 32, ttl=-1),
    )
    old = await Client(stale, STATELESS, ALL_CAPABILITIES).open()
    state = (await old.call("delete_file"))["result"]["requestState"]
    reply = await old.call("delete_file", inputResponses=answer, requestState=state)
    assert reply["error"]["code"] == -32602 and "(expired)" in reply["error"]["message"]


@run
async def test_a_failed_question_withdraws_the_others_of_its_round() -> None:
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    call = asyncio.ensure_future(client.call("interview"))
    (first,) = await client.requests(1)
    await client.send({"jsonrpc": "2.0", "id": first["id"], **accept(name="Ada")})
    colour, listing = sorted((await client.requests(3))[1:], key=lambda r: r["method"])
    failure = {"error": {"code": -32601, "message": "roots not supported"}}
    await client.send({"jsonrpc": "2.0", "id": listing["id"], **failure})
    reply = await call
    assert text(reply) == "The client refused the request: roots not supported"
    withdrawn = [m for m in client.outbox if m.get("method") == "notifications/cancelled"]
    assert [m["params"]["requestId"] for m in withdrawn] == [colour["id"]]


class Hub:
    """Stands for the shared store of the HTTP transport: a response posted to any worker
    is delivered to the worker whose handler waits for it."""

    def __init__(self) -> None:
        self.waiting: dict[Any, asyncio.Future[dict[str, Any] | None]] = {}

    async def await_reply(self, request_id: Any, timeout: float) -> dict[str, Any] | None:
        waiting = self.waiting[request_id] = asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(waiting, timeout)
        except TimeoutError:
            return None

    def deliver(self, message: dict[str, Any]) -> None:
        self.waiting.pop(message["id"]).set_result(message)


@run
async def test_a_response_that_reaches_another_worker_gets_to_the_waiting_handler() -> None:
    hub = Hub()
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    client.session.outbound.waiter = hub.await_reply
    call = asyncio.ensure_future(client.call("delete_file"))
    (asked,) = await client.requests(1)
    assert asked["id"] in hub.waiting  # registered before the client could answer
    hub.deliver({"jsonrpc": "2.0", "id": asked["id"], **accept(ok=True)})  # "at another worker"
    assert text(await call) == "deleted notes.txt"
    timed_out = await client.call("slow_question", arguments={"timeout": 0.05})
    assert "did not answer" in text(timed_out)
    assert client.outbox[-1]["method"] == "notifications/cancelled"


def test_several_local_workers_share_one_state_key(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[dict[str, Any]] = []
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    monkeypatch.setattr(entry, "serve_http", lambda *a, **k: started.append(dict(k)))
    entry.main(server(), "pkg", ["--http", "--workers", "3", "--store", "redis://x:1/0"])
    drawn = os.environ[KEY_VARIABLE]  # the worker processes inherit it
    assert started[0]["workers"] == 3 and len(drawn) >= 32
    monkeypatch.setenv(KEY_VARIABLE, "configured for every machine")
    entry.main(server(), "pkg", ["--http", "--workers", "3", "--store", "redis://x:1/0"])
    assert os.environ[KEY_VARIABLE] == "configured for every machine"  # never replaced


GATHERED_ANSWERS = {
    "elicit-1": {"action": "accept", "content": {"name": "Ada"}},
    "sample-2": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m"},
    "roots-3": {"roots": [{"uri": "file:///x"}]},
}


@run
async def test_questions_gathered_together_are_one_round_in_2026() -> None:
    client = await Client(server(), STATELESS, ALL_CAPABILITIES).open()
    first = (await client.call("gathered"))["result"]
    assert first["resultType"] == "input_required"
    asked = first["inputRequests"]
    assert sorted(asked) == sorted(GATHERED_ANSWERS), asked
    assert [asked[k]["method"] for k in sorted(asked)] == [
        "elicitation/create",
        "roots/list",
        "sampling/createMessage",
    ]
    done = await client.call(
        "gathered", inputResponses=GATHERED_ANSWERS, requestState=first["requestState"]
    )
    assert done["result"]["resultType"] == "complete", done
    assert text(done) == "Ada; hello; roots 1"
    # one answer short: only that one is asked again
    partial = {k: v for k, v in GATHERED_ANSWERS.items() if k != "roots-3"}
    again = await client.call(
        "gathered", inputResponses=partial, requestState=first["requestState"]
    )
    assert list(again["result"]["inputRequests"]) == ["roots-3"]


@run
async def test_questions_gathered_together_go_out_at_once_in_a_session() -> None:
    client = await Client(server(), "2025-11-25", ALL_CAPABILITIES).open()
    call = asyncio.ensure_future(client.call("gathered"))
    requests = await client.requests(3)
    assert sorted(r["method"] for r in requests) == [
        "elicitation/create",
        "roots/list",
        "sampling/createMessage",
    ]
    for request in requests:
        answer = {
            "elicitation/create": GATHERED_ANSWERS["elicit-1"],
            "sampling/createMessage": GATHERED_ANSWERS["sample-2"],
            "roots/list": GATHERED_ANSWERS["roots-3"],
        }[request["method"]]
        await client.send({"jsonrpc": "2.0", "id": request["id"], "result": answer})
    assert text(await call) == "Ada; hello; roots 1"
