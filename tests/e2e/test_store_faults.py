"""Nothing lost under faults: two server processes sharing one redis-server, which the
tests kill and restart, and a server process killed in the middle of a call.

- Redis killed during a session: requests get 503 with Retry-After and a JSON-RPC error
  naming no address; readiness says so while liveness stays ok; once Redis is back,
  both processes reconnect by themselves and ``notifications/cancelled`` sent to one
  cancels a call running on the other again.
- A worker killed mid-call: the client's stream resumed at the other worker ends with a
  JSON-RPC error for the call's id saying it was lost.
- A client's answer to an elicitation after 7 s (longer than redis-py 8's default socket
  timeout) reaches the handler on the other worker.
- Start-up with a store that cannot work (Redis down, the redis package missing), with
  one worker or two: a non-zero exit and one line saying why.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support.http_client import HttpSession, Reply, exchange
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    RedisServer,
    build_project,
    free_port,
    http_command,
    restartable_redis,
    wait_ready,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
REVISION = "2025-11-25"
SHARED_KEY = {"MCP_CODEGEN_STATE_KEY": "the state key of this two-worker deployment"}
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]


class Worker(NamedTuple):
    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path


class Deployment(NamedTuple):
    redis: RedisServer
    a: Worker
    b: Worker


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(CONFORMANCE_PROJECT, tmp_path_factory.mktemp("faults"), PACKAGE)


def _start(project: Path, store: str, name: str, folder: Path) -> Worker:
    port = free_port()
    log = folder / f"{name}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            http_command(PACKAGE, port, "--store", store),
            cwd=project,
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **SHARED_KEY},
        )
    wait_ready(port, process)
    return Worker(f"http://127.0.0.1:{port}/mcp", port, process, log)


@pytest.fixture
def deployment(project: Path, tmp_path: Path) -> Iterator[Deployment]:
    with restartable_redis(tmp_path / "redis") as redis:
        workers = [_start(project, redis.url, name, tmp_path) for name in ("a", "b")]
        try:
            yield Deployment(redis, *workers)
        finally:
            for worker in workers:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.terminate()
                try:
                    worker.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    worker.process.kill()
                    worker.process.wait()


def _get(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    status = connection.getresponse().status
    connection.close()
    return status


def _wait(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _logged(worker: Worker, text: str) -> int:
    return worker.log.read_text(errors="replace").count(text)


def _cancel_across(session: HttpSession, run_at: Worker, cancel_at: Worker) -> None:
    """A slow call at one worker, cancelled with a notification sent to the other."""
    before = _logged(run_at, "slow_job: cancelled")
    message = session.message("tools/call", {"name": "slow_job", "arguments": {"seconds": 30}})
    running: list[Reply] = []
    thread = threading.Thread(
        target=lambda: running.append(
            exchange(
                run_at.url, body=message, headers=session.headers("tools/call", None), timeout=30
            )
        )
    )
    thread.start()
    time.sleep(0.5)  # the call runs at run_at
    params = {"requestId": message["id"]}
    cancelled = session.notify("notifications/cancelled", params, url=cancel_at.url)
    assert cancelled.status == 202
    thread.join(timeout=20)
    assert not thread.is_alive(), "the cancelled call's stream did not end"
    assert _wait(lambda: _logged(run_at, "slow_job: cancelled") > before, 10)


def test_redis_killed_and_restarted_during_a_session(deployment: Deployment) -> None:
    redis, a, b = deployment
    timeline: list[str] = []
    session = HttpSession(a.url, REVISION)
    assert session.request("tools/list", url=b.url).status == 200
    _cancel_across(session, run_at=b, cancel_at=a)
    timeline.append("before: session at A served by B; a cancellation at A cancels B's call")

    redis.kill()
    for worker in (a, b):
        reply = session.request("tools/list", url=worker.url)
        assert reply.status == 503, reply
        assert reply.headers.get("retry-after", "").isdigit()
        assert reply.headers["content-type"].startswith("application/json")
        error = json.loads(reply.body)["error"]
        assert "unavailable" in error["message"]
        assert "127.0.0.1" not in reply.body.decode() and str(redis.port) not in reply.body.decode()
        assert _get(worker.port, "/healthz") == 200  # alive ...
        assert _get(worker.port, "/readyz") == 503  # ... but not ready
    timeline.append(f"Redis killed: 503, Retry-After, {error['message']!r}; /readyz 503")

    redis.start()
    started = time.monotonic()
    for worker in (a, b):
        assert _wait(lambda w=worker: _get(w.port, "/readyz") == 200, 30)
    timeline.append(f"Redis restarted: both ready again after {time.monotonic() - started:.1f} s")
    # The sessions went with Redis (no persistence): the client starts a new one.
    assert session.request("tools/list", url=a.url).status == 404
    session = HttpSession(b.url, REVISION)
    assert session.request("tools/list", url=a.url).status == 200
    _cancel_across(session, run_at=a, cancel_at=b)
    _cancel_across(session, run_at=b, cancel_at=a)
    timeline.append("after: old session 404, new session; cancellations cross both ways")
    print("\n" + "\n".join(timeline))


def _next_message(response: http.client.HTTPResponse) -> tuple[str | None, dict[str, Any]]:
    """Read an SSE response up to its next event that carries a message: (id, message)."""
    event_id = None
    while True:
        line = response.readline()
        assert line, "the stream ended before the next message"
        text = line.decode().rstrip("\r\n")
        if text.startswith("id: "):
            event_id = text[4:]
        elif text.startswith("data: ") and text != "data: ":
            return event_id, json.loads(text[6:])


def _post_streaming(worker: Worker, session: HttpSession, message: dict[str, Any]) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", worker.port, timeout=60)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **session.headers("tools/call", None),
    }
    connection.request("POST", "/mcp", body=json.dumps(message), headers=headers)
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")
    return connection, response


def test_a_worker_killed_mid_call_ends_the_resumed_stream_with_an_error(
    deployment: Deployment,
) -> None:
    _, a, b = deployment
    session = HttpSession(a.url, REVISION)
    params = {"name": "slow_job", "arguments": {"seconds": 120}, "_meta": {"progressToken": "p"}}
    message = session.message("tools/call", params)
    connection, response = _post_streaming(a, session, message)
    last_seen, progress = _next_message(response)  # the call runs at A
    assert progress["method"] == "notifications/progress" and last_seen is not None
    a.process.send_signal(signal.SIGKILL)
    a.process.wait(timeout=10)
    connection.close()

    started = time.monotonic()
    resumed = exchange(
        b.url,
        "GET",
        headers={**session.headers("ping", None), "Last-Event-ID": last_seen},
        timeout=60,
    )
    waited = time.monotonic() - started
    assert resumed.status == 200
    assert resumed.messages, resumed
    final = resumed.messages[-1]
    assert final["id"] == message["id"]
    assert final["error"]["code"] == -32603 and "lost" in final["error"]["message"]
    assert waited < 20  # the lease runs out (6 s), not the 30 s resume wait
    # The server that answered -32603 says so in its log, once.
    assert _logged(b, f"store: calls [{message['id']}] were lost") == 1, b.log.read_text()
    print(f"\nresumed at B after A was killed: error after {waited:.1f} s: {final['error']}")


def test_an_elicitation_answered_after_seven_seconds_reaches_the_handler(
    deployment: Deployment,
) -> None:
    _, a, b = deployment

    class Asking(HttpSession):
        def initialize_params(self) -> dict[str, Any]:
            return {**super().initialize_params(), "capabilities": {"elicitation": {}}}

    session = Asking(a.url, REVISION)
    arguments = {"message": "Who?"}
    message = session.message("tools/call", {"name": "test_elicitation", "arguments": arguments})
    connection, response = _post_streaming(a, session, message)
    _, asked = _next_message(response)
    assert asked["method"] == "elicitation/create"
    time.sleep(7)  # longer than redis-py 8's default socket timeout (5 s)
    content = {"username": "lin", "email": "lin@example.com"}
    answer = {
        "jsonrpc": "2.0",
        "id": asked["id"],
        "result": {"action": "accept", "content": content},
    }
    posted = exchange(b.url, body=answer, headers=session.headers("ping", None))
    assert posted.status == 202
    _, final = _next_message(response)
    connection.close()
    assert final["id"] == message["id"]
    text = final["result"]["content"][0]["text"]
    assert not final["result"].get("isError"), text
    assert "action=accept" in text and "lin@example.com" in text


def test_start_up_without_a_working_store_fails_in_one_line(project: Path, tmp_path: Path) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    shim = tmp_path / "no-redis"
    (shim / "redis").mkdir(parents=True)
    (shim / "redis" / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'redis\'", name="redis")\n'
    )
    cases = [
        (["--store", dead], {}, "Redis does not answer"),
        (["--store", dead, "--workers", "2"], {}, "Redis does not answer"),
        (["--store", dead], {"PYTHONPATH": str(shim)}, "needs the redis package"),
        (["--store", dead, "--workers", "2"], {"PYTHONPATH": str(shim)}, "needs the redis package"),
    ]
    for options, env, wanted in cases:
        done = subprocess.run(
            http_command(PACKAGE, free_port(), *options),
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **env},
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode != 0, (options, env, done.stderr)
        assert len(lines) == 1 and wanted in lines[0], (options, env, done.stderr)
        if "redis package" in wanted:
            assert "pip install 'conformance-server[http]'" in lines[0]
