"""Scale-out with no sticky routing: two server processes on two ports share one
redis-server, and a client sends each request of one session to alternating processes.

In every session revision: the session minted by one process is served by the other; the
log level set on one decides what the other sends; a stream written by one is resumed
(``GET`` + ``Last-Event-ID``) at the other, with only that stream's events;
``notifications/cancelled`` sent to one cancels the call running on the other; DELETE at
one ends the session for both. 2026-07-28 needs nothing shared, and closing its response
stream cancels the call.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import pytest

from tests.support.http_client import HttpSession, Reply, exchange
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    build_project,
    free_port,
    http_command,
    redis_server,
    servers_on_one_redis,
    serving,
)
from tests.support.paths import needs_shared
from tests.support.stdio_conversation import STATELESS

PACKAGE = "conformance_server"
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]


# What every worker of one deployment shares: the key of 2026-07-28 requestState.
SHARED_KEY = {"MCP_CODEGEN_STATE_KEY": "the state key of this two-worker deployment"}


class Workers(NamedTuple):
    a: str
    b: str
    log_a: Path
    log_b: Path


@pytest.fixture(scope="module")
def workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    folder = tmp_path_factory.mktemp("scale-out")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    with servers_on_one_redis(root, PACKAGE, folder, env=SHARED_KEY) as (_store, urls):
        yield Workers(urls[0], urls[1], folder / "a.log", folder / "b.log")


def methods(reply: Reply) -> list[str]:
    return [m.get("method", "response") for m in reply.messages]


def wait_for(path: Path, text: str, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in path.read_text(errors="replace"):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_one_session_served_by_alternating_workers(revision: str, workers: Workers) -> None:
    a, b = workers.a, workers.b
    session = HttpSession(a, revision)  # initialize at A
    assert session.request("tools/list", url=b).status == 200

    # The log level set at A decides what B sends, and the other way round.
    assert session.request("logging/setLevel", {"level": "error"}, url=a).status == 200
    quiet = session.call("test_tool_with_logging", {}, url=b)
    assert methods(quiet) == ["response"]
    assert session.request("logging/setLevel", {"level": "info"}, url=b).status == 200
    loud = session.call("test_tool_with_logging", {}, url=a)
    assert methods(loud) == ["notifications/message"] * 3 + ["response"]

    # A stream written at B, resumed at A after its first event: the rest, nothing else.
    progress = session.request(
        "tools/call",
        {"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p"}},
        url=b,
    )
    assert methods(progress) == ["notifications/progress"] * 3 + ["response"]
    ids = [i for i in progress.event_ids if not i.endswith("/0")]  # without the priming event
    assert len(ids) == 4
    resumed = exchange(a, "GET", headers={**session.headers("ping", None), "Last-Event-ID": ids[0]})
    assert resumed.status == 200
    assert resumed.messages == progress.messages[1:]
    assert resumed.event_ids == ids[1:]

    if revision == "2025-11-25":
        # The handler closes its stream mid-call (after the priming event, with retry); the
        # client resumes at the other worker and receives the result there.
        closed = session.call("test_reconnection", {}, url=a)
        assert closed.messages == [] and closed.retry is not None
        assert closed.event_ids and closed.event_ids[0].endswith("/0")
        headers = {**session.headers("ping", None), "Last-Event-ID": closed.event_ids[-1]}
        after = exchange(b, "GET", headers=headers)
        assert after.status == 200 and methods(after) == ["response"]
        assert "reconnected" in after.last["result"]["content"][0]["text"]

    # notifications/cancelled at A cancels the call running at B.
    message = session.message("tools/call", {"name": "slow_job", "arguments": {"seconds": 30}})
    running: list[Reply] = []
    thread = threading.Thread(
        target=lambda: running.append(
            exchange(b, body=message, headers=session.headers("tools/call", None), timeout=30)
        )
    )
    thread.start()
    time.sleep(0.5)  # the call is running at B (its progress event went out)
    cancelled = session.notify("notifications/cancelled", {"requestId": message["id"]}, url=a)
    assert cancelled.status == 202
    thread.join(timeout=20)
    assert not thread.is_alive(), "the cancelled call's stream did not end"
    assert "response" not in methods(running[0])  # a cancelled request gets no response
    assert wait_for(workers.log_b, "slow_job: cancelled")

    # DELETE at B ends the session for A too.
    assert exchange(b, "DELETE", headers=session.headers("ping", None)).status == 200
    assert session.request("tools/list", url=a).status == 404


def test_stateless_requests_alternate_and_closing_the_stream_cancels(workers: Workers) -> None:
    client = HttpSession(workers.a, STATELESS)
    for url in (workers.a, workers.b, workers.a, workers.b):
        reply = client.call("test_simple_text", {}, url=url)
        assert reply.status == 200 and "simple text" in reply.last["result"]["content"][0]["text"]

    # Read the stream up to the first event, then hang up: the call is cancelled.
    params: dict[str, Any] = {
        "name": "slow_job",
        "arguments": {"seconds": 30},
        "_meta": {"progressToken": "slow"},
    }
    message = client.message("tools/call", params)
    parts = urlsplit(workers.a)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **client.headers("tools/call", params),
    }
    connection.request("POST", parts.path, body=json.dumps(message), headers=headers)
    response = connection.getresponse()
    assert response.status == 200
    assert response.getheader("x-accel-buffering") == "no"
    received = b""
    while b"notifications/progress" not in received:
        chunk = response.read1(4096)
        assert chunk, "the stream ended before the progress event"
        received += chunk
    connection.close()
    assert wait_for(workers.log_a, "slow_job: cancelled")


def test_uvicorn_workers_share_sessions_through_the_store(tmp_path: Path) -> None:
    """``--workers 2 --store redis://…``: uvicorn's worker processes import
    ``PACKAGE.asgi:app`` with the settings from the environment; whichever worker takes a
    request, the session is there."""
    root = build_project(CONFORMANCE_PROJECT, tmp_path, PACKAGE)
    with redis_server(tmp_path / "redis") as store:
        port = free_port()
        command = http_command(PACKAGE, port, "--workers", "2", "--store", store)
        with serving(root, command, port, tmp_path / "server.log") as url:
            for revision in ("2025-06-18", "2025-11-25", STATELESS):
                client = HttpSession(url, revision)
                for _ in range(6):  # new connections: the kernel spreads them over workers
                    reply = client.call("test_simple_text", {})
                    assert reply.status == 200, reply
                    assert "simple text" in reply.last["result"]["content"][0]["text"]


class AskedSession(HttpSession):
    """A session client that declares elicitation, so the server may ask it."""

    def initialize_params(self) -> dict[str, Any]:
        return {**super().initialize_params(), "capabilities": {"elicitation": {}}}


def _sse_messages(response: http.client.HTTPResponse) -> Iterator[Any]:
    """The JSON-RPC messages of an SSE response as they arrive."""
    data: list[str] = []
    while line := response.readline():
        text = line.decode().rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].strip())
        elif not text and data:
            joined = "\n".join(data)
            data = []
            if joined:
                yield json.loads(joined)


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_an_elicitation_answered_at_the_other_worker(revision: str, workers: Workers) -> None:
    session = AskedSession(workers.a, revision)
    params = {"name": "test_elicitation", "arguments": {"message": "Who are you?"}}
    message = session.message("tools/call", params)
    parts = urlsplit(workers.a)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **session.headers("tools/call", params),
    }
    connection.request("POST", parts.path, body=json.dumps(message), headers=headers)
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("content-type") == "text/event-stream"
    stream = _sse_messages(response)
    asked = next(m for m in stream if m.get("method") == "elicitation/create")
    session.checker.check(asked)  # exactly this revision's ElicitRequest
    assert asked["params"]["message"] == "Who are you?"
    # The client's response goes to the other worker; the handler waiting at A gets it.
    answer = {"action": "accept", "content": {"username": "ada", "email": "ada@example.com"}}
    posted = exchange(
        workers.b,
        body={"jsonrpc": "2.0", "id": asked["id"], "result": answer},
        headers=session.headers("ping", None),
    )
    assert posted.status == 202
    final = next(m for m in stream if "result" in m or "error" in m)
    connection.close()
    assert final["id"] == message["id"]
    text = final["result"]["content"][0]["text"]
    assert (
        text
        == "User response: action=accept, content={'username': 'ada', 'email': 'ada@example.com'}"
    )


def test_a_2026_retry_answered_at_the_other_worker(workers: Workers) -> None:
    client = HttpSession(workers.a, STATELESS)
    capabilities = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    call = {
        "name": "test_input_required_result_multi_round",
        "arguments": {},
        "_meta": capabilities,
    }
    first = client.request("tools/call", call, url=workers.a).last["result"]
    assert first["resultType"] == "input_required" and list(first["inputRequests"]) == ["step1"]
    name = {"step1": {"action": "accept", "content": {"name": "Ada"}}}
    retry = {**call, "inputResponses": name, "requestState": first["requestState"]}
    second = client.request("tools/call", retry, url=workers.b).last["result"]
    assert list(second["inputRequests"]) == ["step2"]  # step1 answered at B from A's state
    colour = {"step2": {"action": "accept", "content": {"color": "teal"}}}
    last = {**call, "inputResponses": colour, "requestState": second["requestState"]}
    done = client.request("tools/call", last, url=workers.a).last["result"]
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Ada likes teal"
