"""Completion handlers end to end with the official MCP Python SDK client: a project built
from a prompt and a resource template that ask for completion handlers
(x-mcp-codegen-complete) answers `complete` from the handlers in handlers.py (async and
sync, given the client's context arguments, capped at 100 with total and hasMore), from
the enum where there is no handler, and fails a broken handler with -32603, over stdio
and Streamable HTTP in each of the client's connection modes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support.http_server import free_port, http_command, serving
from tests.support.projects import run_cli, tool, write_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import PromptReference, ResourceTemplateReference  # noqa: E402

TEMPLATE = "app://stations/{country}/{station}"
PROMPT = {
    "name": "trip",
    "arguments": [
        {"name": "country", "x-mcp-codegen-schema": {"enum": ["no", "de"]}},
        {"name": "city", "required": True, "x-mcp-codegen-complete": True},
        {"name": "broken", "x-mcp-codegen-complete": True},
    ],
}
RESOURCES = {
    "resourceTemplates": [
        {"uriTemplate": TEMPLATE, "name": "station", "x-mcp-codegen-complete": ["station"]}
    ]
}
BODIES = {
    'raise NotImplementedError("prompt trip city")': (
        "await asyncio.sleep(0)\n"
        '    cities = {"no": ["Oslo", "Bergen"], "de": ["Berlin", "Bremen"]}\n'
        '    found = cities.get(arguments.get("country", ""), ["Oslo", "Bergen", "Berlin"])\n'
        "    return [c for c in found if c.startswith(value)]"
    ),
    'raise NotImplementedError("prompt trip broken")': 'raise RuntimeError("index down")',
    f'raise NotImplementedError("resource {TEMPLATE} station")': (
        "return [f\"{arguments['country']}-{value}{n}\" for n in range(150)]"
    ),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("completion") / "p",
        {"echo.json": tool()},
        revisions=("2025-06-18", "2025-11-25", "2026-07-28"),
    )
    (root / "prompts").mkdir()
    (root / "prompts" / "trip.json").write_text(json.dumps(PROMPT), encoding="utf-8")
    (root / "resources").mkdir()
    (root / "resources" / "stations.json").write_text(json.dumps(RESOURCES), encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    text = text.replace("def complete_trip_city(", "async def complete_trip_city(")
    text = text.replace(
        "from __future__ import annotations\n",
        "from __future__ import annotations\n\nimport asyncio\n",
    )
    for stub, body in BODIES.items():
        assert stub in text
        text = text.replace(stub, body)
    handlers.write_text(text, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))  # the merge keeps the bodies
    assert code == 0, err
    assert "index down" in handlers.read_text(encoding="utf-8")
    return root


async def exercise(client: Any) -> None:
    trip = PromptReference(type="ref/prompt", name="trip")
    done = await client.complete(trip, {"name": "city", "value": "B"}, {"country": "de"})
    assert done.completion.values == ["Berlin", "Bremen"]
    done = await client.complete(trip, {"name": "city", "value": "B"})
    assert done.completion.values == ["Bergen", "Berlin"]
    done = await client.complete(trip, {"name": "country", "value": "d"})
    assert done.completion.values == ["de"]  # no handler: the enum by prefix
    station = ResourceTemplateReference(type="ref/resource", uri=TEMPLATE)
    many = await client.complete(station, {"name": "station", "value": "x"}, {"country": "no"})
    assert many.completion.values == [f"no-x{n}" for n in range(100)]
    assert (many.completion.total, many.completion.has_more) == (150, True)
    with pytest.raises(MCPError) as failed:
        await client.complete(trip, {"name": "broken", "value": ""})
    assert failed.value.error.code == -32603 and "index down" in failed.value.error.message
    done = await client.complete(trip, {"name": "city", "value": "O"})  # still serving
    assert done.completion.values == ["Oslo"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_stdio(mode: str, project: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], cwd=str(project))

    async def run() -> None:
        with (tmp_path / "stderr.log").open("w") as err:
            async with Client(
                stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=15
            ) as client:
                await exercise(client)

    async def bounded() -> None:
        with anyio.fail_after(60):
            await run()

    anyio.run(bounded)
    assert "RuntimeError: index down" in (tmp_path / "stderr.log").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def url(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "server.log"
    with serving(project, http_command("server", port), port, log) as served:
        yield served


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_http(mode: str, url: str) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            async with Client(url, mode=mode, read_timeout_seconds=15) as client:
                await exercise(client)

    anyio.run(bounded)
