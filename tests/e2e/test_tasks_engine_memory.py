"""Memory per task on the task-queue engine, measured with real parts: one redis-server,
one generated HTTP server (``--task-engine taskiq``), two task worker processes.

1,000 tasks are created while no task worker runs, so each waits in the queue: Redis's
``used_memory`` grows by what a waiting task costs (its record and its queue message).
Then two task workers take them all at once and run them together (each handler sleeps
long enough that every task is running before the first ends): a worker's peak resident
memory (VmHWM) over its idle figure, divided by the tasks it ran, is what a running task
costs it. The bounds asserted are the figures measured on the reference machine (stated
in docs/how-to/tasks.md, "Limits and memory") with margin, so a change that made each
task cost several times more fails here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.e2e.test_tasks_scale_out import create, request
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
TASKS = 1_000
SECONDS = 10  # each task's run: long enough that all of them run at once
ENV = {"MCP_CODEGEN_STATE_KEY": "engine memory key"}
# Measured (docs/how-to/tasks.md, "Limits and memory"), with margin: bytes per task.
REDIS_PER_WAITING_TASK = 4_000
WORKER_PER_RUNNING_TASK = 60_000
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]


def resident(pid: int, field: str) -> int:
    """A process's ``VmRSS`` or ``VmHWM`` (peak) from /proc, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


@contextlib.contextmanager
def task_worker(root: Path, store: str, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    # Each runs half the tasks at most at once: both take a share of the queue.
    half = str(TASKS // 2)
    command = [
        sys.executable,
        "-m",
        PACKAGE,
        "task-worker",
        "--redis",
        store,
        "--concurrency",
        half,
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=root, stdout=output, stderr=subprocess.STDOUT, env={**os.environ, **ENV}
        )
        try:
            deadline = time.monotonic() + 30
            while b"task worker on" not in log.read_bytes():
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_a_thousand_engine_tasks_on_two_workers_complete_with_memory_bounded(
    tmp_path: Path,
) -> None:
    import redis

    root = build_project(CONFORMANCE_PROJECT, tmp_path, PACKAGE)
    port = free_port()
    command = http_command(PACKAGE, port, "--store", "REDIS", "--task-engine", "taskiq")
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(tmp_path / "redis"))
        command[command.index("REDIS")] = store
        url = stack.enter_context(serving(root, command, port, tmp_path / "server.log", env=ENV))
        client = redis.Redis.from_url(store)
        stack.callback(client.close)
        workers = [
            stack.enter_context(task_worker(root, store, tmp_path / f"worker-{n}.log"))
            for n in (1, 2)
        ]
        # A few tasks first, taken by each worker in turn: what a run loads once.
        _until_completed(client, [create(url, "rerun_compute", {"seconds": 0.2}) for _ in range(8)])
        idle = {worker.pid: resident(worker.pid, "VmRSS") for worker in workers}
        for worker in workers:  # their peak (VmHWM) counted from here
            Path(f"/proc/{worker.pid}/clear_refs").write_text("5")
            worker.send_signal(signal.SIGSTOP)  # while the thousand are queued
        before = client.info("memory")["used_memory"]
        ids = _create_all(url, SECONDS)
        waiting = (client.info("memory")["used_memory"] - before) / TASKS
        record = client.memory_usage(f"mcp:task:{ids[0]}")
        queue = client.memory_usage("mcp:task-engine")
        print(
            f"Redis: {waiting:.0f} bytes per waiting task (record {record} bytes;"
            f" queue of {client.llen('mcp:task-engine')} messages {queue} bytes)"
        )
        for worker in workers:
            worker.send_signal(signal.SIGCONT)
        _until_completed(client, ids)
        grown = {pid: resident(pid, "VmHWM") - rss for pid, rss in idle.items()}
        ran = Counter(_runner_pid(client, f"mcp:task:{task_id}") for task_id in ids)
        done = request(url, "tasks/get", {"taskId": ids[-1]})["result"]  # as a client sees it
        assert done["status"] == "completed", done
        print(
            f"Redis: a completed task's record {client.memory_usage(f'mcp:task:{ids[-1]}')} bytes"
        )
    per_task = {pid: grown[pid] / ran[pid] for pid in idle if ran[pid]}
    print(
        f"task workers: tasks run {dict(ran)}, peak growth {grown} bytes,"
        f" {per_task} bytes per running task"
    )
    assert ran == Counter(dict.fromkeys(idle, TASKS // 2))  # at once: half on each
    assert waiting < REDIS_PER_WAITING_TASK
    for pid, cost in per_task.items():
        assert cost < WORKER_PER_RUNNING_TASK, (pid, cost)


def _create_all(url: str, seconds: float) -> list[str]:
    with ThreadPoolExecutor(8) as pool:
        calls = pool.map(lambda _: create(url, "rerun_compute", {"seconds": seconds}), range(TASKS))
        return list(calls)


def _until_completed(client: Any, ids: list[str]) -> None:
    keys = [f"mcp:task:{task_id}" for task_id in ids]
    deadline = time.monotonic() + 120 + SECONDS
    statuses = _statuses(client, keys)
    while statuses != Counter(completed=len(ids)) and time.monotonic() < deadline:
        time.sleep(0.2)
        statuses = _statuses(client, keys)
    assert statuses == Counter(completed=len(ids)), statuses


def _statuses(client: Any, keys: list[str]) -> Counter[str]:
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.hget(key, "status")
    return Counter(_text(status) for status in pipe.execute())


def _runner_pid(client: Any, key: str) -> int:
    """The pid the task's handler reported (rerun_compute says where it ran)."""
    result = orjson.loads(client.hget(key, "result"))
    text: str = result["content"][0]["text"]
    return int(text.rsplit("pid ", 1)[1].rstrip(")"))


def _text(value: bytes | None) -> str:
    return "" if value is None else value.decode()
