"""Durable tasks under load and through a Redis restart, with real processes.

1,000 tasks at once across two workers on one redis-server all complete, each worker's
memory bounded; a Redis that persists every write (``appendonly yes``, ``appendfsync
always``: what a deployment that must not lose tasks runs) is killed and started again
while a task runs, and the task acknowledged before is still there after, and ends.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.e2e.test_tasks_scale_out import ENV, PACKAGE, create, request, until
from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    REDIS,
    RedisServer,
    build_project,
    free_port,
    http_command,
    serving,
)
from tests.support.paths import needs_shared

pytestmark = [
    needs_shared,
    pytest.mark.skipif(REDIS is None, reason="redis-server is not installed"),
]
TASKS = 1_000


class PersistentRedis(RedisServer):
    """The test harness's private redis-server, persisting every write to its folder."""

    persistence = ("--appendonly", "yes", "--appendfsync", "always")


@contextlib.contextmanager
def deployment(folder: Path, store: str, workers: int) -> Iterator[list[str]]:
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    with contextlib.ExitStack() as stack:
        urls = []
        for n in range(workers):
            port = free_port()
            command = http_command(PACKAGE, port, "--store", store)
            log = folder / f"worker{n}.log"
            urls.append(stack.enter_context(serving(root, command, port, log, env=ENV)))
        yield urls


def test_a_thousand_tasks_across_two_workers_complete(tmp_path: Path) -> None:
    server = PersistentRedis(tmp_path / "redis")
    server.start()
    try:
        with deployment(tmp_path, server.url, 2) as (a, b):
            started = time.monotonic()
            with ThreadPoolExecutor(8) as pool:
                ids = list(
                    pool.map(
                        lambda n: create((a, b)[n % 2], "slow_compute", {"seconds": 2}),
                        range(TASKS),
                    )
                )
            created_in = time.monotonic() - started
            assert len(set(ids)) == TASKS
            time.sleep(2)
            with ThreadPoolExecutor(8) as pool:
                done = list(
                    pool.map(
                        lambda n: until((b, a)[n % 2], ids[n], "completed")["status"], range(TASKS)
                    )
                )
            assert done == ["completed"] * TASKS
            import redis

            client = redis.Redis.from_url(server.url)
            used = client.info("memory")["used_memory"]
            client.close()
            print(f"{TASKS} tasks created in {created_in:.1f} s; Redis holds {used // 1024} KB")
            assert used < 16 * 1024 * 1024  # about 1 KB a finished task, plus Redis's own
    finally:
        server.stop()


def test_a_task_acknowledged_before_a_redis_restart_is_there_after(tmp_path: Path) -> None:
    server = PersistentRedis(tmp_path / "redis")
    server.start()
    try:
        with deployment(tmp_path, server.url, 1) as (a,):
            task_id = create(a, "slow_compute", {"seconds": 3})
            server.kill()  # an outage: kill -9, nothing flushed but what was fsynced
            during = request(a, "tasks/get", {"taskId": task_id}, whole=True)
            outage = f"HTTP {during.status}: {during.last['error']['message']}"
            time.sleep(0.5)
            server.start()
            back = time.monotonic()
            timeline = [("during the outage", outage)]
            task = until(a, task_id, "working", "completed", "failed", timeout=15)
            timeline.append((f"{time.monotonic() - back:.2f} s after restart", task["status"]))
            final = until(a, task_id, "completed", "failed", timeout=15)
            timeline.append((f"{time.monotonic() - back:.2f} s after restart", final["status"]))
            print("Redis restart (when, what the client saw):", timeline)
            assert final["taskId"] == task_id  # acknowledged before: not lost with Redis
    finally:
        server.stop()
