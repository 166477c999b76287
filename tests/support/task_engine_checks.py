"""The task engine with the releases of one venv (the newest end of the ``tasks`` extra's
range, tests/e2e/test_dependency_range_ends.py), standard library only:

    python -m tests.support.task_engine_checks PROJECT PACKAGE REDIS_URL

An HTTP server with ``--task-engine taskiq`` and one ``task-worker`` on that Redis; a
2026-07-28 tools/call answered with a task, polled with tasks/get until the worker ran it.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.range_end_checks import _free_port

REVISION = "2026-07-28"
EXTENSION = "io.modelcontextprotocol/tasks"


def _rpc(port: int, request_id: int, method: str, params: dict[str, Any]) -> Any:
    meta = {
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    }
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": meta},
    }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": REVISION,
        "Mcp-Method": method,
        "Mcp-Name": str(params.get("name", params.get("taskId"))),
    }
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    connection.request("POST", "/mcp", json.dumps(body), headers)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    assert response.status == 200, text
    if text.lstrip().startswith("{"):
        return json.loads(text)
    last = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return json.loads(last)  # the stream's last message: the response


def _started(command: list[str], project: Path, ready: Any) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, cwd=project, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not ready(process):
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, f"{command} did not start"
        time.sleep(0.1)
    return process


def check_task_engine(project: Path, package: str, store: str) -> None:
    port = _free_port()
    server_command = [sys.executable, "-m", package, "--http", "--port", str(port)]
    server_command += ["--store", store, "--task-engine", "taskiq"]

    def answering(_: subprocess.Popen[bytes]) -> bool:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/readyz")
            ok = connection.getresponse().status == 200
            connection.close()
            return ok
        except OSError:
            return False

    worker_command = [sys.executable, "-m", package, "task-worker", "--redis", store]
    server = _started(server_command, project, answering)
    worker = subprocess.Popen(worker_command, cwd=project)
    try:
        created = _rpc(
            port, 1, "tools/call", {"name": "rerun_compute", "arguments": {"seconds": 0.1}}
        )
        task_id = created["result"]["taskId"]
        deadline = time.monotonic() + 30
        while True:
            task = _rpc(port, 2, "tasks/get", {"taskId": task_id})["result"]
            if task["status"] != "working":
                break
            assert worker.poll() is None, "the task worker stopped"
            assert time.monotonic() < deadline, task
            time.sleep(0.1)
        expected = f"computed after 0.1 s (pid {worker.pid})"
        assert task["result"]["content"][0]["text"] == expected, task
    finally:
        for process in (worker, server):
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    check_task_engine(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
    print("task engine checks passed")
