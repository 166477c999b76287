"""What a stdio server imports before its first tool call, observed from outside.

The generated package is served over stdio by a fresh interpreter run with
``-X importtime``, which reports every module the process imports on stderr. Up to
initialize and tools/list, a stdio server must not import what only ``--http`` needs (the
HTTP stack, uvicorn, the session store), nor the validators (loaded on a tool's first
call): those would make every client's start-up pay for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import build_embedded_example

pytestmark = pytest.mark.skipif(not SHARED_SPECS.is_dir(), reason="needs ../shared/specs")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
CALL = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "divide", "arguments": {"dividend": 6, "divisor": 3}},
}
# Only --http needs these (the store: sessions, shared by HTTP workers).
HTTP_ONLY = (
    "uvicorn",
    "h11",
    "httptools",
    "redis",
    "example_server._runtime.http.app",
    "example_server._runtime.http.endpoint",
    "example_server._runtime.http.sessions",
    "example_server._runtime.store",
    "example_server._runtime.redis_store",
)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("startup"))


def imported(folder: Path, messages: list[dict[str, object]]) -> tuple[set[str], list[str]]:
    """The modules a stdio server imported while answering ``messages`` (then stdin
    closes), and its replies."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "example_server"],
        cwd=folder,
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {
        line.split("|")[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return modules, done.stdout.splitlines()


def test_stdio_start_up_imports_nothing_of_http(example: Path) -> None:
    modules, replies = imported(example, [INITIALIZE, INITIALIZED, LIST])
    assert len(replies) == 2 and '"tools"' in replies[1]
    assert "example_server._runtime.server" in modules  # the report is read right
    assert sorted(m for m in HTTP_ONLY if m in modules) == []
    assert "jsonschema_rs" not in modules  # validators come with a tool's first call
    assert "shutil" not in modules  # argparse's width, asked of shutil, brought bz2 and lzma


def test_a_tool_call_loads_its_validator(example: Path) -> None:
    modules, replies = imported(example, [INITIALIZE, INITIALIZED, CALL])
    assert '"isError":true' not in replies[-1].replace(" ", ""), replies[-1]
    assert "jsonschema_rs" in modules
    assert sorted(m for m in HTTP_ONLY if m in modules) == []
