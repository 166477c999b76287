"""The embedded example, as built by the generator, served over stdio.

A raw JSON-RPC conversation in each of the five protocol revisions (every message the
server sends is checked against that revision's schema.json and for fields the revision
does not define, by stdio_conversation.py), and the official SDK client in its legacy and
2026-07-28 modes, calling every tool of the example.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import EXAMPLE, build_embedded_example
from tests.support.sdk_calls import call_every_example_tool
from tests.support.stdio_conversation import STATELESS, Conversation, meta

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")

REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
TOOLS = sorted(p.stem for p in (EXAMPLE / "tools").iterdir())
ORDER = {
    "customer": {"name": "Ada", "email": "ada@example.com"},
    "items": [{"sku": "tea", "quantity": 2, "unit_price": 3.5}],
}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("example"))


class Session:
    """A raw client of one revision: the stateless envelope, or the handshake."""

    def __init__(self, conversation: Conversation) -> None:
        self.c = conversation
        self.revision = conversation.revision
        if self.revision == STATELESS:
            return
        result = self.c.result(
            "initialize",
            {
                "protocolVersion": self.revision,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        assert result["protocolVersion"] == self.revision
        assert result["serverInfo"] == {"name": "example-server", "version": "0.1.0"}
        self.c.notify("notifications/initialized")

    def params(self, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "_meta": meta()} if self.revision == STATELESS else params

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        return self.c.request("tools/call", self.params({"name": name, "arguments": arguments}))

    def result(self, name: str, arguments: Any) -> dict[str, Any]:
        response = self.call(name, arguments)
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        return result


@pytest.fixture
def session(example: Path, tmp_path: Path) -> Iterator[Any]:
    opened: list[Conversation] = []

    def start(revision: str) -> Session:
        conversation = Conversation(example, "example_server", revision, tmp_path / "stderr.txt")
        opened.append(conversation)
        return Session(conversation)

    yield start
    for conversation in opened:
        conversation.kill()


def _text(result: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in result["content"] if b["type"] == "text")


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_tool_in_every_revision(revision: str, session: Any) -> None:
    s: Session = session(revision)
    listed: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:  # page size 4: two pages
        page = s.c.result("tools/list", s.params({"cursor": cursor} if cursor else {}))
        listed += page["tools"]
        cursor = page.get("nextCursor")
        if cursor is None:
            break
    assert [t["name"] for t in listed] == TOOLS
    published = {t["name"]: t for t in listed}
    forecast = published["weather_forecast"]
    assert ("outputSchema" in forecast) == (revision >= "2025-06-18")
    assert ("title" in forecast) == (revision >= "2025-06-18")
    assert ("annotations" in forecast) == (revision >= "2025-03-26")
    assert ("icons" in published["render_chart"]) == (revision >= "2025-11-25")

    assert _text(s.result("get_weather", {"location": "Oslo"})).startswith("Weather in Oslo: ")
    assert "°F" in _text(s.result("get_weather", {"location": "Oslo", "units": "fahrenheit"}))
    assert _text(s.result("server_time", {})).endswith("+00:00")
    assert "Total: 7.00" in _text(s.result("create_order", ORDER))
    circle = {"shape": {"kind": "circle", "radius": 1}, "precision": 3}
    assert _text(s.result("shape_area", circle)) == "3.142"
    assert _text(s.result("divide", {"dividend": 1, "divisor": 4})) == "0.25"

    result = s.result("weather_forecast", {"location": "Oslo", "days": 2})
    if revision >= "2025-06-18":
        assert [d["date"] for d in result["structuredContent"]["days"]] == [
            "2026-01-01",
            "2026-01-02",
        ]
        assert json.loads(_text(result)) == result["structuredContent"]
    else:
        assert "structuredContent" not in result
        assert json.loads(_text(result))["location"] == "Oslo"

    chart = s.result("render_chart", {"values": [1, 3, 2], "title": "t"})["content"]
    assert chart[0]["type"] == "image" and base64.b64decode(chart[0]["data"]).startswith(b"\x89PNG")
    assert chart[1]["type"] == ("resource_link" if revision >= "2025-06-18" else "text")

    failure = s.result("divide", {"dividend": 1, "divisor": 0})
    assert failure["isError"] is True and "cannot divide by zero" in _text(failure)

    invalid = s.call("get_weather", {"location": "Oslo", "units": "kelvin"})
    if revision >= "2025-11-25":
        assert invalid["result"]["isError"] is True
        assert "units" in _text(invalid["result"]) and "kelvin" in _text(invalid["result"])
    else:
        assert invalid["error"]["code"] == -32602 and "units" in invalid["error"]["message"]
    assert s.call("no_such_tool", {})["error"]["code"] == -32602
    assert s.call("get_weather", ["Oslo"])["error"]["code"] == -32602

    # The example's prompt: listed, got with its enum argument, completed, refused when wrong.
    (briefing,) = s.c.result("prompts/list", s.params({}))["prompts"]
    assert briefing["name"] == "weather_briefing"
    assert ("title" in briefing) == (revision >= "2025-06-18")
    assert not any(k.startswith("x-") for a in briefing["arguments"] for k in a)
    got = s.c.result(
        "prompts/get",
        s.params({"name": "weather_briefing", "arguments": {"city": "Oslo", "style": "haiku"}}),
    )
    assert got["messages"][0]["content"]["text"].endswith("for Oslo, as a haiku.")
    wrong = s.c.error(
        "prompts/get",
        s.params({"name": "weather_briefing", "arguments": {"city": "Oslo", "style": "ode"}}),
    )
    assert wrong["code"] == -32602 and "'style'" in wrong["message"]
    ref = {"type": "ref/prompt", "name": "weather_briefing"}
    completed = s.c.result(
        "completion/complete", s.params({"ref": ref, "argument": {"name": "style", "value": "p"}})
    )
    assert completed["completion"]["values"] == ["plain", "pirate"]
    # The city argument has no enum: its completion handler in handlers.py answers.
    completed = s.c.result(
        "completion/complete", s.params({"ref": ref, "argument": {"name": "city", "value": "ber"}})
    )
    assert completed["completion"] == {
        "values": ["Bergen", "Berlin", "Bern"],
        "total": 3,
        "hasMore": False,
    }

    # The example's resources: a file's content, a template read and completed, not found.
    (guide,) = s.c.result("resources/list", s.params({}))["resources"]
    assert guide["uri"] == "docs://example/units" and "x-mcp-codegen-file" not in guide
    assert ("title" in guide) == (revision >= "2025-06-18")
    (station,) = s.c.result("resources/templates/list", s.params({}))["resourceTemplates"]
    assert station["uriTemplate"] == "weather://stations/{station}/latest{?units}"
    assert "x-mcp-codegen-schema" not in station
    text = s.c.result("resources/read", s.params({"uri": "docs://example/units"}))
    assert text["contents"][0]["text"].startswith("# Units")
    uri = "weather://stations/oslo-blindern/latest?units=fahrenheit"
    reading = s.c.result("resources/read", s.params({"uri": uri}))["contents"][0]
    assert reading["uri"] == uri and json.loads(reading["text"])["temperature"] == 40.1
    unknown = s.c.error("resources/read", s.params({"uri": "weather://stations/nowhere/latest"}))
    assert unknown["code"] == -32602 and "'station'" in unknown["message"]
    missing = s.c.error("resources/read", s.params({"uri": "docs://example/none"}))
    assert missing["code"] == (-32602 if revision == STATELESS else -32002)
    assert missing["data"] == {"uri": "docs://example/none"}
    ref = {"type": "ref/resource", "uri": station["uriTemplate"]}
    completed = s.c.result(
        "completion/complete", s.params({"ref": ref, "argument": {"name": "station", "value": "b"}})
    )
    assert completed["completion"]["values"] == ["bergen-florida"]
    assert s.c.close() == 0
    assert s.c.checked >= 22  # every response above was checked against the schema


mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402


async def _with_sdk(root: Path, mode: str, errlog: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "example_server"], cwd=str(root)
    )
    with errlog.open("w") as err:
        async with Client(
            stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=15
        ) as client:
            await call_every_example_tool(client, TOOLS, ORDER)


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_sdk_client_calls_every_tool(mode: str, example: Path, tmp_path: Path) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            await _with_sdk(example, mode, tmp_path / "stderr.txt")

    anyio.run(bounded)
