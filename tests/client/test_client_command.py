"""`mcp-codegen client LISTING --out DIR`: a standalone typed client package for a server
mcp-codegen did not generate. The reference "everything" server's listing
(data/everything-tools.json: its tools/list, saved over stdio from
@modelcontextprotocol/server-everything 2026.8.31) gives an importable, mypy --strict clean
package; a client made from a listing runs against a server, and a server that breaks the
outputSchema of that listing raises ContractError naming the tool and the JSON pointer."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.projects import EXAMPLE, build_embedded_example, mypy_strict, run_cli

pytest.importorskip("mcp")

EVERYTHING = Path(__file__).with_name("data") / "everything-tools.json"


def test_the_everything_listing_gives_a_typed_importable_package(tmp_path: Path) -> None:
    code, out, err = run_cli("client", str(EVERYTHING), "--out", str(tmp_path))
    assert code == 0, err
    assert "everything_tools_client" in out
    package = tmp_path / "everything_tools_client"
    source = (package / "client.py").read_text(encoding="utf-8")
    # tool names with dashes become the handlers' identifiers; number -> float, as on the server
    assert (
        "async def get_sum(self, *, a: float, b: float) -> list[_mcp_types.ContentBlock]:" in source
    )
    assert "async def get_structured_content(" in source
    listed = [t["name"] for t in json.loads(EVERYTHING.read_text(encoding="utf-8"))["tools"]]
    assert all(f'"{name}"' in source for name in listed)
    result = mypy_strict(tmp_path, "everything_tools_client")
    assert result.returncode == 0, result.stdout + result.stderr
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import everything_tools_client.client as c; print(c.Client.__name__)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert imported.stdout.strip() == "Client", imported.stderr


def _example_listing() -> dict[str, list[dict[str, object]]]:
    tools = []
    for path in sorted((EXAMPLE / "tools").glob("*.json")):
        tools.append(json.loads(path.read_text(encoding="utf-8")))
    return {"tools": tools}


CONTRACT = """
import anyio
from example_server._dispatch import SERVER
from stricter_client.client import ContractError, connect_in_process

async def main() -> None:
    async with connect_in_process(SERVER, mode="2026-07-28") as client:
        print(await client.tools.get_weather(location="Oslo"))
        try:
            await client.tools.weather_forecast(location="Oslo", days=2)
        except ContractError as error:
            print("contract", error.tool, error.pointer)
            print(error)

anyio.run(main)
"""


def test_a_server_that_breaks_the_listing_s_output_schema_raises_contract_error(
    tmp_path: Path,
) -> None:
    listing = _example_listing()
    stricter = copy.deepcopy(listing)
    for tool in stricter["tools"]:
        if tool["name"] == "weather_forecast":
            tool["outputSchema"]["properties"]["days"]["maxItems"] = 1  # type: ignore[index]
    (tmp_path / "stricter.json").write_text(json.dumps(stricter), encoding="utf-8")
    code, _, err = run_cli(
        "client",
        str(tmp_path / "stricter.json"),
        "--out",
        str(tmp_path),
        "--package",
        "stricter_client",
    )
    assert code == 0, err
    out = build_embedded_example(tmp_path / "built")
    result = subprocess.run(
        [sys.executable, "-c", CONTRACT],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{out}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "Weather in Oslo" in lines[0]
    assert lines[1] == "contract weather_forecast /days"
    assert "tool 'weather_forecast' broke its outputSchema at structuredContent#/days" in lines[2]


def test_a_tool_the_build_refuses_is_left_out_with_a_warning(tmp_path: Path) -> None:
    listing = {
        "tools": [
            {"name": "ok", "inputSchema": {"type": "object"}},
            {
                "name": "bad_header",
                "inputSchema": {
                    "type": "object",
                    "properties": {"a": {"type": "object", "x-mcp-header": "A"}},
                },
            },
        ]
    }
    (tmp_path / "listing.json").write_text(json.dumps(listing), encoding="utf-8")
    code, _, err = run_cli("client", str(tmp_path / "listing.json"), "--out", str(tmp_path))
    assert code == 0, err
    assert "listing.json#/tools/1: warning: tool 'bad_header' is left out of the client" in err
    source = (tmp_path / "listing_client" / "client.py").read_text(encoding="utf-8")
    assert "async def ok(self)" in source and "bad_header" not in source


def test_a_listing_that_is_not_one_says_where(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"tools": [{"name": 3}]}', encoding="utf-8")
    code, _, err = run_cli("client", str(tmp_path / "broken.json"), "--out", str(tmp_path))
    assert code == 2
    assert "broken.json#/tools/0" in err
    assert not (tmp_path / "broken_client").exists()
    code, _, err = run_cli("client", str(tmp_path / "missing.json"), "--out", str(tmp_path))
    assert code == 2 and "missing.json" in err and "no such file" in err
