"""Resources end to end with the official MCP Python SDK client: a project built from a
resource file (a static resource read from a project file, one served by a reader, and a
template with a typed enum variable) lists, reads and completes them over stdio and over
Streamable HTTP, in each of the client's connection modes; the SDK validates every
response with its own models."""

from __future__ import annotations

import base64
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
from mcp.types import ResourceTemplateReference  # noqa: E402

RESOURCES = {
    "resources": [
        {
            "uri": "docs://guide",
            "name": "guide",
            "title": "User guide",
            "mimeType": "text/markdown",
            "x-mcp-codegen-file": "docs/guide.md",
        },
        {"uri": "app://logo", "name": "logo", "mimeType": "image/png"},
    ],
    "resourceTemplates": [
        {
            "uriTemplate": "weather://forecast/{city}{?units}",
            "name": "forecast",
            "mimeType": "application/json",
            "x-mcp-codegen-schema": {
                "city": {"minLength": 1},
                "units": {"enum": ["celsius", "fahrenheit"]},
            },
        }
    ],
}
HANDLERS = '''"""Handlers."""

from __future__ import annotations

import json

from .api import get_context
from .types import ForecastResourceUnits, ResourceReturn, ToolReturn


# mcp-codegen tool: "echo"
def echo(*, text: str) -> ToolReturn:
    return text


# mcp-codegen resource: "app://logo"
def read_logo() -> ResourceReturn:
    return b"\\x89PNG"


# mcp-codegen resource: "weather://forecast/{city}{?units}"
async def read_forecast(*, city: str, units: ForecastResourceUnits | None = None) -> ResourceReturn:
    revision = get_context().protocol_version
    return json.dumps({"city": city, "units": units or "celsius", "revision": revision})
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("resources") / "p",
        {"echo.json": tool()},
        revisions=("2025-06-18", "2025-11-25", "2026-07-28"),
    )
    (root / "resources").mkdir()
    (root / "resources" / "all.json").write_text(json.dumps(RESOURCES), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    (root / "server").mkdir()
    (root / "server" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


async def exercise(client: Any, stateless: bool) -> None:
    if client.server_capabilities is not None and not stateless:
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.completions is not None
    listed = await client.list_resources()
    assert [(str(r.uri), r.name) for r in listed.resources] == [
        ("docs://guide", "guide"),
        ("app://logo", "logo"),
    ]
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == [
        "weather://forecast/{city}{?units}"
    ]
    guide = await client.read_resource("docs://guide")
    assert guide.contents[0].text == "# Guide\n"
    assert guide.contents[0].mime_type == "text/markdown"
    logo = await client.read_resource("app://logo")
    assert base64.b64decode(logo.contents[0].blob) == b"\x89PNG"
    forecast = await client.read_resource("weather://forecast/Oslo?units=fahrenheit")
    expected = "2026-07-28" if stateless else "2025-11-25"
    assert json.loads(forecast.contents[0].text) == {
        "city": "Oslo",
        "units": "fahrenheit",
        "revision": expected,
    }
    with pytest.raises(MCPError) as invalid:
        await client.read_resource("weather://forecast/Oslo?units=kelvin")
    assert invalid.value.error.code == -32602 and "'units'" in invalid.value.error.message
    with pytest.raises(MCPError) as missing:
        await client.read_resource("app://nothing")
    assert missing.value.error.code == (-32602 if stateless else -32002)
    done = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri="weather://forecast/{city}{?units}"),
        {"name": "units", "value": "c"},
    )
    assert done.completion.values == ["celsius"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_stdio(mode: str, project: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], cwd=str(project))

    async def run() -> None:
        with (tmp_path / "stderr.log").open("w") as err:
            async with Client(
                stdio_client(params, errlog=err), mode=mode, read_timeout_seconds=15
            ) as client:
                await exercise(client, mode != "legacy")

    async def bounded() -> None:
        with anyio.fail_after(60):
            await run()

    anyio.run(bounded)


@pytest.fixture(scope="module")
def url(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("http") / "server.log"
    with serving(project, http_command("server", port), port, log) as served:
        yield served


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_http(mode: str, url: str) -> None:
    async def bounded() -> None:
        with anyio.fail_after(60):
            async with Client(url, mode=mode, read_timeout_seconds=15) as client:
                await exercise(client, mode != "legacy")

    anyio.run(bounded)
