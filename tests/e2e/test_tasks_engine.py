"""Tasks run by a task-queue engine: one generated HTTP server (``--store redis://…
--task-engine taskiq``) and engine worker processes (``python -m PACKAGE task-worker``)
on one real redis-server, the client speaking raw JSON-RPC over HTTP to the server only.

The server stores each task and puts "run task X" on taskiq's queue; a task worker takes
it and runs the handler. What a client sees is the same as for a task run in-process: it
completes (in the worker's process, the handler says its pid), its question is answered
through the server, a cancel sent to the server stops the run on the worker, and a worker
killed with SIGKILL leaves the task ``failed`` as lost once its lease runs out (1 s here),
or runs it again on another worker when the tool file says ``"onLost": "rerun"``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.e2e.test_tasks_scale_out import create, request, until, watch_after_kill
from tests.support.docs import block
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
ENV = {"MCP_CODEGEN_STATE_KEY": "tasks engine key", "MCP_TASK_LEASE_SECONDS": "1"}
WAITING = "Waiting for a task worker to take it"
pytestmark = [
    needs_shared,
    pytest.mark.skipif(
        REDIS is None,
        reason="redis-server is not installed (Debian package redis-server; .ci/run installs it)",
    ),
]


class Deployment(NamedTuple):
    url: str
    root: Path
    store: str
    folder: Path


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    folder = tmp_path_factory.mktemp("tasks-engine")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(redis_server(folder / "redis"))
        port = free_port()
        command = importtime([*documented("--task-engine", store), "--port", str(port)])
        url = stack.enter_context(serving(root, command, port, folder / "server.log", env=ENV))
        yield Deployment(url, root, store, folder)


def documented(naming: str, store: str) -> list[str]:
    """The command of how-to/tasks.md's "Run tasks on their own machines" that names
    ``naming``, for this package and this Redis: the commands the page shows are run."""
    shown = block("how-to/tasks.md", "## Run tasks on their own machines", "sh")
    line = next(line for line in shown.splitlines() if naming in line)
    words = shlex.split(line.replace("redis://redis.internal:6379/0", store))
    assert words[:3] == ["python", "-m", "my_server"], line
    return [sys.executable, "-m", PACKAGE, *words[3:]]


def importtime(command: list[str]) -> list[str]:
    """``command`` (a Python one) reporting every module it imports on stderr."""
    return [command[0], "-X", "importtime", *command[1:]]


def imported(log: Path) -> set[str]:
    lines = log.read_text(errors="replace").splitlines()
    return {line.split("|")[-1].strip() for line in lines if line.startswith("import time:")}


@contextlib.contextmanager
def task_worker(deployment: Deployment) -> Iterator[subprocess.Popen[bytes]]:
    """An engine worker on the deployment's Redis, listening once this yields."""
    log = deployment.folder / f"worker-{time.monotonic_ns()}.log"
    command = documented("task-worker", deployment.store)
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=deployment.root, stdout=output, stderr=subprocess.STDOUT,
            env={**os.environ, **ENV},
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 30
            while b"task worker on" not in log.read_bytes():
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def test_a_task_waits_for_a_worker_then_runs_on_it(deployment: Deployment) -> None:
    task_id = create(deployment.url, "rerun_compute", {"seconds": 0.2})
    time.sleep(1.5)  # longer than the run and the lease: the server does not run it
    waiting = request(deployment.url, "tasks/get", {"taskId": task_id})["result"]
    assert (waiting["status"], waiting.get("statusMessage")) == ("working", WAITING), waiting
    with task_worker(deployment) as worker:
        done = until(deployment.url, task_id, "completed", "failed", "cancelled")
        assert done["status"] == "completed", done
        assert done["result"]["content"] == [
            {"type": "text", "text": f"computed after 0.2 s (pid {worker.pid})"}
        ]
        assert "statusMessage" not in done  # the waiting message went with the take


def test_a_worker_idle_longer_than_redis_read_timeout_still_takes_tasks(
    deployment: Deployment,
) -> None:
    with task_worker(deployment) as worker:
        time.sleep(7)  # an empty queue for longer than redis 8's default 5 s socket timeout
        assert worker.poll() is None, "the task worker stopped while it waited on the queue"
        task_id = create(deployment.url, "rerun_compute", {"seconds": 0.1})
        done = until(deployment.url, task_id, "completed", "failed", "cancelled")
        expected = f"computed after 0.1 s (pid {worker.pid})"
        assert done["result"]["content"][0]["text"] == expected, done


def test_a_question_asked_on_the_worker_is_answered_through_the_server(
    deployment: Deployment,
) -> None:
    with task_worker(deployment):
        task_id = create(deployment.url, "confirm_delete", {"filename": "x.txt"})
        asked = until(deployment.url, task_id, "input_required")
        assert asked["inputRequests"]["confirm"]["method"] == "elicitation/create"
        answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
        update = {"taskId": task_id, "inputResponses": answer}
        assert request(deployment.url, "tasks/update", update)["result"]["resultType"] == "complete"
        done = until(deployment.url, task_id, "completed", "failed")
        assert done["result"]["content"][0]["text"] == "deleted x.txt"


def test_a_cancel_sent_to_the_server_stops_the_run_on_the_worker(deployment: Deployment) -> None:
    with task_worker(deployment) as worker:
        task_id = create(deployment.url, "slow_compute", {"seconds": 60})
        _wait_taken(deployment, task_id)
        ack = request(deployment.url, "tasks/cancel", {"taskId": task_id})["result"]
        assert ack["resultType"] == "complete"
        started = time.monotonic()
        # "cancelled" is written by the worker once its run stopped (the server only
        # marks the record): reading it proves the cancel crossed.
        cancelled = until(deployment.url, task_id, "cancelled", "completed", "failed")
        assert cancelled["status"] == "cancelled", cancelled
        print(f"cancelled at the worker {time.monotonic() - started:.2f} s after the cancel")
        assert time.monotonic() - started < 5
        assert worker.poll() is None  # the worker goes on taking tasks
        again = create(deployment.url, "slow_compute", {"seconds": 0.1})
        assert until(deployment.url, again, "completed", "failed")["status"] == "completed"


def test_a_worker_killed_mid_task_leaves_it_failed_as_lost(deployment: Deployment) -> None:
    with task_worker(deployment) as worker:
        task_id = create(deployment.url, "slow_compute", {"seconds": 60})
        _wait_taken(deployment, task_id)
        timeline, task = watch_after_kill(deployment.url, task_id, worker)
    print("after SIGKILL of the task worker (seconds, status, message):", timeline)
    assert task["status"] == "failed", timeline
    assert task["error"] == {"code": -32603, "message": task["statusMessage"]}
    assert task["statusMessage"].startswith(
        "The task was lost: the task worker running it stopped before it finished."
    )
    assert timeline[-1][0] < 5  # the 1 s lease, read at the next poll


def test_a_rerun_task_lost_with_its_worker_runs_again_on_another(deployment: Deployment) -> None:
    with task_worker(deployment) as first:
        task_id = create(deployment.url, "rerun_compute", {"seconds": 3})
        _wait_taken(deployment, task_id)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    with task_worker(deployment) as second:
        seen = until(deployment.url, task_id, "working")  # the poll that finds it lost
        deadline = time.monotonic() + 20
        messages = [seen.get("statusMessage", "")]
        while seen["status"] == "working" and time.monotonic() < deadline:
            time.sleep(0.1)
            seen = request(deployment.url, "tasks/get", {"taskId": task_id})["result"]
            messages.append(seen.get("statusMessage", ""))
        assert seen["status"] == "completed", (seen, messages)
        assert seen["result"]["content"][0]["text"] == f"computed after 3 s (pid {second.pid})"
        assert any(m.startswith("Running again (attempt 2 of 3)") for m in messages), messages


def _wait_taken(deployment: Deployment, task_id: str) -> None:
    """Until a worker took the task (the waiting message is gone)."""
    deadline = time.monotonic() + 15
    while True:
        task = request(deployment.url, "tasks/get", {"taskId": task_id})["result"]
        if task["status"] == "working" and not task.get("statusMessage"):
            return
        assert time.monotonic() < deadline, task
        time.sleep(0.05)


def test_a_server_without_the_engine_never_imports_taskiq(deployment: Deployment) -> None:
    engine_modules = {"taskiq", "taskiq_redis", f"{PACKAGE}._runtime.tasks.engine"}
    # The engine's server imported it (the check reads the report right)...
    assert engine_modules <= imported(deployment.folder / "server.log")
    # ...one on the same Redis without --task-engine runs its task itself, without it.
    port = free_port()
    command = importtime(http_command(PACKAGE, port, "--store", deployment.store))
    log = deployment.folder / "plain-server.log"
    with serving(deployment.root, command, port, log, env=ENV) as url:
        task_id = create(url, "rerun_compute", {"seconds": 0.1})
        done = until(url, task_id, "completed", "failed")
        assert done["status"] == "completed", done
    assert "; tasks run by taskiq task workers" in (deployment.folder / "server.log").read_text()
    modules = imported(log)
    assert f"{PACKAGE}._runtime.tasks.runner" in modules
    assert sorted(engine_modules & modules) == []


def test_a_worker_stopped_with_sigterm_finishes_its_running_task(deployment: Deployment) -> None:
    with task_worker(deployment) as worker:
        task_id = create(deployment.url, "slow_compute", {"seconds": 1})
        _wait_taken(deployment, task_id)
        worker.terminate()
        assert worker.wait(timeout=30) == 0
    done = request(deployment.url, "tasks/get", {"taskId": task_id})["result"]
    assert done["status"] == "completed", done  # before the worker exited


def test_a_worker_whose_redis_does_not_answer_stops_with_one_line(deployment: Deployment) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    command = [sys.executable, "-m", PACKAGE, "task-worker", "--redis", nowhere]
    stopped = subprocess.run(
        command, cwd=deployment.root, capture_output=True, text=True, timeout=60
    )
    assert stopped.returncode == 1
    (line,) = stopped.stderr.splitlines()
    assert line.startswith(f"--redis {nowhere}: Redis does not answer (")
    assert line.endswith("); start it or fix the URL")


def test_the_official_sdk_client_gets_the_workers_results(deployment: Deployment) -> None:
    """mcp 2.3's Client with the tasks extension of tests/e2e/test_tasks_sdk_client.py:
    it polls the server, answers the question asked on the task worker, and sees plain
    results."""
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from tests.e2e.test_tasks_sdk_client import TasksExtension, text_of

    async def talk(worker_pid: int) -> None:
        tasks = TasksExtension()

        # Declares elicitation (the worker checks the client's capabilities as a server
        # does); the task's question comes back through tasks/get instead.
        async def never(*_: object) -> None:
            raise AssertionError("a task's question reached the elicitation callback")

        transport = streamable_http_client(deployment.url)
        async with Client(
            transport, mode="2026-07-28", extensions=[tasks], elicitation_callback=never
        ) as client:
            done = await client.call_tool("rerun_compute", {"seconds": 0.2})
            assert text_of(done) == f"computed after 0.2 s (pid {worker_pid})"
            deleted = await client.call_tool("confirm_delete", {"filename": "b.txt"})
            assert text_of(deleted) == "deleted b.txt"
            assert "input_required" in tasks.seen and tasks.seen[-1] == "completed"

    with task_worker(deployment) as worker:
        anyio.run(talk, worker.pid)


def test_uvicorn_workers_of_one_server_all_hand_tasks_to_the_engine(
    deployment: Deployment,
) -> None:
    """--workers 2: each worker process reads MCP_TASK_ENGINE (PACKAGE.asgi:app)."""
    port = free_port()
    command = [*documented("--task-engine", deployment.store), "--port", str(port)]
    log = deployment.folder / "two-workers.log"
    command += ["--workers", "2"]
    with (
        serving(deployment.root, command, port, log, env=ENV) as url,
        task_worker(deployment) as worker,
    ):
        for _ in range(4):  # each request a new connection, which either worker may take
            task_id = create(url, "rerun_compute", {"seconds": 0.1})
            done = until(url, task_id, "completed", "failed")
            expected = f"computed after 0.1 s (pid {worker.pid})"
            assert done["result"]["content"][0]["text"] == expected, done


def test_a_status_written_by_an_engine_worker_reaches_the_servers_stream(
    deployment: Deployment,
) -> None:
    """notifications/tasks on a listen stream at the server (tests/e2e/test_tasks_listen.py)."""
    from tests.e2e.test_tasks_listen import WITH_TASKS, Stream, check, listen_body

    url = deployment.url
    with task_worker(deployment):
        task_id = create(url, "confirm_delete", {"filename": "z.txt"})
        stream = Stream(url, listen_body([task_id], WITH_TASKS, "watch-engine"))
        try:
            stream.until(task_id, "input_required")
            answer = {"confirm": {"action": "accept", "content": {"confirm": True}}}
            request(url, "tasks/update", {"taskId": task_id, "inputResponses": answer})
            # completed is written by the task worker alone: its notice crossed to the server
            done = stream.until(task_id, "completed")[-1]
            assert done["result"]["content"][0]["text"] == "deleted z.txt"
            for message in stream.messages:
                check(message)
        finally:
            stream.close()
