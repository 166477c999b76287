"""What a generated server does with the dependencies of one end of its declared ranges,
run inside a venv holding them (tests/e2e/test_dependency_range_ends.py), standard
library only:

    python -m tests.support.range_end_checks PROJECT PACKAGE REDIS_URL

over stdio: the handshake, tools/list, a call, a call whose arguments the schema
(jsonschema-rs) refuses; over HTTP (uvicorn, httptools, uvloop, a Redis store with
redis-py): readiness, a session, a call; then the store's own checks.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REVISION = "2025-11-25"


def _initialize(request_id: Any) -> dict[str, Any]:
    params = {
        "protocolVersion": REVISION,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def _call(request_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def check_stdio(project: Path, package: str) -> None:
    messages = [
        _initialize(1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        _call(3, "test_simple_text", {}),
        _call(4, "json_schema_2020_12_tool", {"name": 42}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", package],
        cwd=project,
        input=b"".join(json.dumps(m).encode() + b"\n" for m in messages),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert replies[1]["result"]["protocolVersion"] == REVISION, replies[1]
    assert any(t["name"] == "test_simple_text" for t in replies[2]["result"]["tools"])
    assert "simple text" in replies[3]["result"]["content"][0]["text"], replies[3]
    assert replies[4]["result"]["isError"] is True, replies[4]  # name must be a string


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _request(
    port: int, method: str, body: Any = None, headers: dict[str, str] | None = None
) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    payload = None if body is None else json.dumps(body)
    connection.request(
        method, "/mcp" if body is not None else "/readyz", payload, {**sent, **(headers or {})}
    )
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


def check_http(project: Path, package: str, store: str) -> None:
    port = _free_port()
    command = [sys.executable, "-m", package, "--http", "--port", str(port), "--store", store]
    server = subprocess.Popen(command, cwd=project, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
            try:
                if _request(port, "GET")[0].status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the HTTP server did not become ready"
            time.sleep(0.1)
        response, data = _request(port, "POST", _initialize(1))
        assert response.status == 200, data
        session = {
            "Mcp-Session-Id": response.getheader("mcp-session-id"),
            "MCP-Protocol-Version": REVISION,
        }
        response, data = _request(port, "POST", _call(2, "test_simple_text", {}), session)
        assert response.status == 200 and b"simple text" in data, data
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    from tests.support.store_checks import run_all

    root, name, redis_url = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    check_stdio(root, name)
    check_http(root, name, redis_url)
    asyncio.run(run_all(redis_url))
    print("range end checks passed")
