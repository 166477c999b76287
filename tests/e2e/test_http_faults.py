"""Streamable HTTP under hostile and faulty clients, against ``python -m PACKAGE --http``
on 127.0.0.1 (the conformance project: its ``slow_job`` sleeps and reports progress).

- Bounded work: one bound on running requests per process, for batch members and
  separate POSTs alike; a batch of pings as large as the body limit admits stays within
  the memory bound docs/how-to/http-and-deployment.md states.
- Slow clients: headers or a body sent a byte at a time are cut off at their deadlines.
- Protocol errors: a session POST that is no valid message gets 400 with the error stdio
  sends; GET and DELETE check ``MCP-Protocol-Version`` as POST does; parse errors and
  Invalid Request say where; arguments nested too deep are invalid arguments.
- Start-up: one line on stderr, access logs only when asked for.
"""

from __future__ import annotations

import concurrent.futures
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.http_client import HttpSession, exchange
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    build_project,
    free_port,
    http_command,
    serving,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
BOUND = 3
MIB = 1024 * 1024
# docs/how-to/http-and-deployment.md ("Bounded work over HTTP"): the peak RSS of a server answering the largest batches
# the default body limit (4 MiB) and the batch limit admit.
MEMORY_BOUND_MIB = 200
MAX_BATCH = 10_000  # core/envelope.py

pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        not Path("/proc/self/status").exists(), reason="reads peak memory from /proc"
    ),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(CONFORMANCE_PROJECT, tmp_path_factory.mktemp("faults"), PACKAGE)


class Served:
    def __init__(self, url: str, port: int, log: Path) -> None:
        self.url = url
        self.port = port
        self.log = log


@pytest.fixture(scope="module")
def served(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    port = free_port()
    log = tmp_path_factory.mktemp("served") / "server.log"
    command = http_command(
        PACKAGE, port, "--max-concurrent-requests", str(BOUND),
        "--header-timeout", "1", "--body-timeout", "1",
    )  # fmt: skip
    with serving(project, command, port, log) as url:
        yield Served(url, port, log)


def _pid(port: int) -> int:
    """The process listening on ``port`` (ss -ltnp)."""
    listing = subprocess.run(
        ["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=True
    ).stdout
    return int(listing.split("pid=")[1].split(",")[0])


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc")


def _slow(session: HttpSession, seconds: float) -> dict[str, Any]:
    return session.message("tools/call", {"name": "slow_job", "arguments": {"seconds": seconds}})


# ------------------------------------------------------------------ bounded work


def test_one_bound_on_running_requests_for_batch_members_and_separate_posts(
    served: Served,
) -> None:
    session = HttpSession(served.url, "2025-03-26")
    headers = session.headers("tools/call", None)
    batch = [_slow(session, 0.5) for _ in range(3 * BOUND)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        started = time.monotonic()
        waiting = pool.submit(exchange, served.url, body=batch, headers=headers)
        time.sleep(0.2)
        # Every slot is taken: a ping still passes at once.
        ping = exchange(served.url, body=session.message("ping"), headers=headers)
        assert ping.status == 200 and ping.last["result"] == {}
        assert time.monotonic() - started < 1.2  # not behind the batch (1.5 s)
        reply = waiting.result(timeout=30)
        elapsed = time.monotonic() - started
    assert reply.status == 200
    answers = reply.last
    assert sorted(a["id"] for a in answers) == sorted(m["id"] for m in batch)
    assert all(a["result"]["content"][0]["text"] for a in answers)
    assert elapsed >= 3 * 0.5, elapsed  # BOUND at a time: three rounds, not one

    # Separate POSTs (two revisions) share the process's bound.
    other = HttpSession(served.url, "2025-11-25")
    with concurrent.futures.ThreadPoolExecutor(2 * BOUND) as pool:
        started = time.monotonic()
        calls = [
            pool.submit(client.call, "slow_job", {"seconds": 0.5})
            for client in (session, other)
            for _ in range(BOUND)
        ]
        assert all(c.result(timeout=30).status == 200 for c in calls)
        elapsed = time.monotonic() - started
    assert elapsed >= 2 * 0.5, elapsed


def _batch(member: bytes, count: int) -> bytes:
    return b"[" + b",".join([member] * count) + b"]"


def test_batches_as_large_as_the_limits_admit_stay_within_the_memory_bound(
    project: Path, tmp_path: Path
) -> None:
    ping = b'{"jsonrpc":"2.0","id":0,"method":"ping"}'
    tools_list = b'{"jsonrpc":"2.0","id":0,"method":"tools/list"}'
    most = (4 * MIB - 2) // (len(ping) + 1)  # pings in the default body limit
    port = free_port()
    with serving(project, http_command(PACKAGE, port), port, tmp_path / "log") as url:
        session = HttpSession(url, "2025-03-26")
        headers = session.headers("ping", None)
        pid = _pid(port)
        before = peak_rss(pid)
        # The largest batch admitted: MAX_BATCH pings, each answered.
        reply = exchange(url, raw=_batch(ping, MAX_BATCH), headers=headers, timeout=120)
        assert reply.status == 200 and len(reply.last) == MAX_BATCH
        assert reply.last[0] == {"jsonrpc": "2.0", "id": 0, "result": {}}
        # The costliest replies a batch can ask for: tools/list pages.
        reply = exchange(url, raw=_batch(tools_list, MAX_BATCH), headers=headers, timeout=120)
        assert reply.status == 200 and len(reply.last) == MAX_BATCH
        # Bodies at the size limit holding more members: one error, nothing handled.
        for member in (ping, b"{}", b"1"):
            count = (4 * MIB - 2) // (len(member) + 1)
            reply = exchange(url, raw=_batch(member, count), headers=headers, timeout=120)
            assert reply.status == (200 if member == ping else 400), reply.status  # as stdio
            assert reply.last["error"]["data"] == {"members": count, "limit": MAX_BATCH}
        peak = peak_rss(pid)
    print(f"{most} pings fit the body limit; peak RSS {before / MIB:.1f} -> {peak / MIB:.1f} MiB")
    assert peak < MEMORY_BOUND_MIB * MIB, (before / MIB, peak / MIB)


# ------------------------------------------------------------------ slow clients


def test_slow_headers_and_bodies_are_cut_off_at_their_deadlines(served: Served) -> None:
    session = HttpSession(served.url, "2025-11-25")
    message = json.dumps(session.message("ping")).encode()
    headers = "".join(f"{k}: {v}\r\n" for k, v in session.headers("ping", None).items())
    request = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
        f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        f"{headers}Content-Length: {len(message)}\r\n\r\n"
    ).encode()
    # 50 clients send the headers a byte at a time, 50 the body (after whole headers).
    clients = [socket.create_connection(("127.0.0.1", served.port), timeout=10) for _ in range(100)]
    for client in clients[50:]:
        client.sendall(request)
    started = time.monotonic()
    sent = 0
    open_clients = set(range(100))
    answers: dict[int, bytes] = {}
    while open_clients and time.monotonic() - started < 8:
        for index in list(open_clients):
            data = request if index < 50 else message
            try:
                if sent < len(data):
                    clients[index].sendall(data[sent : sent + 1])
            except OSError:  # reset by the server: cut off
                open_clients.discard(index)
        sent += 1
        time.sleep(0.05)
        for index in list(open_clients):
            clients[index].setblocking(False)
            try:
                chunk = clients[index].recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            finally:
                clients[index].setblocking(True)
            answers[index] = answers.get(index, b"") + chunk
            if not chunk:
                open_clients.discard(index)
        # A well-behaved client is served meanwhile.
        if sent == 10:
            assert session.request("ping").last["result"] == {}
    elapsed = time.monotonic() - started
    for client in clients:
        client.close()
    assert not open_clients, f"{len(open_clients)} slow clients still connected"
    assert elapsed < 4, elapsed  # deadlines of 1 s, not the ~6 s the bytes would take
    for index in range(50, 100):  # the body deadline answers 408 and closes
        assert answers[index].startswith(b"HTTP/1.1 408"), answers[index][:200]
        assert b'"code":-32600' in answers[index]


# ------------------------------------------------------------------ protocol errors

NOT_MESSAGES: list[tuple[str, bytes]] = [
    ("2025-11-25", b"{}"),
    ("2025-11-25", b'{"jsonrpc":"2.0","id":1,"method":7}'),
    ("2025-11-25", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'),
    ("2025-06-18", b"42"),
    ("2025-06-18", b"[1]"),
    ("2025-03-26", b"42"),
    ("2025-03-26", b'"ping"'),
    ("2025-03-26", b"null"),
    ("2025-03-26", b"true"),
    ("2025-03-26", b"[]"),
    ("2025-03-26", b"[1,2]"),
    ("2025-03-26", b"[[]]"),
    ("2025-03-26", b'[{"jsonrpc":"2.0","method":"notifications/initialized"},{}]'),
]


@pytest.mark.parametrize(("revision", "body"), NOT_MESSAGES)
def test_a_session_post_that_is_no_valid_message_gets_400_with_the_stdio_error(
    revision: str, body: bytes, served: Served, project: Path, tmp_path: Path
) -> None:
    session = HttpSession(served.url, revision)
    reply = exchange(served.url, raw=body, headers=session.headers("ping", None))
    assert reply.status == 400, (reply.status, reply.body)
    handshake = [
        {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": session.initialize_params(),
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in handshake) + body + b"\n"
    stdio = subprocess.run(
        [sys.executable, "-m", PACKAGE], cwd=project, input=lines, capture_output=True, timeout=60
    )
    sent = stdio.stdout.splitlines()[1:]  # after initialize's result
    assert [json.loads(reply.body)] == [json.loads(line) for line in sent], (reply.body, sent)
    assert session.request("ping").status == 200  # the session goes on


def test_get_and_delete_check_the_protocol_version_as_post_does(served: Served) -> None:
    session = HttpSession(served.url, "2025-11-25")
    for version in ("2099-01-01", "2025-06-18"):
        headers = {**session.headers("ping", None), "MCP-Protocol-Version": version}
        for method in ("DELETE", "GET"):
            reply = exchange(served.url, method, headers={**headers, "Last-Event-ID": "x/0"})
            assert reply.status == 400, (method, version, reply.status)
            assert reply.last["error"]["code"] == -32600
            assert version in reply.last["error"]["message"]
    assert session.request("ping").status == 200  # not ended by the refused DELETE
    assert exchange(served.url, "DELETE", headers=session.headers("ping", None)).status == 200


def test_parse_errors_and_invalid_requests_say_where(served: Served) -> None:
    session = HttpSession(served.url, "2025-11-25")
    headers = session.headers("ping", None)
    broken = exchange(served.url, raw=b'{"jsonrpc": "2.0",\n "id": 1 "method"}', headers=headers)
    assert broken.status == 400
    assert broken.last["error"]["code"] == -32700
    assert broken.last["error"]["data"] == {
        "reason": broken.last["error"]["data"]["reason"],
        "position": 28,
        "line": 2,
        "column": 10,
    }
    missing = exchange(served.url, body={"id": 7, "method": "tools/list"}, headers=headers)
    assert missing.last["error"]["data"]["member"] == "jsonrpc"
    assert '"jsonrpc": "2.0"' in missing.last["error"]["data"]["problem"]


def test_arguments_nested_too_deep_are_invalid_arguments_over_http(served: Served) -> None:
    for revision in ("2025-06-18", "2025-11-25"):
        session = HttpSession(served.url, revision)
        message = session.message("tools/call", {"name": "test_simple_text", "arguments": {}})
        body = json.dumps(message).replace(
            '"arguments": {}', '"arguments": {"a": ' + "[" * 500 + "]" * 500 + "}"
        )
        reply = exchange(
            served.url, raw=body.encode(), headers=session.headers("tools/call", message["params"])
        )
        assert reply.status == 200
        if revision == "2025-06-18":
            assert reply.last["error"]["code"] == -32602
        else:
            assert reply.last["result"]["isError"] is True
        assert "more than 128 levels" in json.dumps(reply.last)
    assert "Traceback" not in served.log.read_text()


# ------------------------------------------------------------------ start-up


def test_start_up_line_and_access_log(project: Path, tmp_path: Path) -> None:
    for extra, logged in (((), False), (("--access-log",), True)):
        port = free_port()
        log = tmp_path / f"log{logged}"
        with serving(project, http_command(PACKAGE, port, *extra), port, log) as url:
            HttpSession(url, "2025-11-25")
        lines = log.read_text().splitlines()
        # Printed once the port answers, so the test's own readiness probe may come first
        # in the access log; the server's probe (announce.py) is not logged.
        started = [line for line in lines if "MCP over Streamable HTTP" in line]
        assert started == [
            f"{PACKAGE}: MCP over Streamable HTTP at http://127.0.0.1:{port}/mcp; "
            f"revisions 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28; 1 worker; store memory "
            f"(this process); up to 4096 requests at once per worker; access log "
            f"{'on' if logged else 'off'}"
        ], lines
        assert any('"POST /mcp HTTP/1.1" 200' in line for line in lines) is logged, lines
        assert not any("/mcp/health" in line for line in lines), lines


def test_the_start_up_line_masks_a_redis_password() -> None:
    from mcp_schemagen.runtime.http.settings import HttpSettings
    from mcp_schemagen.runtime.main import started_line

    class Served:
        supported = ("2025-11-25",)

    for url in ("redis://:s3cret@db:6379/0", "redis://u:s3cret@db/0?password=s3cret"):
        line = started_line(Served(), "pkg", HttpSettings(store=url), "::1", 1, 2)  # type: ignore[arg-type]
        assert "s3cret" not in line and "***" in line and "http://[::1]:1/mcp" in line, line
        assert "2 workers" in line


def test_help_documents_the_bounds_deadlines_and_access_log(project: Path) -> None:
    shown = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--help"], cwd=project, capture_output=True, text=True
    )
    text = " ".join(shown.stdout.split())
    for option in ("--max-concurrent-requests", "--header-timeout", "--body-timeout"):
        assert option in text
    assert "--access-log log one line per HTTP request on stdout (off by default)" in text
    assert "per worker process" in text
    for wrong in (["--access-log"], ["--http", "--body-timeout", "0"]):
        refused = subprocess.run(
            [sys.executable, "-m", PACKAGE, *wrong], cwd=project, capture_output=True, text=True
        )
        assert refused.returncode == 2, refused
