"""The protocol core in process: Server.handle_message / receive, one behaviour at a time."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from tests.support.inprocess import (
    STATELESS,
    Peer,
    dispatch,
    entry,
    meta,
    run,
    runtime,
    server_with,
    text,
)
from tests.support.runtime_fixture import PACKAGE, REVISIONS, TOOL_NAMES, build_package

__all__ = ["dispatch", "runtime"]  # fixtures, imported for pytest

# --------------------------------------------------------------------- construction


def test_construction_refuses_bad_tables(runtime: Any, dispatch: ModuleType) -> None:
    Server = runtime.server.Server
    with pytest.raises(ValueError, match="unknown protocol revisions"):
        Server(tools=(), name="t", version="1", revisions=("2023-01-01",))
    with pytest.raises(ValueError, match="two tools"):
        Server(tools=dispatch.TOOLS[:1] * 2, name="t", version="1", revisions=REVISIONS)
    with pytest.raises(ValueError, match="page_size"):
        Server(tools=(), name="t", version="1", revisions=REVISIONS, page_size=0)
    lacking = entry(runtime, "x", lambda: "x")
    lacking = type(lacking)(**{**_fields(lacking), "published": {"2024-11-05": {}}})
    with pytest.raises(ValueError, match="no definition for"):
        Server(tools=(lacking,), name="t", version="1", revisions=REVISIONS)
    titled = entry(runtime, "x", lambda: "x")
    published = {
        r: {"name": "x", "inputSchema": {"type": "object"}, "title": "X"} for r in REVISIONS
    }
    titled = type(titled)(**{**_fields(titled), "published": published})
    with pytest.raises(ValueError, match=rf"{REVISIONS[0]} has fields .* \['title'\]"):
        Server(tools=(titled,), name="t", version="1", revisions=REVISIONS)


def _fields(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in value.__slots__}


# ------------------------------------------------------------------------ lifecycle


@run
async def test_initialize_negotiates_a_version(dispatch: ModuleType) -> None:
    for requested, granted in [
        ("2024-11-05", "2024-11-05"),
        ("2025-06-18", "2025-06-18"),
        ("2099-01-01", "2025-11-25"),  # unknown: the server's newest handshake revision
        ("2026-07-28", "2025-11-25"),  # stateless revisions have no handshake
    ]:
        peer = Peer(dispatch.SERVER, None)
        reply = await peer.request("initialize", {"protocolVersion": requested, "capabilities": {}})
        assert reply["result"]["protocolVersion"] == granted
        assert peer.session.revision.name == granted
    peer = Peer(dispatch.SERVER, None)
    assert (await peer.request("initialize", {}))["error"]["code"] == -32602


@run
async def test_a_stateless_only_server_refuses_initialize(
    runtime: Any, dispatch: ModuleType
) -> None:
    server = server_with(runtime, *dispatch.TOOLS, revisions=(STATELESS,))
    peer = Peer(server, None)
    reply = await peer.request("initialize", {"protocolVersion": "2025-06-18"})
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"] == {"requested": "2025-06-18", "supported": [STATELESS]}
    missing = await peer.request("tools/list")
    assert missing["error"]["code"] == -32602 and "initialize" not in missing["error"]["message"]


@run
async def test_before_initialize(runtime: Any, dispatch: ModuleType) -> None:
    peer = Peer(dispatch.SERVER, None)
    assert (await peer.request("ping"))["result"] == {}
    refused = await peer.request("tools/list")
    assert refused["error"]["code"] == -32602
    assert "io.modelcontextprotocol/protocolVersion" in refused["error"]["message"]
    legacy_only = server_with(runtime, *dispatch.TOOLS, revisions=REVISIONS[:-1])
    refused = await Peer(legacy_only, None).request("tools/list")
    assert refused["error"]["code"] == -32602 and "initialize" in refused["error"]["message"]


@run
async def test_one_connection_answers_each_era_in_its_own_form(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-06-18")
    legacy = await peer.call("server_time")
    assert "resultType" not in legacy["result"]
    stateless = await peer.request("tools/call", {"name": "server_time", "_meta": meta()})
    assert stateless["result"]["resultType"] == "complete"
    assert (await peer.call("server_time"))["result"] == legacy["result"]


@run
async def test_stateless_envelope_is_checked(dispatch: ModuleType) -> None:
    peer = Peer(dispatch.SERVER, None)
    call = {"name": "server_time"}
    for bad_meta in (
        {"io.modelcontextprotocol/protocolVersion": STATELESS},
        {**meta(), "io.modelcontextprotocol/clientCapabilities": "all"},
        {**meta(), "io.modelcontextprotocol/protocolVersion": 20260728},
        {**meta(), "io.modelcontextprotocol/logLevel": "loud"},
    ):
        reply = await peer.request("tools/call", {**call, "_meta": bad_meta})
        assert reply["error"]["code"] == -32602, bad_meta
    reply = await peer.request("tools/call", {**call, "_meta": meta("2030-01-01")})
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"]["supported"] == list(REVISIONS)
    assert peer.session.revision is None  # nothing was remembered


@run
async def test_discover(dispatch: ModuleType, runtime: Any) -> None:
    server = server_with(
        runtime, *dispatch.TOOLS, instructions="Use divide.", ttl_ms=5, cache_scope="private"
    )
    result = (await Peer(server, STATELESS).request("server/discover"))["result"]
    assert result == {
        "supportedVersions": list(REVISIONS),
        "capabilities": {"logging": {}, "tools": {"listChanged": False}},
        "ttlMs": 5,
        "cacheScope": "private",
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "t", "version": "1"}},
        "instructions": "Use divide.",
    }


# ----------------------------------------------------------------------- tools/list


@run
async def test_pagination(runtime: Any, dispatch: ModuleType) -> None:
    for revision in ("2024-11-05", STATELESS):
        server = server_with(runtime, *dispatch.TOOLS, page_size=2)
        peer = await Peer.open(server, revision)
        names, cursor, pages = [], None, 0
        while True:
            result = (await peer.request("tools/list", {"cursor": cursor} if cursor else {}))[
                "result"
            ]
            names += [t["name"] for t in result["tools"]]
            pages += 1
            cursor = result.get("nextCursor")
            if cursor is None:
                break
        assert names == list(TOOL_NAMES) and pages == 5
        encoded = base64.urlsafe_b64encode
        for cursor in (
            "",
            "garbage",
            7,
            encoded(b"tools:0").decode(),
            encoded(b"tools:9").decode(),
        ):
            reply = await peer.request("tools/list", {"cursor": cursor})
            assert reply["error"]["code"] == -32602, cursor
            assert reply["error"]["message"] == "Invalid cursor"
    single = server_with(runtime, *dispatch.TOOLS, page_size=None)
    result = (await (await Peer.open(single, "2025-06-18")).request("tools/list"))["result"]
    assert len(result["tools"]) == len(TOOL_NAMES) and "nextCursor" not in result
    empty = server_with(runtime)
    assert (await (await Peer.open(empty, "2025-06-18")).request("tools/list"))["result"] == {
        "tools": []
    }


# ----------------------------------------------------------------------- tools/call


@run
async def test_arguments_get_defaults_and_python_names(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-11-25")
    assert text(await peer.call("get_weather", {"location": "Oslo"})) == "Oslo: 21 degrees celsius"
    order = {
        "customer": {"name": "Ada"},
        "items": [{"sku": "a", "quantity": 1}],
        "class": "express",
    }
    assert (
        text(await peer.call("create_order", order)) == "order for Ada: 1 items, express shipping"
    )


@run
async def test_mutable_defaults_are_fresh_and_extra_arguments_dropped(runtime: Any) -> None:
    seen: list[list[str]] = []

    def collect(*, tags: list[str]) -> str:
        tags.append("x")
        seen.append(tags)
        return str(len(tags))

    schema = {"type": "object", "properties": {"tags": {"type": "array"}}}
    server = server_with(
        runtime,
        entry(
            runtime,
            "collect",
            collect,
            input_schema=schema,
            arguments={"tags": "tags"},
            defaults={"tags": []},
        ),
    )
    peer = await Peer.open(server, "2025-06-18")
    assert text(await peer.call("collect")) == "1"
    assert text(await peer.call("collect", {"other": 1})) == "1"  # undeclared: dropped
    assert seen[0] is not seen[1]


@run
async def test_whole_arguments(runtime: Any) -> None:
    def echo(arguments: dict[str, Any]) -> str:
        return json.dumps(arguments, sort_keys=True)

    schema = {
        "oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]
    }
    server = server_with(
        runtime, entry(runtime, "echo", echo, input_schema=schema, whole_arguments="arguments")
    )
    peer = await Peer.open(server, "2025-06-18")
    assert text(await peer.call("echo", {"a": 1})) == '{"a": 1}'
    assert (await peer.call("echo", {"c": 1}))["error"]["code"] == -32602


@run
async def test_call_errors_by_revision(dispatch: ModuleType) -> None:
    for revision in REVISIONS:
        peer = await Peer.open(dispatch.SERVER, revision)
        assert (await peer.call("get_weather", [1]))["error"]["code"] == -32602
        assert (await peer.request("tools/call", {}))["error"]["code"] == -32602
        invalid = await peer.call("create_order", {"customer": {}, "items": [{"sku": 1}]})
        if revision == "2024-10-07":  # the shape of its Tools chapter: data.reason
            assert (await peer.call("nope"))["error"] == {
                "code": -32602,
                "message": "Invalid params",
                "data": {"reason": "Unknown tool: nope"},
            }
            error = invalid["error"]
            assert (error["code"], error["message"]) == (-32602, "Invalid params")
            assert "argument 'customer'" in error["data"]["reason"]
            assert "argument 'items'[0].sku" in error["data"]["reason"]
            continue
        assert (await peer.call("nope"))["error"] == {
            "code": -32602,
            "message": "Unknown tool: nope",
        }
        if revision < "2025-11-25":
            error = invalid["error"]
            assert error["code"] == -32602
            assert "argument 'customer'" in error["message"]
            assert any("items" in e and "quantity" in e for e in error["data"]["errors"])
        else:
            assert invalid["result"]["isError"] is True
            message = text(invalid)
            assert "'customer'" in message and '"name" is a required property' in message
            assert "argument 'items'[0].sku: 1 is not of type \"string\"" in message


@run
async def test_handler_exceptions_become_error_results(runtime: Any, dispatch: ModuleType) -> None:
    def stub() -> str:
        raise NotImplementedError("stub")

    server = server_with(runtime, *dispatch.TOOLS, entry(runtime, "stub", stub))
    peer = await Peer.open(server, "2024-11-05")
    failed = await peer.call("fail")
    assert failed["result"] == {
        "content": [{"type": "text", "text": "the tool failed on purpose"}],
        "isError": True,
    }
    assert "not implemented yet" in text(await peer.call("stub"))
    assert text(await peer.call("server_time"))  # still serving


@run
async def test_structured_output(runtime: Any, dispatch: ModuleType) -> None:
    class Model:  # pydantic-style
        def model_dump(self, **options: Any) -> dict[str, Any]:
            assert options["by_alias"] and options["mode"] == "json"
            return {"quotient": 2}

    output = {
        "type": "object",
        "properties": {"quotient": {"type": "number"}},
        "required": ["quotient"],
    }
    R = runtime.result.ToolResult
    server = server_with(
        runtime,
        *dispatch.TOOLS,
        entry(runtime, "model", lambda: Model(), output_schema=output),
        entry(runtime, "nothing", lambda: None, output_schema=output),
        entry(runtime, "not_json", lambda: {"quotient": {1, 2}}, output_schema=output),
        entry(
            runtime,
            "explicit",
            lambda: R(content=["two"], structured={"quotient": 2}),
            output_schema=output,
        ),
        entry(
            runtime,
            "soft_error",
            lambda: R(content=["bad day"], is_error=True),
            output_schema=output,
        ),
        entry(runtime, "list_out", lambda: [1, 2], output_schema={"type": "array"}),
    )
    peer = await Peer.open(server, "2025-06-18")
    model = (await peer.call("model"))["result"]
    assert model == {
        "content": [{"type": "text", "text": '{"quotient":2}'}],
        "structuredContent": {"quotient": 2},
    }
    for name in ("nothing", "not_json", "broken_output"):
        reply = await peer.call(name)
        assert reply["error"]["code"] == -32603, name
    broken = await peer.call("broken_output")
    assert broken["error"]["data"]["errors"] == [
        'result field \'quotient\': "not a number" is not of type "number" (type)'
    ]
    explicit = (await peer.call("explicit"))["result"]
    assert explicit["content"] == [{"type": "text", "text": "two"}]
    assert explicit["structuredContent"] == {"quotient": 2}
    assert (await peer.call("soft_error"))["result"]["isError"] is True
    # Structured content that is not an object exists only from 2026-07-28.
    assert "structuredContent" not in (await peer.call("list_out"))["result"]
    modern = await Peer.open(server, STATELESS)
    assert (await modern.call("list_out"))["result"]["structuredContent"] == [1, 2]


@run
async def test_bare_tool_results_of_2024_10_07(runtime: Any) -> None:
    """What each kind of return value becomes as 2024-10-07's {"toolResult": value}."""
    from dataclasses import dataclass

    @dataclass
    class Point:
        x: int
        y: int

    R = runtime.result.ToolResult
    ToolError = runtime.result.ToolError
    conversion = runtime.conversion
    output = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    def raises() -> str:
        raise ToolError("no such city")

    blocks = [
        {"type": "text", "text": "a", "annotations": {"priority": 1}},
        {"type": "audio", "data": "QQ==", "mimeType": "audio/wav"},
    ]
    server = server_with(
        runtime,
        entry(runtime, "text", lambda: "plain"),
        entry(runtime, "data", lambda: {"temperature": 72, "ok": True}),
        entry(runtime, "number", lambda: 4.5),
        entry(runtime, "dataclass", lambda: Point(1, 2)),
        entry(runtime, "none", lambda: None),
        entry(runtime, "one_block", lambda: {"type": "text", "text": "t", "_meta": {}}),
        entry(runtime, "blocks", lambda: blocks),
        entry(runtime, "typed", lambda: {"n": 3}, output_schema=output),
        entry(runtime, "explicit", lambda: R(content=["three"], structured={"n": 3})),
        entry(runtime, "raises", raises),
        entry(
            runtime, "soft_error", lambda: R(content=[conversion.text_block("x")], is_error=True)
        ),
    )
    peer = await Peer.open(server, "2024-10-07")

    async def value(name: str) -> Any:
        reply = await peer.call(name)
        assert set(reply["result"]) == {"toolResult"}, reply
        return reply["result"]["toolResult"]

    assert await value("text") == "plain"
    assert await value("data") == {"temperature": 72, "ok": True}  # the value, not JSON text
    assert await value("number") == 4.5
    assert await value("dataclass") == {"x": 1, "y": 2}
    assert await value("none") is None
    assert await value("one_block") == "t"
    # Several blocks stay blocks, in the forms 2024-10-07 defines: no annotations, audio
    # as an embedded blob resource.
    assert await value("blocks") == [
        {"type": "text", "text": "a"},
        {
            "type": "resource",
            "resource": {"uri": "content://audio/1", "mimeType": "audio/wav", "blob": "QQ=="},
        },
    ]
    assert await value("typed") == {"n": 3}
    assert await value("explicit") == {"n": 3}  # the structured result is the value
    assert await value("raises") == {"error": "no such city"}
    assert await value("soft_error") == {"error": "x"}
    # The same handlers keep their content-block results in every later revision.
    later = await Peer.open(server, "2024-11-05")
    assert (await later.call("data"))["result"] == {
        "content": [{"type": "text", "text": '{"temperature":72,"ok":true}'}]
    }


@run
async def test_instructions_only_where_initialize_result_defines_them(runtime: Any) -> None:
    server = server_with(runtime, entry(runtime, "x", lambda: "x"), instructions="Be brief.")
    for revision in REVISIONS[:-1]:
        peer = Peer(server, revision)
        hello = {"protocolVersion": revision, "capabilities": {}}
        result = (await peer.request("initialize", hello, stamp=False))["result"]
        expected = revision != "2024-10-07"  # its InitializeResult has no instructions
        assert ("instructions" in result) == expected, revision


def test_content_conversion(runtime: Any) -> None:
    conversion, protocol = runtime.conversion, runtime.protocol
    blocks = [
        {"type": "audio", "data": "QQ==", "mimeType": "audio/wav", "annotations": {"priority": 1}},
        {"type": "resource_link", "uri": "file:///a", "name": "a", "title": "The A", "_meta": {}},
        {
            "type": "text",
            "text": "t",
            "_meta": {"x": 1},
            "annotations": {"audience": ["user"], "lastModified": "2025-01-01T00:00:00Z"},
        },
        {"type": "resource", "resource": {"uri": "file:///b", "text": "b", "_meta": {}}},
    ]
    old = conversion.for_revision(blocks, protocol.BY_NAME["2024-11-05"])
    assert old == [
        {
            "type": "resource",
            "annotations": {"priority": 1},
            "resource": {"uri": "content://audio/0", "mimeType": "audio/wav", "blob": "QQ=="},
        },
        {"type": "text", "text": "[The A](file:///a)"},
        {"type": "text", "text": "t", "annotations": {"audience": ["user"]}},
        {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}},
    ]
    middle = conversion.for_revision(blocks, protocol.BY_NAME["2025-03-26"])
    assert [b["type"] for b in middle] == ["audio", "text", "text", "resource"]
    new = conversion.for_revision(blocks, protocol.BY_NAME["2025-06-18"])
    assert new is blocks  # nothing to change: the same list, no copies
    for bad in ([{"type": "video"}], [{"type": "text"}], ["x", 1], [42]):
        with pytest.raises(conversion.OutputError):
            conversion.for_revision(conversion.content_of(bad), protocol.BY_NAME["2025-06-18"])


@run
async def test_invalid_content_is_a_server_error(runtime: Any) -> None:
    # In a list (content, never data), an item that is no content block is an error; one
    # such dict returned alone is data (tests/runtime/test_data_or_content.py).
    server = server_with(runtime, entry(runtime, "video", lambda: [{"type": "video", "data": ""}]))
    reply = await (await Peer.open(server, "2025-06-18")).call("video")
    assert reply["error"]["code"] == -32603 and "unknown type 'video'" in reply["error"]["message"]


# -------------------------------------------------------------- context: log, progress


@run
async def test_logging_follows_set_level(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-06-18")
    await peer.call("long_job", {"steps": 1})
    assert [m["params"]["level"] for m in peer.sent] == ["debug", "info"]  # no level set: all
    peer.sent.clear()
    assert (await peer.request("logging/setLevel", {"level": "info"}))["result"] == {}
    await peer.call("long_job", {"steps": 2})
    assert [m["params"]["data"] for m in peer.sent] == [{"step": 1}, {"step": 2}]
    peer.sent.clear()
    await peer.request("logging/setLevel", {"level": "emergency"})
    await peer.call("long_job", {"steps": 2})
    assert peer.sent == []
    assert (await peer.request("logging/setLevel", {"level": "LOUD"}))["error"]["code"] == -32602


@run
async def test_stateless_logging_is_per_request(dispatch: ModuleType) -> None:
    peer = Peer(dispatch.SERVER, STATELESS)
    await peer.call("long_job", {"steps": 2})
    assert peer.sent == []
    await peer.call("long_job", {"steps": 1}, **{"io.modelcontextprotocol/logLevel": "debug"})
    assert [m["params"]["level"] for m in peer.sent] == ["debug", "info"]


@run
async def test_progress_needs_a_token(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2024-11-05")
    await peer.request("logging/setLevel", {"level": "emergency"})
    await peer.call("long_job", {"steps": 2})
    await peer.call("long_job", {"steps": 1}, progressToken=1.5)  # not a valid token
    assert peer.sent == []
    await peer.call("long_job", {"steps": 1}, progressToken=7)
    assert peer.sent == [
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": 7, "progress": 1, "total": 1},
        }  # no message in 2024-11-05
    ]


@run
async def test_context_api(runtime: Any) -> None:
    with pytest.raises(RuntimeError):
        runtime.context.get_context()
    seen: list[Any] = []

    def look() -> str:
        ctx = runtime.context.get_context()
        seen.append((ctx.protocol_version, ctx.request_id, ctx.tool))
        ctx.log("chatty", "x")
        return "unreachable"

    server = server_with(runtime, entry(runtime, "look", look))
    reply = await (await Peer.open(server, "2025-03-26")).call("look")
    assert seen == [("2025-03-26", 2, "look")]
    assert reply["result"]["isError"] is True and "unknown log level" in text(reply)


# ------------------------------------------------------------------ async, cancellation


@run
async def test_cancellation_cancels_the_handler(dispatch: ModuleType) -> None:
    for revision in ("2025-06-18", STATELESS):
        peer = await Peer.open(dispatch.SERVER, revision)
        message = peer.message("tools/call", {"name": "slow", "arguments": {"seconds": 30}})
        call = asyncio.ensure_future(
            peer.server.handle_message(orjson.dumps(message), peer.session)
        )
        await asyncio.sleep(0.01)
        assert message["id"] in peer.session.inflight
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": message["id"], "reason": "user"},
        }
        assert await peer.raw(cancel) is None
        with pytest.raises(asyncio.CancelledError):
            await call
        assert peer.session.inflight == {}
        # Unknown, finished or malformed ids are ignored.
        for request_id in (message["id"], 999, [1], None):
            params = {"requestId": request_id}
            assert (
                await peer.raw(
                    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
                )
                is None
            )
        assert text(await peer.call("server_time"))


@run
async def test_async_calls_run_concurrently(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-11-25")
    slow = peer.call("slow", {"seconds": 0.2})
    quick = peer.call("slow", {"seconds": 0.01})
    started = asyncio.get_running_loop().time()
    replies = await asyncio.gather(slow, quick)
    assert [text(r) for r in replies] == ["slept", "slept"]
    assert asyncio.get_running_loop().time() - started < 0.4


@run
async def test_sync_handler_returning_an_awaitable(runtime: Any) -> None:
    async def later() -> str:
        return "later"

    server = server_with(runtime, entry(runtime, "later", lambda: later()))
    assert text(await (await Peer.open(server, "2025-06-18")).call("later")) == "later"


# ------------------------------------------------------------------------ bad input


@run
async def test_bad_messages(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-11-25")
    assert await peer.raw(b'{"a": 1,\n  nope') == {
        "jsonrpc": "2.0",
        "error": {
            "code": -32700,
            "message": "Parse error",
            "data": {
                "reason": "unexpected character, expected a string key",
                "position": 11,
                "line": 2,
                "column": 3,
            },
        },
    }
    for message, code in [
        (b"42", -32600),
        (b'"x"', -32600),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "params": {}}, -32600),
        ({"id": 3, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, -32600),
        ({"jsonrpc": "2.0", "id": 3, "method": "ping", "params": [1]}, -32602),
        ({"jsonrpc": "2.0", "id": 3, "method": "resources/list"}, -32601),
        ({"jsonrpc": "2.0", "id": 3, "method": "server/discover"}, -32601),  # not a 2025 method
    ]:
        reply = await peer.raw(message)
        assert reply["error"]["code"] == code, message
    # Invalid Request says which member is missing or wrong.
    for message, data in [
        ({"id": 7, "method": "tools/list"}, {"member": "jsonrpc", "problem": 'missing: every message carries "jsonrpc": "2.0"'}),
        ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, {"member": "jsonrpc", "problem": "must be \"2.0\", not '1.0'"}),
        ({"jsonrpc": "2.0", "id": 3, "method": 5}, {"member": "method", "problem": "must be a string, not a number"}),
        ({}, {"member": "method", "problem": "missing: a request or notification names its method (a string)"}),
        ({"jsonrpc": "2.0", "id": {}, "method": "ping"}, {"member": "id", "problem": "must be a string or an integer, not an object"}),
        (b"[]", None),
        (b"null", {"problem": "a JSON-RPC message is an object, not null"}),
        ({"jsonrpc": "x" * 5000, "id": 7, "method": "ping"}, None),
    ]:  # fmt: skip
        error = (await peer.raw(message))["error"]
        assert error["code"] == -32600, message
        if data is not None:
            assert error["data"] == data, message
        assert len(json.dumps(error)) < 600, error  # quotes are shortened
    # Answers to nothing, and notifications, get no reply.
    for message in (
        {"jsonrpc": "2.0", "id": 9, "result": {}},
        {"jsonrpc": "2.0", "id": 9, "error": {"code": 1, "message": "x"}},
        {"jsonrpc": "2.0", "result": {}},
        {"jsonrpc": "2.0", "method": "notifications/unknown", "params": 5},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"},
    ):
        assert await peer.raw(message) is None, message
    # Stateless requests for handshake-era methods do not exist.
    ping = {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": meta()}}
    assert (await peer.raw(ping))["error"]["code"] == -32601


@run
async def test_error_ids_follow_the_revision(dispatch: ModuleType) -> None:
    old = await Peer.open(dispatch.SERVER, "2025-06-18")
    assert (await old.raw(b"{"))["id"] is None  # JSON-RPC's null before 2025-11-25
    assert "id" not in await Peer(dispatch.SERVER, None).raw(b"{")  # newest: left out


@run
async def test_batches(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-03-26")
    batch = [
        peer.message("ping"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        peer.message("tools/call", {"name": "slow", "arguments": {"seconds": 0.01}}),
        peer.message("tools/call", {"name": "nope"}),
        peer.message("initialize", {"protocolVersion": "2025-03-26"}),
        7,
    ]
    replies = await peer.raw(batch)
    # Answered members in the order they finish (JSON-RPC allows any): the slow call last.
    assert [r.get("id") for r in replies] == [2, 4, 5, None, 3]
    assert replies[-1]["result"]["content"][0]["text"] == "slept"
    assert [r["error"]["code"] for r in replies[1:4]] == [-32602, -32600, -32600]
    assert replies[3]["error"]["data"]["index"] == 5  # which member
    assert await peer.raw([{"jsonrpc": "2.0", "method": "notifications/initialized"}]) is None
    assert (await peer.raw([]))["error"]["code"] == -32600
    for revision in ("2024-11-05", "2025-06-18", "2025-11-25"):
        other = await Peer.open(dispatch.SERVER, revision)
        rejected = await other.raw([other.message("ping")])
        assert rejected["error"]["code"] == -32600
    assert (await Peer(dispatch.SERVER, None).raw([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))[
        "error"
    ]["code"] == -32600


@run
async def test_a_cancelled_batch_member_gets_no_response(dispatch: ModuleType) -> None:
    peer = await Peer.open(dispatch.SERVER, "2025-03-26")
    slow = peer.message("tools/call", {"name": "slow", "arguments": {"seconds": 30}})
    quick = peer.message("ping")
    pending = asyncio.ensure_future(peer.raw([slow, quick]))
    await asyncio.sleep(0.01)
    await peer.raw(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": slow["id"]}}
    )
    assert await pending == [{"jsonrpc": "2.0", "id": quick["id"], "result": {}}]


# ----------------------------------------------------------------- stdio line handling


class _Writer:
    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.on_drained: Any = None

    def congested(self) -> bool:
        return False

    def write(self, message: bytes) -> None:
        self.out.append(message)

    def cork(self) -> None: ...

    def uncork(self) -> None: ...


@run
async def test_stdio_reader_framing(runtime: Any, dispatch: ModuleType, monkeypatch: Any) -> None:
    monkeypatch.setattr(runtime.stdio, "MAX_MESSAGE_BYTES", 64)
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    writer = _Writer()
    session = dispatch.SERVER.session(writer.write)
    reader = runtime.stdio._Reader(dispatch.SERVER, session, writer, done)
    init = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25"},
        }
    )
    reader.data_received(init[:10])
    reader.data_received(init[10:] + b"\r\n\n   \n")
    assert [orjson.loads(m)["id"] for m in writer.out] == [1]
    reader.data_received(b'{"jsonrpc":"2.0","id":2,"method":"ping"' + b" " * 100)
    reader.data_received(b" " * 100 + b'}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    too_large, after = (orjson.loads(m) for m in writer.out[1:])
    assert too_large == {
        "jsonrpc": "2.0",
        "error": {"code": -32600, "message": "Message too large"},
    }
    assert after["id"] == 3
    reader.data_received(b'{"jsonrpc":"2.0","id":4,"method":"ping"}')  # no newline, then EOF
    reader.eof_received()
    assert orjson.loads(writer.out[-1])["id"] == 4 and done.done()


def test_stdout_is_kept_for_the_protocol(tmp_path: Path) -> None:
    """print() in a handler reaches stderr, never the protocol stream."""
    import subprocess
    import sys

    root = build_package(tmp_path)
    handlers = root / PACKAGE / "handlers.py"
    handlers.write_text(
        handlers.read_text().replace(
            "def server_time() -> str:\n", 'def server_time() -> str:\n    print("stray output")\n'
        )
    )
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "server_time"}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "slow", "arguments": {"seconds": 0.2}},
        },
    ]
    stdin = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE], cwd=root, input=stdin, capture_output=True, timeout=20
    )
    assert done.returncode == 0
    replies = [orjson.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2, 3]  # the slow call answered before exit
    assert b"stray output" in done.stderr


def test_stdio_from_files_and_dev_null(tmp_path: Path) -> None:
    """Regular files and /dev/null cannot be polled; the server reads them in a thread."""
    import subprocess
    import sys

    root = build_package(tmp_path)
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow",'
        b'"arguments":{"seconds":0.05},"_meta":{"io.modelcontextprotocol/protocolVersion":'
        b'"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
    )
    replies = tmp_path / "out.jsonl"
    with requests.open("rb") as stdin, replies.open("wb") as stdout:
        code = subprocess.run(
            [sys.executable, "-m", PACKAGE], cwd=root, stdin=stdin, stdout=stdout, timeout=20
        ).returncode
    assert code == 0
    assert [orjson.loads(line)["id"] for line in replies.read_bytes().splitlines()] == [1, 2]
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )
    assert done.returncode == 0 and done.stdout == b""
