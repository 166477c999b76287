"""What a stdio server imports before its first tool call, observed from outside.

The generated package is served over stdio by a fresh interpreter run with
``-X importtime``, which reports every module the process imports on stderr. Up to
initialize and tools/list, a stdio server must not import what only ``--http`` needs (the
HTTP stack, uvicorn, the session store), nor the validators (loaded on a tool's first
call): those would make every client's start-up pay for them. A tools-only server started
with no options imports neither argparse nor the authorization settings, nor what serves
prompts and resources, nor what asking the client and sealing a requestState need; each
of those still comes, and works, when its feature is used.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.support.paths import SHARED_SPECS
from tests.support.projects import build_embedded_example, run_cli, tool, write_project

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
    "example_server._runtime.store.redis_store",
    # Only --task-engine taskiq and task-worker: the engine (runtime/tasks/engine*.py).
    "taskiq",
    "taskiq_redis",
    "example_server._runtime.tasks.engine",
)


# What a tools-only stdio server started with no options leaves unimported (the
# runtime's modules named from the package).
UNTIL_NEEDED = (
    "argparse",  # only options need it
    "_runtime.http.auth_setup",  # only --http configures authorization
    "_runtime.auth.settings",
    "_runtime.auth.principal",  # only the HTTP app sets a principal
    "_runtime.http.settings",
    "_runtime.prompts.serving",  # only a server with prompts
    "_runtime.prompts.table",
    "_runtime.core.completion",
    "_runtime.prompt_result",
    "_runtime.resources.serving",  # only a server with resources
    "_runtime.resources.table",
    "_runtime.resources.uri_template",
    "_runtime.asking.questions",  # only a handler asking the client
    "hashlib",  # only sealing a 2026-07-28 requestState
    "hmac",
    "secrets",
)
ECHO = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "hi"}},
}


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_embedded_example(tmp_path_factory.mktemp("startup"))


@pytest.fixture(scope="module")
def tools_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated package (``server``) with one tool, no prompts or resources."""
    project = write_project(
        tmp_path_factory.mktemp("tools-only"), {"echo.json": tool()}, revisions=("2025-06-18",)
    )
    code, _, err = run_cli("build", "-q", str(project))
    assert code == 0, err
    handlers = project / "server" / "handlers.py"
    stub = 'raise NotImplementedError("echo")'
    assert stub in handlers.read_text()
    handlers.write_text(handlers.read_text().replace(stub, "return text"))
    return project


def run_server(
    folder: Path,
    messages: Sequence[Mapping[str, object]],
    package: str = "example_server",
    options: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", package, *options],
        cwd=folder,
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=60,
    )


def imported(
    folder: Path,
    messages: Sequence[Mapping[str, object]],
    package: str = "example_server",
    options: tuple[str, ...] = (),
) -> tuple[set[str], list[str]]:
    """The modules a stdio server imported while answering ``messages`` (then stdin
    closes), and its replies."""
    done = run_server(folder, messages, package, options)
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


def lazy_ones_in(modules: set[str], package: str) -> list[str]:
    names = [f"{package}.{m}" if m.startswith("_runtime.") else m for m in UNTIL_NEEDED]
    return sorted(m for m in names if m in modules)


def test_a_tools_only_stdio_server_starts_without_what_it_does_not_use(tools_only: Path) -> None:
    modules, replies = imported(tools_only, [INITIALIZE, INITIALIZED, LIST, ECHO], "server")
    by_id = {reply["id"]: reply for reply in map(json.loads, replies)}
    assert [t["name"] for t in by_id[2]["result"]["tools"]] == ["echo"]
    assert by_id[3]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert "server._runtime.server" in modules and "server._runtime.stdio" in modules
    assert lazy_ones_in(modules, "server") == []
    # A prompts or resources request it has no capability for is refused as before.
    modules, replies = imported(
        tools_only,
        [INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": 4, "method": "prompts/list"}],
        "server",
    )
    assert json.loads(replies[1])["error"]["code"] == -32601
    assert lazy_ones_in(modules, "server") == []


def test_options_still_parse_and_bring_argparse(tools_only: Path) -> None:
    options = ("--max-concurrent-requests", "2")
    modules, replies = imported(tools_only, [INITIALIZE, INITIALIZED, ECHO], "server", options)
    assert json.loads(replies[1])["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert "argparse" in modules
    refused = run_server(tools_only, [INITIALIZE], "server", ("--port", "8001"))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == "python -m server: error: --port needs --http"
    shown = run_server(tools_only, [], "server", ("--help",))
    assert shown.returncode == 0 and shown.stdout.startswith("usage: python -m server [-h]")
    for option in ("--http", "--max-concurrent-requests", "--store", "--auth-issuer", "--no-auth"):
        assert option in shown.stdout


def test_a_bad_environment_without_options_is_refused_as_argparse_would(tools_only: Path) -> None:
    """The no-options path reports a bad MCP_MAX_CONCURRENT_REQUESTS with the usage line
    and exit status 2, as the options path does."""
    done = subprocess.run(
        [sys.executable, "-m", "server"],
        cwd=tools_only,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MCP_MAX_CONCURRENT_REQUESTS": "many"},
    )
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m server [-h]")
    assert done.stderr.splitlines()[-1] == (
        "python -m server: error: MCP_MAX_CONCURRENT_REQUESTS='many': must be a positive integer"
    )


def test_a_project_with_prompts_and_resources_serves_them(example: Path) -> None:
    get = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "prompts/get",
        "params": {"name": "weather_briefing", "arguments": {"city": "Oslo", "style": "haiku"}},
    }
    resources = {"jsonrpc": "2.0", "id": 6, "method": "resources/list"}
    modules, replies = imported(example, [INITIALIZE, INITIALIZED, get, resources])
    by_id = {reply["id"]: reply for reply in map(json.loads, replies)}  # any order
    text = by_id[5]["result"]["messages"][0]["content"]["text"]
    assert text.endswith("for Oslo, as a haiku.")
    assert by_id[6]["result"]["resources"], by_id[6]
    assert "example_server._runtime.prompts.serving" in modules
    assert "example_server._runtime.resources.serving" in modules
