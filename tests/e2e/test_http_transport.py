"""The embedded example served over Streamable HTTP by ``python -m example_server --http``.

Every reply body is the message stdio sends for the same request (compared one by one)
and exactly a message of that revision's schema; the transport's own rules (sessions,
headers, security) answer with the statuses the spec names; the official SDK client, in
its legacy and 2026-07-28 modes, calls every tool; and the same app runs under granian.
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.http_client import HttpSession, exchange
from tests.support.http_server import free_port, http_command, serving
from tests.support.paths import SHARED_SPECS
from tests.support.projects import EXAMPLE, build_embedded_example
from tests.support.sdk_calls import call_every_example_tool
from tests.support.stdio_conversation import STATELESS, Conversation, meta

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")

TOOLS = sorted(p.stem for p in (EXAMPLE / "tools").iterdir())
ORDER = {
    "customer": {"name": "Ada", "email": "ada@example.com"},
    "items": [{"sku": "tea", "quantity": 2, "unit_price": 3.5}],
}
HTTP_REVISIONS = ("2025-03-26", "2025-06-18", "2025-11-25", STATELESS)
MAX_BODY = 20_000


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("example"))


@pytest.fixture(scope="module")
def url(example: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "server.log"
    command = http_command(
        "example_server", port, "--max-body-bytes", str(MAX_BODY),
        "--allowed-origin", "https://app.example.com",
    )  # fmt: skip
    with serving(example, command, port, log) as endpoint:
        yield endpoint


# ------------------------------------------------------------------ same message as stdio

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("tools/list", {}),
    ("tools/call", {"name": "get_weather", "arguments": {"location": "Oslo"}}),
    ("tools/call", {"name": "weather_forecast", "arguments": {"location": "Oslo", "days": 2}}),
    ("tools/call", {"name": "render_chart", "arguments": {"values": [1, 2]}}),
    ("tools/call", {"name": "divide", "arguments": {"dividend": 1, "divisor": 0}}),
    ("tools/call", {"name": "get_weather", "arguments": {"location": ""}}),
    ("tools/call", {"name": "no_such_tool", "arguments": {}}),
]


@pytest.mark.parametrize("revision", HTTP_REVISIONS)
def test_every_reply_is_the_message_stdio_sends(
    revision: str, url: str, example: Path, tmp_path: Path
) -> None:
    http = HttpSession(url, revision)
    stdio = Conversation(example, "example_server", revision, tmp_path / "stderr.txt")
    try:
        if revision != STATELESS:
            stdio.result("initialize", http.initialize_params())
            stdio.notify("notifications/initialized")
        for method, params in REQUESTS:
            reply = http.request(method, params)
            assert reply.status == 200 and len(reply.messages) == 1, reply
            over_http = reply.last
            wanted = dict(params, _meta=meta()) if revision == STATELESS else params
            over_stdio = stdio.request(method, wanted)
            over_http.pop("id"), over_stdio.pop("id")
            assert over_http == over_stdio
        # each reply (initialize included) was checked against the schema
        assert http.checker.checked == len(REQUESTS) + (revision != STATELESS)
    finally:
        stdio.kill()


# ------------------------------------------------------------------ sessions


def test_session_rules(url: str) -> None:
    session = HttpSession(url, "2025-11-25")
    sid = session.session_id
    assert sid is not None and len(sid) >= 22  # >= 128 bits in URL-safe base64
    assert re.fullmatch(r"[\x21-\x7e]+", sid)
    assert HttpSession(url, "2025-11-25").session_id != sid

    missing = exchange(url, body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert missing.status == 400
    unknown = session.request("tools/list", headers={"Mcp-Session-Id": "no-such-session"})
    assert unknown.status == 404
    wrong_version = session.request("tools/list", headers={"MCP-Protocol-Version": "2025-06-18"})
    assert wrong_version.status == 400
    bad_version = session.request("tools/list", headers={"MCP-Protocol-Version": "1999-01-01"})
    assert bad_version.status == 400
    headers = session.headers("ping", None)
    assert exchange(url, "GET", headers=headers).status == 405  # nothing pushed outside a call
    cancelled = session.notify("notifications/cancelled", {"requestId": 99})
    assert (cancelled.status, cancelled.body) == (202, b"")
    response = exchange(url, body={"jsonrpc": "2.0", "id": 5, "result": {}}, headers=headers)
    assert response.status == 202
    assert session.request("logging/setLevel", {"level": "error"}).last["result"] == {}

    assert exchange(url, "DELETE", headers=headers).status == 200
    assert session.request("tools/list").status == 404
    assert exchange(url, "DELETE", headers=headers).status == 404


def test_batches_only_in_2025_03_26(url: str) -> None:
    for revision, allowed in (("2025-03-26", True), ("2025-06-18", False)):
        session = HttpSession(url, revision)
        batch = [session.message("ping"), session.message("tools/list")]
        reply = exchange(url, body=batch, headers=session.headers("ping", None))
        assert reply.status == 200
        if allowed:
            assert [m["id"] for m in reply.last] == [batch[0]["id"], batch[1]["id"]]
        else:
            assert reply.last["error"]["code"] == -32600


# ------------------------------------------------------------------ 2026-07-28


def test_stateless_rules(url: str) -> None:
    client = HttpSession(url, STATELESS)
    listed = client.request("tools/list")
    assert listed.status == 200 and "mcp-session-id" not in listed.headers
    honoured = client.request("tools/list", headers={"Mcp-Session-Id": "anything"})
    assert honoured.status == 200 and "mcp-session-id" not in honoured.headers

    def error(reply: Any) -> tuple[int, int]:
        return reply.status, reply.last["error"]["code"]

    assert error(client.request("tools/list", headers={"MCP-Protocol-Version": "2025-11-25"})) == (
        400,
        -32020,
    )
    unsupported = client.request(
        "tools/list",
        {"_meta": meta("2099-01-01")},
        headers={"MCP-Protocol-Version": "2099-01-01"},
    )
    assert error(unsupported) == (400, -32022)
    assert STATELESS in unsupported.last["error"]["data"]["supported"]
    assert error(client.request("ping")) == (404, -32601)
    assert error(client.request("tools/list", headers={"Mcp-Method": "tools/call"})) == (
        400,
        -32020,
    )
    call = {"name": "get_weather", "arguments": {"location": "Oslo"}}
    assert error(client.request("tools/call", call, headers={"Mcp-Name": "divide"})) == (
        400,
        -32020,
    )
    encoded = client.request(
        "tools/call", call, headers={"Mcp-Name": "=?base64?Z2V0X3dlYXRoZXI=?="}
    )
    assert encoded.status == 200 and "Oslo" in encoded.last["result"]["content"][0]["text"]
    no_meta = exchange(
        url,
        body={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"MCP-Protocol-Version": STATELESS, "Mcp-Method": "tools/list"},
    )
    assert error(no_meta) == (400, -32602)
    stateless_headers = {"MCP-Protocol-Version": STATELESS}
    assert exchange(url, "GET", headers=stateless_headers).status == 405
    assert exchange(url, "DELETE", headers=stateless_headers).status == 405


# ------------------------------------------------------------------ security and HTTP


def test_host_origin_size_and_media_types(url: str) -> None:
    client = HttpSession(url, STATELESS)
    assert client.request("tools/list", headers={"Host": "evil.example:80"}).status == 421
    assert client.request("tools/list", headers={"Host": "localhost:1"}).status == 200
    assert client.request("tools/list", headers={"Origin": "https://evil.example"}).status == 403
    assert client.request("tools/list", headers={"Origin": "null"}).status == 403
    assert client.request("tools/list", headers={"Origin": "https://app.example.com"}).status == 200
    assert client.request("tools/list", headers={"Origin": "http://localhost:3000"}).status == 200
    big = client.message("tools/list")
    big["params"]["padding"] = "x" * MAX_BODY
    assert exchange(url, body=big, headers=client.headers("tools/list", None)).status == 413
    assert client.request("tools/list", headers={"Content-Type": "text/plain"}).status == 415
    assert client.request("tools/list", headers={"Accept": "text/html"}).status == 406
    only_sse = client.request("tools/list", headers={"Accept": "text/event-stream"})
    assert (
        only_sse.headers["content-type"] == "text/event-stream"
        and "tools" in only_sse.last["result"]
    )
    only_json = client.request("tools/list", headers={"Accept": "application/json"})
    assert only_json.headers["content-type"] == "application/json"
    assert exchange(url.replace("/mcp", "/other"), body={}).status == 404
    assert exchange(url, "PUT", body={}).status == 405
    assert exchange(url, raw=b"{not json").last["error"]["code"] == -32700
    assert exchange(url.replace("/mcp", "/healthz"), "GET").status == 200


def test_help_lists_the_options_and_unknown_ones_are_errors(example: Path) -> None:
    import subprocess

    shown = subprocess.run(
        [sys.executable, "-m", "example_server", "--help"],
        cwd=example, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert shown.returncode == 0
    for option in ("--http", "--host", "--port", "--workers", "--path", "--store", "stdio"):
        assert option in shown.stdout
    for wrong in (["--bogus"], ["--port", "9"], ["--http", "--host", "0.0.0.0"]):
        failed = subprocess.run(
            [sys.executable, "-m", "example_server", *wrong],
            cwd=example, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert failed.returncode == 2 and "error:" in failed.stderr, wrong


# ------------------------------------------------------------------ real clients

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402


async def _sdk(url: str, mode: str) -> None:
    async with Client(url, mode=mode, read_timeout_seconds=15) as client:
        await call_every_example_tool(client, TOOLS, ORDER)


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_sdk_client_over_http_calls_every_tool(mode: str, url: str) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            await _sdk(url, mode)

    anyio.run(bounded)


@pytest.mark.skipif(
    shutil.which("granian") is None and not (Path(sys.executable).parent / "granian").exists(),
    reason="granian is not installed",
)
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_the_app_runs_under_granian(example: Path, tmp_path: Path) -> None:
    port = free_port()
    granian = str(Path(sys.executable).parent / "granian")
    command = [
        granian, "--interface", "asgi", "--host", "127.0.0.1", "--port", str(port),
        "example_server.asgi:app",
    ]  # fmt: skip
    with serving(example, command, port, tmp_path / "granian.log") as endpoint:

        async def bounded() -> None:
            with anyio.fail_after(60):
                await _sdk(endpoint, "legacy")
                await _sdk(endpoint, "2026-07-28")

        anyio.run(bounded)
