"""HTTP limits a client can read, against ``python -m PACKAGE --http`` on 127.0.0.1 (the
conformance project: its ``slow_job`` sleeps): a body over ``--max-body-bytes`` gets its
413 read by a client that sends the whole body first (as HTTP/1.1 clients do), not a
reset connection."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_client import HttpSession
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    build_project,
    free_port,
    http_command,
    serving,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
MIB = 1024 * 1024
LIMIT = MIB

pytestmark = [needs_shared]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(CONFORMANCE_PROJECT, tmp_path_factory.mktemp("limits"), PACKAGE)


@pytest.fixture(scope="module")
def url(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("served") / "server.log"
    command = http_command(PACKAGE, port, "--max-body-bytes", str(LIMIT))
    with serving(project, command, port, log) as served:
        yield served


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, str | None]:
    """POST the whole body, then read the answer: status, body, Connection header."""
    port = int(url.split(":")[2].split("/")[0])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/mcp", body=body, headers=headers)
    response = connection.getresponse()
    answer = (response.status, response.read(), response.getheader("connection"))
    connection.close()
    return answer


# ------------------------------------------------------------------ 413, read by the client


@pytest.mark.parametrize("size_mib", [2, 8, 24])
def test_a_body_over_the_limit_gets_a_413_the_client_reads(url: str, size_mib: int) -> None:
    session = HttpSession(url, "2025-03-26")
    headers = {**session.headers("ping", None), "Content-Type": "application/json"}
    headers["Accept"] = "application/json, text/event-stream"
    ping = b'{"jsonrpc":"2.0","id":0,"method":"ping"}'
    count = size_mib * MIB // (len(ping) + 1)
    body = b"[" + b",".join([ping] * count) + b"]"
    for _ in range(3):  # and again: nothing of the refused bodies stays behind
        status, answer, connection = _post(url, body, headers)
        assert status == 413, status
        assert f"Request body larger than {LIMIT} bytes" in json.loads(answer)["error"]["message"]
        assert connection == "close"
    # The server serves on.
    assert _post(url, ping, headers)[0] == 200


def test_a_chunked_body_over_the_limit_gets_a_413_the_client_reads(url: str) -> None:
    """No Content-Length: the limit is found while the body arrives."""
    port = int(url.split(":")[2].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n"
            b"MCP-Protocol-Version: 2025-03-26\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"x" * (256 * 1024)
        started = time.monotonic()
        for _ in range(4 * LIMIT // len(chunk)):
            client.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        client.sendall(b"0\r\n\r\n")
        reply = b""
        while time.monotonic() - started < 20:
            data = client.recv(65536)
            if not data:
                break
            reply += data
    assert reply.startswith(b"HTTP/1.1 413"), reply[:100]


# ------------------------------------------------------------------ handlers per request


def test_one_batch_runs_a_bounded_number_of_handlers_at_once(url: str) -> None:
    """A 2025-03-26 batch of slow calls runs PER_REQUEST of them at a time (the rest wait
    their turn, no task each), and a call in another POST meanwhile is not behind it."""
    import concurrent.futures

    from mcp_schemagen.runtime.session.admission import PER_REQUEST
    from tests.support.http_client import exchange

    session = HttpSession(url, "2025-03-26")
    headers = session.headers("tools/call", None)
    seconds, rounds = 0.4, 4
    calls = [
        session.message("tools/call", {"name": "slow_job", "arguments": {"seconds": seconds}})
        for _ in range(rounds * PER_REQUEST)
    ]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        started = time.monotonic()
        batch = pool.submit(exchange, url, body=calls, headers=headers, timeout=60)
        time.sleep(0.3)
        other = HttpSession(url, "2025-11-25")
        alone = time.monotonic()
        reply = other.call("slow_job", {"seconds": 0.1})
        assert reply.status == 200
        assert time.monotonic() - alone < 1.0  # not queued behind the batch
        answered = batch.result(timeout=60)
        elapsed = time.monotonic() - started
    assert answered.status == 200
    assert sorted(a["id"] for a in answered.last) == sorted(c["id"] for c in calls)
    assert all(a["result"]["content"][0]["text"] == f"slept {seconds} s" for a in answered.last)
    assert elapsed >= rounds * seconds * 0.95, elapsed  # PER_REQUEST at a time: four rounds
    assert elapsed < rounds * seconds + 5, elapsed
