"""1,000 resumed streams at once on one server process with the Redis store: every
``GET`` with ``Last-Event-ID`` gets 200 and follows the stream, while the session's other
requests to that process keep being answered promptly."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_client import HttpSession
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    build_project,
    free_port,
    http_command,
    redis_server,
    serving,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
STREAMS = 1000
pytestmark = [
    needs_shared,
    pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (Debian redis-server)"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    folder = tmp_path_factory.mktemp("resumed")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    with redis_server(folder / "redis") as store:
        port = free_port()
        log = folder / "server.log"
        with serving(root, http_command(PACKAGE, port, "--store", store), port, log) as url:
            yield url, port, log


async def _head(port: int, request: bytes, until: bytes) -> tuple[asyncio.StreamWriter, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    seen = b""
    while until not in seen:
        chunk = await asyncio.wait_for(reader.read(65536), 60)
        if not chunk:
            break
        seen += chunk
    return writer, seen


def _request(method: str, port: int, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} /mcp HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines += [f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


def test_a_thousand_resumed_streams_while_the_session_is_served(
    served: tuple[str, int, Path],
) -> None:
    url, port, log = served
    session = HttpSession(url, "2025-11-25")
    base = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **session.headers("tools/call", None),
    }
    params = {"name": "slow_job", "arguments": {"seconds": 20}, "_meta": {"progressToken": 1}}
    call = session.message("tools/call", params)  # its progress notification opens a stream

    async def scenario() -> None:
        # A call whose stream stays open: its priming event names the stream.
        post = _request("POST", port, base, json.dumps(call).encode())
        poster, head = await _head(port, post, b"\nretry: ")
        assert head.startswith(b"HTTP/1.1 200"), head[:300]
        found = re.search(rb"(?m)^id: (\S+)$", head.split(b"\r\n\r\n", 1)[1])
        assert found is not None, head
        event_id = found.group(1).decode()
        assert event_id.endswith("/0")
        get = _request("GET", port, {**base, "Last-Event-ID": event_id})
        opened = await asyncio.gather(*(_head(port, get, b"\r\n\r\n") for _ in range(STREAMS)))
        try:
            statuses = [head.split(b" ", 2)[1] for _, head in opened]
            assert statuses == [b"200"] * STREAMS, set(statuses)
            # The session's requests to this process are answered meanwhile, promptly.
            for method in ("ping", "tools/list"):
                started = time.monotonic()
                reply = await asyncio.to_thread(session.request, method)
                assert reply.status == 200, reply
                assert time.monotonic() - started < 3.0, (method, time.monotonic() - started)
            started = time.monotonic()
            simple = await asyncio.to_thread(session.call, "test_simple_text", {})
            assert simple.status == 200 and "result" in simple.last
            assert time.monotonic() - started < 3.0
        finally:
            for writer, _ in [*opened, (poster, b"")]:
                writer.close()
            for writer, _ in opened:
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

    asyncio.run(scenario())
    assert session.request("ping").status == 200
    assert "Traceback" not in log.read_text()
