"""`mcp-codegen import openapi` on a generated document of N operations (every schema
reaching 50 shared components, the worst case for copying), beside FastMCP's
`from_openapi` on the same document: its start-up is paid by every server start, ours
once at import and build; what a generated server pays at start-up is measured too.

    .venv/bin/python bench/bench_openapi.py [--operations 1000] [--build]

Wall-clock on a noisy machine: read the ratios. --build also builds the project (minutes
for 1,000 tools) and times the generated server from start to its last tools/list page.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def document(operations: int) -> dict[str, Any]:
    schemas = {
        f"S{i}": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "next": {"$ref": f"#/components/schemas/S{(i + 1) % 50}"},
                "name": {"type": "string", "nullable": True},
            },
        }
        for i in range(50)
    }
    paths: dict[str, Any] = {}
    for i in range(operations // 2):
        schema = {"$ref": f"#/components/schemas/S{i % 50}"}
        paths[f"/things{i}/{{id}}"] = {
            "get": {
                "operationId": f"get{i}",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "responses": {
                    "200": {"description": "", "content": {"application/json": {"schema": schema}}}
                },
            },
            "post": {
                "operationId": f"post{i}",
                "requestBody": {"content": {"application/json": {"schema": schema}}},
                "responses": {"204": {"description": ""}},
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Bench", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
        "components": {"schemas": schemas},
    }


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


FASTMCP = """
import json, sys, time, asyncio
start = time.perf_counter()
import httpx2
from fastmcp import FastMCP
spec = json.load(open(sys.argv[1]))
server = FastMCP.from_openapi(openapi_spec=spec, client=httpx2.AsyncClient(base_url="http://127.0.0.1:9"))
tools = asyncio.run(server.list_tools())
print(len(tools), time.perf_counter() - start)
"""

LIST = """
import json, subprocess, sys, time
start = time.perf_counter()
server = subprocess.Popen([sys.executable, "-m", "big"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def ask(message):
    server.stdin.write((json.dumps(message) + "\\n").encode()); server.stdin.flush()
    return json.loads(server.stdout.readline()) if "id" in message else None
ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
     "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
count, cursor, number = 0, None, 1
while True:
    page = ask({"jsonrpc": "2.0", "id": number, "method": "tools/list",
                "params": {"cursor": cursor} if cursor else {}})["result"]
    count, cursor, number = count + len(page["tools"]), page.get("nextCursor"), number + 1
    if not cursor:
        break
print(count, time.perf_counter() - start)
server.stdin.close(); server.wait()
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--operations", type=int, default=1000)
    parser.add_argument("--build", action="store_true")
    options = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-openapi-") as folder:
        root = Path(folder)
        spec = root / "api.json"
        spec.write_text(json.dumps(document(options.operations)), encoding="utf-8")
        (root / "tools").mkdir()
        (root / "pyproject.toml").write_text(
            '[project]\nname = "b"\nversion = "0"\n\n[tool.mcp-codegen]\npackage = "big"\n'
            'revisions = ["2025-11-25"]\n',
            encoding="utf-8",
        )
        cli = [python, "-m", "mcp_schemagen.cli"]
        imported = timed([*cli, "import", "openapi", "-q", str(spec)], root)
        size = sum(p.stat().st_size for p in (root / "tools").iterdir()) / 1e6
        print(
            f"mcp-codegen import: {options.operations} operations in {imported:.1f} s ({size:.1f} MB of tool files)"
        )
        done = subprocess.run(
            [python, "-c", FASTMCP, str(spec)], capture_output=True, text=True, check=False
        )
        if done.returncode == 0:
            tools, seconds = done.stdout.split()
            print(
                f"FastMCP from_openapi: {tools} tools listed {float(seconds):.1f} s after start, at every start"
            )
        else:
            print(f"FastMCP from_openapi failed: {done.stderr.strip().splitlines()[-1:]}")
        if options.build:
            built = timed([*cli, "build", "-q"], root)
            print(f"mcp-codegen build: {built:.1f} s")
            listed = subprocess.run(
                [python, "-c", LIST], cwd=root, capture_output=True, text=True, check=True
            )
            tools, seconds = listed.stdout.split()
            print(f"generated server: {tools} tools listed {float(seconds):.2f} s after start")


if __name__ == "__main__":
    main()
