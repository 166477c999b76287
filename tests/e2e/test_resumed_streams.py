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
from typing import Any

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
from tests.support.stdio_conversation import STATELESS

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
            # And 2026-07-28 calls, past a lease check (every stream waits again): fast,
            # not behind the streams' reads (they share one Redis connection).
            await asyncio.sleep(2.5)
            client = HttpSession(url, STATELESS)
            took = []
            for _ in range(3):
                started = time.monotonic()
                stateless = await asyncio.to_thread(client.call, "test_simple_text", {})
                assert stateless.status == 200 and "result" in stateless.last
                took.append(time.monotonic() - started)
                await asyncio.sleep(0.7)
            print(f"2026-07-28 calls beside {STREAMS} streams: {took}")
            assert max(took) < 0.3, took
        finally:
            for writer, _ in [*opened, (poster, b"")]:
                writer.close()
            for writer, _ in opened:
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

    asyncio.run(scenario())
    assert session.request("ping").status == 200
    assert "Traceback" not in log.read_text()


def _redis_clients(store: str) -> int:
    """Clients connected to the test's Redis (CLIENT LIST), this count's own excluded."""
    import redis

    client = redis.Redis.from_url(store)
    try:
        return len(client.client_list()) - 1
    finally:
        client.close()


def _sockets(pid: int) -> int:
    return sum(1 for fd in Path(f"/proc/{pid}/fd").iterdir() if "socket" in str(fd.readlink()))


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc")


def _until(condition: Any, within: float) -> bool:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def test_held_streams_keep_calls_fast_and_give_everything_back(tmp_path: Path) -> None:
    """200 resumed streams on one process: a 2026-07-28 call and a session's requests made
    meanwhile answer promptly, and once the streams end the process holds no more Redis
    connections (CLIENT LIST) nor sockets than before they opened."""
    import subprocess

    streams = 200
    root = build_project(CONFORMANCE_PROJECT, tmp_path, PACKAGE)
    with redis_server(tmp_path / "redis") as store:
        port = free_port()
        log = tmp_path / "server.log"
        with serving(root, http_command(PACKAGE, port, "--store", store), port, log) as url:
            listing = subprocess.run(
                ["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=True
            ).stdout
            pid = int(listing.split("pid=")[1].split(",")[0])
            session = HttpSession(url, "2025-11-25")
            stateless = HttpSession(url, STATELESS)
            base = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **session.headers("tools/call", None),
            }

            def held(count: int, seconds: float) -> None:
                params = {
                    "name": "slow_job", "arguments": {"seconds": seconds},
                    "_meta": {"progressToken": 1},
                }  # fmt: skip
                call = session.message("tools/call", params)

                async def scenario() -> None:
                    post = _request("POST", port, base, json.dumps(call).encode())
                    poster, head = await _head(port, post, b"\nretry: ")
                    found = re.search(rb"(?m)^id: (\S+)$", head.split(b"\r\n\r\n", 1)[1])
                    assert found is not None, head
                    get = _request("GET", port, {**base, "Last-Event-ID": found.group(1).decode()})
                    opened = await asyncio.gather(
                        *(_head(port, get, b"\r\n\r\n") for _ in range(count))
                    )
                    try:
                        assert all(h.startswith(b"HTTP/1.1 200") for _, h in opened)
                        await asyncio.sleep(2.5)  # past a lease check: every stream waits again
                        for _ in range(3):
                            started = time.monotonic()
                            reply = await asyncio.to_thread(stateless.call, "test_simple_text", {})
                            assert reply.status == 200 and "result" in reply.last
                            took = time.monotonic() - started
                            assert took < 1.0, took
                            started = time.monotonic()
                            assert (await asyncio.to_thread(session.request, "ping")).status == 200
                            assert time.monotonic() - started < 1.0
                            await asyncio.sleep(0.5)
                    finally:
                        for writer, _ in [*opened, (poster, b"")]:
                            writer.close()

                asyncio.run(scenario())

            held(5, 6)  # warm: what a few streams open stays open
            time.sleep(7)
            baseline = (_redis_clients(store), _sockets(pid))
            rss = _rss(pid)
            held(streams, 6)
            clients, sockets = baseline
            back = _until(lambda: _redis_clients(store) <= clients and _sockets(pid) <= sockets, 20)
            grown = (_rss(pid) - rss) / (1024 * 1024)
            print(f"{streams} streams held and ended: RSS {grown:+.1f} MiB")
            # Measured: +5 MiB (+11 when each stream had a connection of its own).
            assert grown < 10, grown
            assert back, (
                baseline,
                (_redis_clients(store), _sockets(pid)),
            )
    assert "Traceback" not in log.read_text()
