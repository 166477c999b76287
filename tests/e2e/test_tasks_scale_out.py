"""Durable tasks across workers: two server processes (and a third that is killed) on one
real redis-server, the client sending each request of a task to whichever worker.

A task created at one worker is read, answered (``tasks/update``) and cancelled at the
other; a worker killed with SIGKILL mid-task leaves its task ``failed`` with the lost-task
error once its lease runs out (here 1 s), not ``working`` for ever.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support.http_client import exchange
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    build_project,
    free_port,
    http_command,
    servers_on_one_redis,
    wait_ready,
)
from tests.support.paths import needs_shared

PACKAGE = "conformance_server"
STATELESS = "2026-07-28"
EXTENSION = "io.modelcontextprotocol/tasks"
LEASE_SECONDS = 1.0
ENV = {"MCP_CODEGEN_STATE_KEY": "tasks two-worker key", "MCP_TASK_LEASE_SECONDS": "1"}
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]


class Deployment(NamedTuple):
    a: str
    b: str
    root: Path
    store: str
    folder: Path


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("tasks-scale-out")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    with servers_on_one_redis(root, PACKAGE, folder, env=ENV) as (store, urls):
        yield Deployment(urls[0], urls[1], root, store, folder)


_ids = iter(range(1, 1_000_000))


def request(
    url: str, method: str, params: dict[str, Any], *, tasks: bool = True, whole: bool = False
) -> Any:
    """The reply's last message (``whole``: the reply, status and all)."""
    capabilities = {"elicitation": {}, "extensions": {EXTENSION: {}}} if tasks else {}
    meta = {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"},
    }
    body = {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": method,
        "params": {**params, "_meta": meta},
    }
    headers = {"MCP-Protocol-Version": STATELESS, "Mcp-Method": method}
    name = params.get("name", params.get("taskId"))
    if name is not None:
        headers["Mcp-Name"] = name
    reply = exchange(url, body=body, headers=headers)
    return reply if whole else reply.last


def create(url: str, tool: str, arguments: dict[str, Any]) -> str:
    created = request(url, "tools/call", {"name": tool, "arguments": arguments})["result"]
    assert created["resultType"] == "task", created
    task_id: str = created["taskId"]
    return task_id


def until(url: str, task_id: str, *statuses: str, timeout: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task: dict[str, Any] = request(url, "tasks/get", {"taskId": task_id})["result"]
        if task["status"] in statuses:
            return task
        time.sleep(0.05)
    raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


def test_a_task_made_at_one_worker_is_read_at_the_other(deployment: Deployment) -> None:
    task_id = create(deployment.a, "slow_compute", {"seconds": 1, "label": "x"})
    first = request(deployment.b, "tasks/get", {"taskId": task_id})["result"]  # at once
    assert first["taskId"] == task_id and first["status"] == "working"
    done = until(deployment.b, task_id, "completed")
    assert done["result"]["content"] == [{"type": "text", "text": "computed x after 1 s"}]
    # What a finished task costs Redis (its record keeps until its TTL).
    import redis

    client = redis.Redis.from_url(deployment.store)
    used = client.memory_usage("mcp:task:" + task_id)
    ttl = client.pttl("mcp:task:" + task_id)
    client.close()
    print(f"a completed task's record in Redis: {used} bytes, expiring in {ttl} ms")
    assert used is not None and used < 2048
    assert 0 < ttl <= 600_000  # the tool file's ttlMs


def test_cancel_sent_to_the_other_worker_stops_the_task(deployment: Deployment) -> None:
    task_id = create(deployment.a, "slow_compute", {"seconds": 60})
    ack = request(deployment.b, "tasks/cancel", {"taskId": task_id})["result"]
    assert ack["resultType"] == "complete"
    started = time.monotonic()
    cancelled = until(deployment.a, task_id, "cancelled", "completed", "failed", timeout=10)
    assert cancelled["status"] == "cancelled"
    assert time.monotonic() - started < 5  # the running worker looks every lease/5


def test_answers_given_at_the_other_worker_reach_the_task(deployment: Deployment) -> None:
    task_id = create(deployment.a, "confirm_delete", {"filename": "x.txt"})
    asked = until(deployment.b, task_id, "input_required")
    (key,) = asked["inputRequests"]
    assert asked["inputRequests"][key]["method"] == "elicitation/create"
    answer = {key: {"action": "accept", "content": {"confirm": True}}}
    ack = request(deployment.b, "tasks/update", {"taskId": task_id, "inputResponses": answer})
    assert ack["result"]["resultType"] == "complete"
    done = until(deployment.a, task_id, "completed")
    assert done["result"]["content"][0]["text"] == "deleted x.txt"


@contextlib.contextmanager
def victim(deployment: Deployment) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A third worker on the same Redis, for a test to kill."""
    port = free_port()
    command = http_command(PACKAGE, port, "--store", deployment.store)
    with (deployment.folder / f"victim-{port}.log").open("wb") as log:
        process = subprocess.Popen(
            command, cwd=deployment.root, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, **ENV},
        )  # fmt: skip
        try:
            wait_ready(port, process)
            yield f"http://127.0.0.1:{port}/mcp", process
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def watch_after_kill(url: str, task_id: str, process: subprocess.Popen[bytes]) -> Any:
    """Kill the worker running ``task_id``; poll it at ``url`` until it ends: the
    timeline of statuses (seconds after the kill, status, message) and its last state."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    killed = time.monotonic()
    timeline: list[tuple[float, str, str]] = []
    while time.monotonic() - killed < 15:
        task = request(url, "tasks/get", {"taskId": task_id})["result"]
        seen = (task["status"], task.get("statusMessage", "")[:40])
        if not timeline or timeline[-1][1:] != seen:
            timeline.append((round(time.monotonic() - killed, 2), *seen))
        if task["status"] in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.1)
    return timeline, task


def test_a_worker_killed_mid_task_leaves_it_failed_as_lost(deployment: Deployment) -> None:
    with victim(deployment) as (url, process):
        task_id = create(url, "slow_compute", {"seconds": 60})
        assert until(deployment.a, task_id, "working")["status"] == "working"
        timeline, task = watch_after_kill(deployment.a, task_id, process)
    print("after SIGKILL (seconds, status, message):", timeline)
    assert task["status"] == "failed", timeline
    assert task["error"]["code"] == -32603 and "lost" in task["error"]["message"]
    assert timeline[-1][0] < LEASE_SECONDS + 2  # bounded by the lease, not for ever
    again = request(deployment.b, "tasks/get", {"taskId": task_id})["result"]
    assert again["status"] == "failed"  # ended once; every worker sees the same


def test_a_task_safe_to_rerun_runs_again_on_another_worker(deployment: Deployment) -> None:
    with victim(deployment) as (url, process):
        task_id = create(url, "rerun_compute", {"seconds": 2})
        assert until(deployment.a, task_id, "working")["status"] == "working"
        timeline, task = watch_after_kill(deployment.a, task_id, process)
        victim_pid = process.pid
    print("after SIGKILL, onLost rerun (seconds, status, message):", timeline)
    assert [step[1] for step in timeline] == ["working", "working", "completed"], timeline
    assert timeline[1][2].startswith("Running again (attempt 2 of 3)")
    assert "statusMessage" not in task  # the run that completed left no stale message
    assert f"pid {victim_pid})" not in task["result"]["content"][0]["text"]


def test_a_client_without_the_extension_reaches_no_task(deployment: Deployment) -> None:
    task_id = create(deployment.a, "slow_compute", {"seconds": 0})
    refused = request(deployment.b, "tasks/get", {"taskId": task_id}, tasks=False)
    assert refused["error"]["code"] == -32021
    plain = request(
        deployment.b,
        "tools/call",
        {"name": "slow_compute", "arguments": {"seconds": 0}},
        tasks=False,
    )
    assert plain["result"]["resultType"] == "complete"
