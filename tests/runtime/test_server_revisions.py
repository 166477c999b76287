"""A raw JSON-RPC conversation over stdio in each protocol revision.

Every message the server sends is validated against that revision's schema.json from
../shared/specs and checked to carry no field the revision does not define (the
checking is in stdio_conversation.py and spec_check.py); the assertions here are about
behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.runtime_fixture import PACKAGE, REVISIONS, TOOL_NAMES, build_package
from tests.support.stdio_conversation import STATELESS, Conversation, meta

pytestmark = pytest.mark.skipif(
    not SHARED_SPECS.is_dir(), reason="needs ../shared/specs beside the checkout"
)

LEGACY = REVISIONS[:-1]
BARE = "2024-10-07"  # tools/call answers {"toolResult": <any JSON value>}
# The content blocks 2024-10-07 defines (for prompts), by their type: the blocks a
# toolResult carries must be exactly these.
BARE_BLOCKS = {"text": "TextContent", "image": "ImageContent", "resource": "PromptEmbeddedResource"}


@pytest.fixture(scope="module")
def package_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_package(tmp_path_factory.mktemp("revisions"))


@pytest.fixture
def open_conversation(package_root: Path, tmp_path: Path) -> Iterator[Any]:
    opened: list[Conversation] = []

    def start(revision: str) -> Conversation:
        conversation = Conversation(package_root, PACKAGE, revision, tmp_path / "stderr.txt")
        opened.append(conversation)
        return conversation

    yield start
    for conversation in opened:
        conversation.kill()


class Client:
    """Conversation helpers that put each request in the revision's form."""

    def __init__(self, conversation: Conversation) -> None:
        self.c = conversation
        self.revision = conversation.revision
        self.stateless = self.revision == STATELESS

    def params(self, params: dict[str, Any] | None = None, **extra_meta: Any) -> dict[str, Any]:
        params = dict(params or {})
        if self.stateless:
            params["_meta"] = {**meta(), **extra_meta, **params.get("_meta", {})}
        elif extra_meta:
            params["_meta"] = {**extra_meta, **params.get("_meta", {})}
        return params

    def request(
        self, method: str, params: dict[str, Any] | None = None, **m: Any
    ) -> dict[str, Any]:
        return self.c.request(method, self.params(params, **m))

    def result(self, method: str, params: dict[str, Any] | None = None, **m: Any) -> dict[str, Any]:
        return self.c.result(method, self.params(params, **m))

    def error(self, method: str, params: dict[str, Any] | None = None, **m: Any) -> dict[str, Any]:
        return self.c.error(method, self.params(params, **m))

    def call(self, name: str, arguments: Any = None, **m: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return self.request("tools/call", params, **m)

    def barrier(self) -> None:
        """A request answered after everything sent before it was handled."""
        if self.stateless:
            self.result("server/discover")
        else:
            self.c.result("ping")


def text_of(result: dict[str, Any]) -> str:
    if "toolResult" in result:  # 2024-10-07: a handler's text is the value itself
        value = result["toolResult"]
        assert isinstance(value, str), result
        return value
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


def reason_of(error: dict[str, Any]) -> str:
    """2024-10-07's -32602 error, in the shape its Tools chapter shows."""
    assert error["code"] == -32602 and error["message"] == "Invalid params", error
    assert set(error["data"]) == {"reason"}, error
    reason: str = error["data"]["reason"]
    return reason


@pytest.mark.parametrize("revision", REVISIONS)
def test_conversation(revision: str, open_conversation: Any, tmp_path: Path) -> None:
    c = open_conversation(revision)
    client = Client(c)
    if client.stateless:
        _stateless_start(client)
    else:
        _handshake(client)
    _tools_list(client)
    _tools_call(client)
    _logging_and_progress(client)
    _cancellation(client)
    _bad_input(client)
    assert c.close() == 0
    cancelled = c.pending_cancelled  # type: ignore[attr-defined]
    assert cancelled not in c.responses, "a cancelled request got a response"
    assert "slow: cancelled" in (tmp_path / "stderr.txt").read_text()  # the handler saw it
    assert c.checked > 30


def _handshake(client: Client) -> None:
    c = client.c
    # A client of this revision gets it; a version the server does not know gets its newest.
    result = c.result(
        "initialize",
        {
            "protocolVersion": client.revision,
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "1"},
        },
    )
    assert result["protocolVersion"] == client.revision
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["serverInfo"] == {"name": "fake", "version": "0.0.1"}
    c.notify("notifications/initialized")
    assert c.result("ping") == {}


def _stateless_start(client: Client) -> None:
    c = client.c
    discovered = client.result("server/discover")
    assert discovered["supportedVersions"] == list(REVISIONS)
    assert discovered["resultType"] == "complete"
    assert discovered["capabilities"]["tools"] == {"listChanged": False}
    assert discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "fake"
    # No envelope, or half of it: -32602.
    assert c.error("tools/list", {})["code"] == -32602
    assert c.error("tools/list")["code"] == -32602
    half = {"_meta": {"io.modelcontextprotocol/protocolVersion": STATELESS}}
    assert c.error("tools/list", half)["code"] == -32602
    unsupported = c.error("tools/list", {"_meta": meta("1999-01-01")})
    assert unsupported["code"] == -32022
    assert unsupported["data"] == {"requested": "1999-01-01", "supported": list(REVISIONS)}
    # No handshake-era requests in this revision.
    assert client.error("ping")["code"] == -32601
    assert client.error("logging/setLevel", {"level": "debug"})["code"] == -32601


def _tools_list(client: Client) -> None:
    names: list[str] = []
    tools: dict[str, dict[str, Any]] = {}
    cursor = None
    pages = 0
    while True:
        result = client.result("tools/list", {"cursor": cursor} if cursor else {})
        pages += 1
        names += [tool["name"] for tool in result["tools"]]
        tools.update({tool["name"]: tool for tool in result["tools"]})
        if client.stateless:
            assert result["ttlMs"] >= 0 and result["cacheScope"] == "public"
            assert result["resultType"] == "complete"
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == list(TOOL_NAMES)  # the dispatch table's order, page after page
    assert pages == 3  # page_size 4
    weather = tools["get_weather"]
    expected = {"name", "description", "inputSchema"}
    if client.revision >= "2025-03-26":
        expected.add("annotations")
    if client.revision >= "2025-06-18":
        expected.add("title")
    if client.revision >= "2025-11-25":
        expected.add("icons")
    assert set(weather) == expected
    assert ("outputSchema" in tools["divide"]) == (client.revision >= "2025-06-18")
    assert client.error("tools/list", {"cursor": "not-a-cursor"})["code"] == -32602


def _tools_call(client: Client) -> None:
    if client.revision == BARE:
        _tools_call_bare(client)
        return
    revision = client.revision
    ok = client.call("get_weather", {"location": "Oslo"})["result"]
    assert text_of(ok) == "Oslo: 21 degrees celsius"
    assert "isError" not in ok

    invalid = client.call("get_weather", {"location": "Oslo", "units": "kelvin"})
    if revision < "2025-11-25":
        assert invalid["error"]["code"] == -32602
        assert "units" in invalid["error"]["message"]
    else:
        assert invalid["result"]["isError"] is True
        message = text_of(invalid["result"])
        assert "'units'" in message and "celsius" in message and "kelvin" in message
    missing = client.call("get_weather", {})
    expected_missing = "location"
    if revision < "2025-11-25":
        assert expected_missing in missing["error"]["message"]
    else:
        assert expected_missing in text_of(missing["result"])

    assert text_of(client.call("server_time")["result"]) == "2026-07-28T12:00:00Z"
    order = client.call(
        "create_order",
        {
            "customer": {"name": "Ada"},
            "items": [{"sku": "a", "quantity": 2}, {"sku": "b", "quantity": 1}],
        },
    )
    assert text_of(order["result"]) == "order for Ada: 3 items, standard shipping"

    divided = client.call("divide", {"a": 7, "b": 2})["result"]
    assert json.loads(text_of(divided)) == {"quotient": 3.5, "remainder": 1}
    if revision >= "2025-06-18":
        assert divided["structuredContent"] == {"quotient": 3.5, "remainder": 1}
    else:
        assert "structuredContent" not in divided
    by_zero = client.call("divide", {"a": 1, "b": 0})["result"]
    assert by_zero["isError"] is True and "division by zero" in text_of(by_zero)

    broken = client.call("broken_output", {"a": 1})
    assert broken["error"]["code"] == -32603
    assert "outputSchema" in broken["error"]["message"]

    chart = client.call("render_chart", {"title": "t"})["result"]["content"]
    kinds = [block["type"] for block in chart]
    if revision == "2024-11-05":
        assert kinds == ["image", "text", "resource", "resource"]
        assert chart[2]["resource"]["mimeType"] == "audio/wav"
        assert chart[2]["resource"]["blob"] == "UklGRiBmYWtl"
    elif revision == "2025-03-26":
        assert kinds == ["image", "text", "audio", "resource"]
    else:
        assert kinds == ["image", "resource_link", "audio", "resource"]
    if revision < "2025-06-18":
        assert chart[1]["text"] == "[data.csv](file:///charts/data.csv) (text/csv): the data"

    failed = client.call("fail")["result"]
    assert failed["isError"] is True and "failed on purpose" in text_of(failed)

    assert client.call("no_such_tool")["error"]["code"] == -32602
    assert client.call("get_weather", "Oslo")["error"]["code"] == -32602
    assert client.call("get_weather", ["Oslo"])["error"]["code"] == -32602


def _tools_call_bare(client: Client) -> None:
    """2024-10-07: every result is {"toolResult": value}; the value is what the handler
    returned (text as a string, structured output as itself), execution errors are inside
    it as {"error": message}, argument and tool-name problems are -32602 with data.reason."""
    ok = client.call("get_weather", {"location": "Oslo"})["result"]
    assert ok == {"toolResult": "Oslo: 21 degrees celsius"}

    invalid = reason_of(
        client.call("get_weather", {"location": "Oslo", "units": "kelvin"})["error"]
    )
    assert "'units'" in invalid and "kelvin" in invalid
    assert "location" in reason_of(client.call("get_weather", {})["error"])

    assert client.call("server_time")["result"] == {"toolResult": "2026-07-28T12:00:00Z"}
    order = client.call(
        "create_order",
        {"customer": {"name": "Ada"}, "items": [{"sku": "a", "quantity": 2}]},
    )
    assert order["result"] == {"toolResult": "order for Ada: 2 items, standard shipping"}

    divided = client.call("divide", {"a": 7, "b": 2})["result"]
    assert divided == {"toolResult": {"quotient": 3.5, "remainder": 1}}
    by_zero = client.call("divide", {"a": 1, "b": 0})["result"]
    assert set(by_zero) == {"toolResult"} and set(by_zero["toolResult"]) == {"error"}
    assert "division by zero" in by_zero["toolResult"]["error"]
    broken = client.call("broken_output", {"a": 1})
    assert broken["error"]["code"] == -32603
    assert "outputSchema" in broken["error"]["message"]

    chart = client.call("render_chart", {"title": "t"})["result"]["toolResult"]
    assert [block["type"] for block in chart] == ["image", "text", "resource", "resource"]
    for block in chart:  # the schema leaves toolResult open; the blocks must still be exact
        client.c.spec.assert_exact(block, BARE_BLOCKS[block["type"]])
    assert chart[1]["text"] == "[data.csv](file:///charts/data.csv) (text/csv): the data"
    assert chart[2]["resource"] == {
        "uri": "content://audio/2",
        "mimeType": "audio/wav",
        "blob": "UklGRiBmYWtl",
    }
    assert chart[3]["resource"]["text"] == "notes for t"

    failed = client.call("fail")["result"]
    assert failed == {"toolResult": {"error": "the tool failed on purpose"}}

    assert reason_of(client.call("no_such_tool")["error"]) == "Unknown tool: no_such_tool"
    assert client.call("get_weather", "Oslo")["error"]["code"] == -32602
    assert client.call("get_weather", ["Oslo"])["error"]["code"] == -32602


def _logging_and_progress(client: Client) -> None:
    c = client.c
    if client.stateless:
        before = len(c.notifications)
        quiet = client.call("long_job", {"steps": 2}, progressToken="p0")
        assert text_of(quiet["result"]) == "finished 2 steps"
        new = c.notifications[before:]
        # No logLevel in _meta: no log messages at all; progress still flows.
        assert [n["method"] for n in new] == ["notifications/progress"] * 2
        level: dict[str, Any] = {"io.modelcontextprotocol/logLevel": "info"}
    else:
        assert c.result("logging/setLevel", {"level": "info"}) == {}
        assert c.error("logging/setLevel", {"level": "loud"})["code"] == -32602
        level = {}
    before = len(c.notifications)
    done = client.call("long_job", {"steps": 3}, progressToken="p1", **level)
    assert text_of(done["result"]) == "finished 3 steps"
    new = c.notifications[before:]
    logs = [n["params"] for n in new if n["method"] == "notifications/message"]
    progress = [n["params"] for n in new if n["method"] == "notifications/progress"]
    assert logs == [{"level": "info", "data": {"step": step}} for step in (1, 2, 3)]
    assert [p["progress"] for p in progress] == [1, 2, 3]
    assert all(p["progressToken"] == "p1" and p["total"] == 3 for p in progress)
    assert ("message" in progress[0]) == (client.revision >= "2025-03-26")


def _cancellation(client: Client) -> None:
    c = client.c
    params = client.params({"name": "slow", "arguments": {"seconds": 60}}, progressToken="slow")
    slow = c.start("tools/call", params)
    c.wait_notification("notifications/progress", progressToken="slow")  # it is running
    c.notify("notifications/cancelled", {"requestId": slow, "reason": "test"})
    client.barrier()
    # The server keeps serving while (and after) the slow call is cancelled.
    assert text_of(client.call("server_time")["result"]) == "2026-07-28T12:00:00Z"
    c.pending_cancelled = slow  # type: ignore[attr-defined]


def _bad_input(client: Client) -> None:
    c = client.c
    c.send_raw(b'{"jsonrpc": "2.0", "id": 5000, "method": "tools/list"')
    assert c.wait_anonymous_error()["error"]["code"] == -32700
    c.send_raw(b"42")
    assert c.wait_anonymous_error()["error"]["code"] == -32600
    assert client.error("resources/list")["code"] == -32601
    assert c.request("no/such/method")["error"]["code"] == -32601
    c.notify("notifications/whatever", {"x": 1})  # no response to a notification
    c.send({"jsonrpc": "2.0", "id": 6001, "method": "tools/list", "params": "oops"})
    assert c.wait(6001)["error"]["code"] in (-32600, -32602)
    batch = [
        {"jsonrpc": "2.0", "id": 7001, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 7002, "method": "tools/call", "params": {"name": "server_time"}},
    ]
    c.send(batch)
    if client.revision == "2025-03-26":
        replies = c.wait_batch()
        assert sorted(r["id"] for r in replies) == [7001, 7002]
    else:
        rejected = c.wait_anonymous_error()
        assert rejected["error"]["code"] == -32600
        assert 7001 not in c.responses
    before = len(c.responses)
    client.barrier()
    assert len(c.responses) == before + 1  # the notification above got no response
    # Still serving.
    assert text_of(client.call("get_weather", {"location": "Rome"})["result"]).startswith("Rome")


def test_the_checker_catches_what_a_revision_does_not_define() -> None:
    from tests.support.spec_check import spec

    old = spec("2024-11-05")
    tool = {"name": "t", "inputSchema": {"type": "object", "anything": 1}}
    assert old.errors(tool, "Tool") == []
    assert old.errors({**tool, "title": "T"}, "Tool") == ["/title: not defined by Tool"]
    audio = {"content": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]}
    assert old.errors(audio, "CallToolResult")
    annotated = {"content": [{"type": "text", "text": "x", "annotations": {"lastModified": "x"}}]}
    assert old.errors(annotated, "CallToolResult") == [
        "/content/0/annotations/lastModified: not defined by CallToolResult"
    ]
    june = spec("2025-06-18")
    typed = {"content": [], "resultType": "complete"}
    assert june.errors(typed, "CallToolResult") == ["/resultType: not defined by CallToolResult"]
    assert june.errors({"content": [], "_meta": {"any": 1}}, "CallToolResult") == []
    new = spec("2026-07-28")
    assert new.errors({"content": []}, "CallToolResult")  # resultType is required
    assert (
        new.errors(
            {"content": [], "resultType": "complete", "structuredContent": [1]}, "CallToolResult"
        )
        == []
    )
