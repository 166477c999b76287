"""The header deadline of ``python -m PACKAGE --http`` (runtime/http/deadlines.py) under
both uvicorn protocols: a connection whose request headers trickle in, on its first
request or after a keep-alive response, is closed once the deadline passes."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from mcp_schemagen.runtime.http import deadlines
from tests.support.http_server import free_port
from tests.support.paths import REPO

REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        headers = [(b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})


def _answered(connection: socket.socket) -> bool:
    seen = b""
    while not seen.endswith(b"\r\n\r\nok"):
        chunk = connection.recv(100)
        if not chunk:
            return False
        seen += chunk
    return seen.startswith(b"HTTP/1.1 200")


def _closed_while_trickling(connection: socket.socket, data: bytes) -> float | None:
    """Seconds until the server closed the connection while ``data`` came a byte every
    0.1 s; None when it stayed open."""
    started = time.monotonic()
    for byte in data:
        try:
            connection.sendall(bytes([byte]))
        except OSError:
            return time.monotonic() - started
        time.sleep(0.1)
        connection.setblocking(False)
        try:
            if connection.recv(100) == b"":
                return time.monotonic() - started
        except BlockingIOError:
            pass
        except OSError:
            return time.monotonic() - started
        finally:
            connection.setblocking(True)
    return None


@pytest.mark.parametrize("name", ["HeaderDeadlineH11", "HeaderDeadlineHttpTools"])
def test_trickling_headers_are_cut_off(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    monkeypatch.setenv("MCP_HTTP_HEADER_TIMEOUT_SECONDS", "0.5")
    deadlines.header_timeout_seconds.cache_clear()
    port = free_port()
    config = uvicorn.Config(
        _app, host="127.0.0.1", port=port, http=getattr(deadlines, name), log_level="warning",
        lifespan="off",
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        first = socket.create_connection(("127.0.0.1", port), timeout=5)
        took = _closed_while_trickling(first, REQUEST * 2)
        assert took is not None and took < 2.0, took  # ~0.5 s, not the 7 s the bytes take
        kept = socket.create_connection(("127.0.0.1", port), timeout=5)
        kept.sendall(REQUEST)  # a whole request, quickly: answered, connection kept
        assert _answered(kept)
        took = _closed_while_trickling(kept, REQUEST * 2)  # the next one trickles
        assert took is not None and took < 2.0, took
        fast = socket.create_connection(("127.0.0.1", port), timeout=5)
        fast.sendall(REQUEST)
        assert _answered(fast)
        time.sleep(1.0)  # past the deadline after a whole request: nothing armed
        fast.sendall(REQUEST)
        assert _answered(fast)
        for connection in (first, kept, fast):
            connection.close()
    finally:
        server.should_exit = True
        thread.join(10)
        deadlines.header_timeout_seconds.cache_clear()


def test_the_httptools_protocol_needs_no_h11() -> None:
    """A worker unpickling uvicorn's settings makes only the class it serves with: one
    serving with httptools imports neither h11 nor uvicorn's h11 protocol."""
    probe = (
        "import pickle, sys\n"
        "from mcp_schemagen.runtime.http import deadlines\n"
        "made = pickle.loads(pickle.dumps(deadlines.protocol_class()))\n"
        "assert made.__name__ == 'HeaderDeadlineHttpTools', made\n"
        "assert made is deadlines.HeaderDeadlineHttpTools\n"
        "assert 'h11' not in sys.modules, 'h11 imported'\n"
        "assert deadlines.HeaderDeadlineH11.__name__ == 'HeaderDeadlineH11'\n"
        "assert 'h11' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, cwd=REPO, timeout=60)


class _Recording(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.closed = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return ("127.0.0.1", 1) if name == "peername" else default


def test_writes_of_one_loop_pass_leave_in_one_send() -> None:
    async def scenario() -> None:
        raw = _Recording()
        coalescing = deadlines.Coalescing(raw)
        coalescing.write(b"HTTP/1.1 200 OK\r\n\r\n")  # the head, then the body: one send
        coalescing.write(b"body")
        assert raw.sent == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        coalescing.write(b"head of a stream")  # nothing follows in this pass: sent at its end
        assert raw.sent == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
        await asyncio.sleep(0)
        assert raw.sent[1:] == [b"head of a stream"]
        coalescing.write(b"last words")  # closing sends what is held first
        coalescing.close()
        assert raw.sent[2:] == [b"last words"] and raw.closed and coalescing.is_closing()
        assert coalescing.get_extra_info("peername") == ("127.0.0.1", 1)
        await asyncio.sleep(0)
        assert len(raw.sent) == 3  # the end of the pass sends nothing twice
        raw.sent.clear()
        large = b"x" * (1 << 20)
        lost = deadlines.Coalescing(raw)
        lost.write(b"head")
        lost.write(large)  # not copied to join the head
        assert raw.sent == [b"head", large]
        lost.write(b"held when the client left")
        await asyncio.sleep(0)
        assert raw.sent == [b"head", large]  # closed (the close above): not written
        raw.closed = False
        raw.sent.clear()
        ordered = deadlines.Coalescing(raw)
        ordered.write(b"head ")
        ordered.writelines([b"body ", b"in parts"])  # after what is held, never before it
        assert raw.sent == [b"head body in parts"]

    asyncio.run(scenario())
