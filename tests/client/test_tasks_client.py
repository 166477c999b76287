"""The typed client's tasks, end to end: the generated client of tests/client/tasks_project
against its generated server (a real process) over stdio and Streamable HTTP, in both eras
(2026-07-28's tasks extension, 2025-11-25's `params.task`): a task tool's plain method
returns its typed result, `start_<tool>` a handle whose status, wait and cancel work, a
question is answered by the elicitation callback (or refused with TaskInputError), failures
and timeouts raise their errors (tasks_scenario.py, run in a fresh interpreter). And mypy
--strict sees the handle's result type."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.docs import block
from tests.support.http_server import build_project, free_port, http_command, serving
from tests.support.paths import needs_shared

pytest.importorskip("mcp")
pytestmark = needs_shared

PROJECT = Path(__file__).with_name("tasks_project")
SCENARIO = Path(__file__).with_name("tasks_scenario.py")
PACKAGE = "tasks_server"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_project(PROJECT, tmp_path_factory.mktemp("tasks-client"), PACKAGE)


def run_scenario(root: Path, *arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, str(SCENARIO), *arguments],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def assert_every_step(output: str, mode: str) -> None:
    lines = output.splitlines()
    assert lines[0] == "protocol " + ("2025-11-25" if mode == "legacy" else "2026-07-28")
    expected = [
        "call make_report 3 3 rows counted",
        "handle make_report 5 5 rows counted",
        "call confirm_delete deleted a.txt",
        "isError failing_job failing_job failed, as it always does",
        "failed failing_job -32603 failing_job failed with a JSON-RPC error",
        "timeout True working",
        "cancelled True cancelled",
        "plain hi",
    ]
    assert lines[1 : 1 + len(expected)] == expected, output
    if mode != "legacy":
        assert lines[9].startswith("unanswerable tool 'confirm_delete', task "), output
        assert (
            "the task asked elicitation/create ('confirm') and this client could not answer: "
            "no one here to answer; pass the callback to connect_*(elicitation=..., "
            "sampling=..., roots=...). The task was cancelled." in lines[9]
        ), output
        assert lines[10] == "after unanswerable cancelled", output


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_stdio(built: Path, mode: str) -> None:
    assert_every_step(run_scenario(built, "stdio", mode), mode)


def test_http_both_eras(built: Path, tmp_path: Path) -> None:
    port = free_port()
    with serving(built, http_command(PACKAGE, port), port, tmp_path / "server.log") as url:
        for mode in ("legacy", "2026-07-28"):
            assert_every_step(run_scenario(built, "http", mode, url), mode)


SNIPPET = """
from tasks_server.client import Client


async def use(client: Client) -> None:
    handle = await client.tools.start_make_report(rows=2)
    reveal_type(handle)
    report = await handle.wait(timeout=5)
    reveal_type(report["rows"])
    reveal_type(await client.tools.start_confirm_delete(filename="a"))
    await client.tools.start_make_report(rows="two")
    await client.tools.start_plain_echo(text="never a task")
"""


def test_mypy_sees_the_handles_result_type(built: Path) -> None:
    (built / "use_tasks.py").write_text(SNIPPET, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "use_tasks.py"],
        cwd=built,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = result.stdout
    assert 'Revealed type is "tasks_server._tasks.TaskHandle[TypedDict(' in out, out
    assert 'use_tasks.py:9: note: Revealed type is "int"' in out, out
    assert 'use_tasks.py:10: note: Revealed type is "tasks_server._tasks.TaskHandle[list[' in out
    assert 'use_tasks.py:11: error: Argument "rows" to "start_make_report"' in out, out
    assert 'use_tasks.py:12: error: "ClientTools" has no attribute "start_plain_echo"' in out, out
    assert "Found 2 errors" in out, out


def test_the_typed_client_pages_example_runs(built: Path) -> None:
    code = block("how-to/typed-client.md", "## Tools that run as tasks", "python")
    (built / "doc_example.py").write_text(code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "doc_example.py"],
        cwd=built,
        env={**os.environ, "PYTHONPATH": str(built)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
