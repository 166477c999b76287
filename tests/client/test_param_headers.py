"""`x-mcp-header` parameters reach a 2026-07-28 server as `Mcp-Param-*` headers from the
typed client with no tools/list first: the client knows them from the schema files. The
conformance fixture server refuses a tools/call whose headers do not mirror the body, so
a call it answers proves the headers were sent, and one made by a bare SDK client (which
learns the headers only from tools/list) shows the server would have refused."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_server import (
    CONFORMANCE_PROJECT,
    build_project,
    free_port,
    http_command,
    serving,
)

pytest.importorskip("mcp")

PACKAGE = "conformance_server"

CALLS = """
import sys
import anyio
from mcp import Client, MCPError
from conformance_server.client import connect_http

async def main(url: str) -> None:
    async with connect_http(url, mode="2026-07-28") as client:
        blocks = await client.tools.test_header_params(
            region="eu-west", query="tea", count=3, dry_run=True
        )
        print("typed", blocks[0].text)
        blocks = await client.tools.test_header_params(region="caf\\u00e9 \\u2603", query="q")
        print("typed", blocks[0].text)
    async with Client(url, mode="2026-07-28") as bare:
        try:
            await bare.session.call_tool("test_header_params", {"region": "eu-west", "query": "tea"})
        except MCPError as error:
            print("bare", error.code, error.message)
        else:
            print("bare accepted")

anyio.run(main, sys.argv[1])
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    folder = tmp_path_factory.mktemp("headers")
    root = build_project(CONFORMANCE_PROJECT, folder, PACKAGE)
    port = free_port()
    with serving(root, http_command(PACKAGE, port), port, folder / "server.log") as url:
        yield root, url


def test_param_headers_are_sent_from_the_schema(server: tuple[Path, str]) -> None:
    root, url = server
    result = subprocess.run(
        [sys.executable, "-c", CALLS, url],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "typed tea in eu-west (count 3, dry run True)"
    assert lines[1] == "typed q in caf\u00e9 \u2603 (count None, dry run None)"
    assert lines[2].startswith("bare "), lines
    assert "Mcp-Param-Region" in lines[2]
