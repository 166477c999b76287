"""What a client sends arrives as it was sent, on both transports: integers beyond 64 bits
(arguments, request ids, results) stay exact, and in 2026-07-28 the context's client
capabilities are the request's own (``_meta``), not the connection's."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_client import exchange
from tests.support.http_server import free_port, http_command, serving
from tests.support.projects import tool, write_project

STATELESS = "2026-07-28"
BIG = 2**70 + 1  # beyond 64 bits, and odd: a float cannot hold it
HANDLERS = '''
"""Handlers that answer with what they received."""

from __future__ import annotations

import json

from .api import get_context
from .types import BumpOutput


# mcp-codegen tool: "bump"
def bump(*, n: int) -> BumpOutput:
    return {"n": n + 1, "kind": type(n).__name__}


# mcp-codegen tool: "capabilities"
async def capabilities() -> str:
    return json.dumps(get_context().client_capabilities, sort_keys=True)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "kind": {"type": "string"}},
        "required": ["n", "kind"],
    }
    bump = tool(
        "bump",
        inputSchema={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
        outputSchema=output,
    )
    empty = {"type": "object", "properties": {}}
    root = write_project(
        tmp_path_factory.mktemp("exact") / "p",
        {"bump.json": bump, "capabilities.json": tool("capabilities", inputSchema=empty)},
        revisions=("2025-11-25", STATELESS),
    )
    (root / "server").mkdir()
    (root / "server" / "handlers.py").write_text(HANDLERS.lstrip(), encoding="utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", "build", "-q", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    return root


def _meta(capabilities: dict[str, Any]) -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }


def _call(request_id: Any, name: str, arguments: dict[str, Any], caps: dict[str, Any]) -> Any:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": _meta(caps)},
    }


Send = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _stdio(project: Path) -> Send:
    def send(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        served = subprocess.run(
            [sys.executable, "-m", "server"],
            cwd=project,
            input="".join(json.dumps(m) + "\n" for m in messages),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert served.returncode == 0, served.stderr
        return [json.loads(line) for line in served.stdout.splitlines()]

    return send


@pytest.fixture(params=["stdio", "http"])
def send(request: pytest.FixtureRequest, project: Path, tmp_path: Path) -> Iterator[Send]:
    if request.param == "stdio":
        yield _stdio(project)
        return
    port = free_port()
    with serving(project, http_command("server", port), port, tmp_path / "log") as url:

        def post(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            replies = []
            for message in messages:
                if "_meta" not in message.get("params", {}):
                    continue  # each HTTP request stands alone: no connection to initialize
                headers = {
                    "MCP-Protocol-Version": STATELESS,
                    "Mcp-Method": message["method"],
                    "Mcp-Name": message["params"]["name"],
                }
                reply = exchange(url, body=message, headers=headers)
                replies += [m for m in reply.messages if "id" in m]
            return replies

        yield post


def test_integers_beyond_64_bits_arrive_and_leave_exact(send: Send) -> None:
    replies = send(
        [
            _call(BIG, "bump", {"n": BIG}, {}),
            _call(7, "bump", {"n": -BIG}, {}),
            _call(-BIG, "missing-tool", {}, {}),
        ]
    )
    by_id = {reply["id"]: reply for reply in replies}
    assert set(by_id) == {BIG, 7, -BIG}, replies
    first = by_id[BIG]["result"]
    assert first["structuredContent"] == {"n": BIG + 1, "kind": "int"}, first
    assert json.loads(first["content"][0]["text"]) == {"n": BIG + 1, "kind": "int"}
    assert by_id[7]["result"]["structuredContent"] == {"n": -BIG + 1, "kind": "int"}
    unknown = by_id[-BIG]
    assert "error" in unknown or unknown["result"]["isError"] is True, unknown


def test_a_2026_request_reads_its_own_client_capabilities(send: Send) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {}},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    asked = [
        _call(1, "capabilities", {}, {"sampling": {}}),
        _call(2, "capabilities", {}, {}),
        _call(3, "capabilities", {}, {"elicitation": {"form": {}}}),
    ]
    replies = send([initialize, initialized, *asked])
    texts = {r["id"]: r["result"]["content"][0]["text"] for r in replies if r["id"] in (1, 2, 3)}
    assert texts == {
        1: '{"sampling": {}}',
        2: "{}",
        3: '{"elicitation": {"form": {}}}',
    }
