"""Interactive tools of the embedded example with the official SDK client, over stdio and
over Streamable HTTP.

The client (mcp 2.3.0) answers with its sampling, elicitation and roots callbacks, in a
session revision (the initialize handshake: the server sends it JSON-RPC requests) and in
2026-07-28 mode (the server answers input_required; the client retries with the answers).
The same handler bodies serve both.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.http_server import free_port, http_command, serving
from tests.support.paths import SHARED_SPECS
from tests.support.projects import build_embedded_example

pytestmark = [
    pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs"),
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]

mcp = pytest.importorskip("mcp")
from mcp import Client, types  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

MODES = ["legacy", "2026-07-28"]
TRANSPORTS = ["stdio", "http"]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("interactive"))


@pytest.fixture(scope="module")
def http_url(example: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("interactive-http") / "server.log"
    with serving(example, http_command("example_server", port), port, log) as url:
        yield url


@pytest.fixture(params=TRANSPORTS)
def server(request: pytest.FixtureRequest, example: Path) -> Any:
    """Where the client connects: the example over stdio, or its HTTP endpoint."""
    if request.param == "stdio":
        return example
    return request.getfixturevalue("http_url")


class User:
    """The person and model behind the client: records each question, answers it."""

    def __init__(self, *, confirm: bool = True) -> None:
        self.confirm = confirm
        self.elicited: list[dict[str, Any]] = []
        self.sampled: list[dict[str, Any]] = []
        self.roots_asked = 0

    async def elicit(self, context: Any, params: Any) -> types.ElicitResult:
        asked = params.model_dump(by_alias=True, exclude_none=True)
        self.elicited.append(asked)
        fields = asked["requestedSchema"]["properties"]
        if "confirm" in fields:
            return types.ElicitResult(action="accept", content={"confirm": self.confirm})
        if "traveller" in fields:
            return types.ElicitResult(
                action="accept", content={"traveller": "Grace", "nights": 2, "cabin": "business"}
            )
        if "book" in fields:
            return types.ElicitResult(action="accept", content={"book": True})
        return types.ElicitResult(action="decline")

    async def sample(self, context: Any, params: Any) -> types.CreateMessageResult:
        self.sampled.append(params.model_dump(by_alias=True, exclude_none=True))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Mild and dry all week."),
            model="test-model",
            stopReason="endTurn",
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        self.roots_asked += 1
        return types.ListRootsResult(
            roots=[
                types.Root(uri="file:///home/ada/trips", name="trips"),
                types.Root(uri="file:///home/ada/notes.md"),
            ]
        )


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


async def _session(
    server: Path | str, mode: str, errlog: Path, user: User | None, body: Any
) -> None:
    callbacks: dict[str, Any] = {}
    if user is not None:
        callbacks = {
            "elicitation_callback": user.elicit,
            "sampling_callback": user.sample,
            "list_roots_callback": user.roots,
        }
    with errlog.open("w") as err, anyio.fail_after(60):
        if isinstance(server, str):
            target: Any = server  # the HTTP endpoint's URL
        else:
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "example_server"], cwd=str(server)
            )
            target = stdio_client(params, errlog=err)
        async with Client(target, mode=mode, read_timeout_seconds=15, **callbacks) as client:
            await body(client)


def _run(server: Path | str, tmp_path: Path, mode: str, user: User | None, body: Any) -> None:
    anyio.run(_session, server, mode, tmp_path / "stderr.txt", user, body)


@pytest.mark.parametrize("mode", MODES)
def test_elicitation_confirms_before_acting(mode: str, server: Any, tmp_path: Path) -> None:
    yes, no = User(confirm=True), User(confirm=False)

    async def confirmed(client: Any) -> None:
        result = await client.call_tool("cancel_order", {"order_id": "A-17"})
        assert not result.is_error and _text(result) == "Order A-17 cancelled."

    async def refused(client: Any) -> None:
        result = await client.call_tool("cancel_order", {"order_id": "A-17"})
        assert _text(result) == "Order A-17 kept (accept)."

    _run(server, tmp_path, mode, yes, confirmed)
    _run(server, tmp_path, mode, no, refused)
    (asked,) = yes.elicited
    assert asked["message"] == "Cancel order A-17? This cannot be undone."
    assert asked["requestedSchema"]["required"] == ["confirm"]
    assert asked["requestedSchema"]["properties"]["confirm"]["default"] is False


@pytest.mark.parametrize("mode", MODES)
def test_sampling_and_roots(mode: str, server: Any, tmp_path: Path) -> None:
    user = User()

    async def body(client: Any) -> None:
        summary = await client.call_tool("summarize_forecast", {"location": "Oslo", "days": 2})
        assert _text(summary) == "Mild and dry all week. (summarized by test-model)"
        workspace = await client.call_tool("list_workspace", {})
        assert (
            _text(workspace)
            == "trips: file:///home/ada/trips\nfile:///home/ada/notes.md: file:///home/ada/notes.md"
        )

    _run(server, tmp_path, mode, user, body)
    (sampled,) = user.sampled
    assert sampled["maxTokens"] == 100 and sampled["systemPrompt"].startswith("You are a concise")
    assert "Oslo" in sampled["messages"][0]["content"]["text"]
    assert user.roots_asked == 1


@pytest.mark.parametrize("mode", MODES)
def test_two_rounds_with_two_questions_at_once(mode: str, server: Any, tmp_path: Path) -> None:
    user = User()

    async def body(client: Any) -> None:
        result = await client.call_tool("plan_trip", {"destination": "Lisbon"})
        assert _text(result) == (
            "Booked 2 nights in Lisbon for Grace, business class. Pack: Mild and dry all week."
        )

    _run(server, tmp_path, mode, user, body)
    assert [e["message"] for e in user.elicited] == [
        "Your trip to Lisbon",
        "Book 2 nights in Lisbon for Grace?",
    ]
    fields = user.elicited[0]["requestedSchema"]["properties"]
    assert fields["cabin"]["oneOf"][1] == {"const": "business", "title": "Business"}
    assert fields["meal"]["enumNames"] == ["Anything", "Vegetarian"]
    assert fields["nights"]["default"] == 3
    assert len(user.sampled) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_client_without_the_capability_is_not_asked(
    mode: str, server: Any, tmp_path: Path
) -> None:
    async def body(client: Any) -> None:
        if mode == "legacy":
            result = await client.call_tool("cancel_order", {"order_id": "A-17"})
            assert result.is_error
            assert "does not support elicitation" in _text(result)
        else:
            with pytest.raises(MCPError) as refused:
                await client.call_tool("cancel_order", {"order_id": "A-17"})
            assert refused.value.error.code == -32021
            assert refused.value.error.data == {"requiredCapabilities": {"elicitation": {}}}

    _run(server, tmp_path, mode, None, body)
