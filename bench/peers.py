"""The servers bench/bench_server.py and bench/bench_http.py measure, all serving the same
tools (``get_weather_0`` ...: a required string ``location``, an enum ``units`` with a
default): a bare orjson loop, the package mcp-codegen generates (and its ``@nonblocking``
and ``async def`` copies), the official SDK's low-level ``Server`` and FastMCP, each written out as a program."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

REPO = Path(__file__).resolve().parents[1]
TOOLS = 100
LARGE = 500  # tools of the large server: start-up and idle memory
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string", "minLength": 1},
        "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
    },
    "required": ["location"],
    "additionalProperties": False,
}
ARGUMENTS = {"location": "Oslo", "units": "fahrenheit"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call_message(request_id: int, tool: int = 42) -> bytes:
    return orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": f"get_weather_{tool}", "arguments": ARGUMENTS},
        }
    )


# ------------------------------------------------------------------------- the peers

BARE = '''
"""A bare orjson loop: the floor any Python stdio server stands on."""
import sys

import orjson

def get_weather(location, units="celsius"):
    return f"{location}: 21 degrees {units}"

HANDLERS = {f"get_weather_{i}": get_weather for i in range(__TOOLS__)}
TOOL_LIST = [{"name": name, "inputSchema": {"type": "object"}} for name in HANDLERS]


def handle(raw):
    message = orjson.loads(raw)
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "tools/call":
        params = message["params"]
        text = HANDLERS[params["name"]](**params.get("arguments", {}))
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bare", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOL_LIST}
    else:
        result = {}
    return orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        reply = handle(line)
        if reply is not None:
            out.write(reply + b"\\n")
            out.flush()


if __name__ == "__main__":
    main()
'''.replace("__TOOLS__", str(TOOLS))

SDK = '''
"""The same tools on the official SDK's low-level Server."""
import anyio
import jsonschema_rs
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

SCHEMA = {schema!r}
VALIDATOR = jsonschema_rs.validator_for(SCHEMA)
TOOLS = [
    types.Tool(name=f"get_weather_{{i}}", description="Weather for a city", input_schema=SCHEMA)
    for i in range({tools})
]
NAMES = {{tool.name for tool in TOOLS}}


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx, params):
    arguments = params.arguments or {{}}
    if params.name not in NAMES or not VALIDATOR.is_valid(arguments):
        text = "; ".join(e.message for e in VALIDATOR.iter_errors(arguments)) or "unknown tool"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
    units = arguments.get("units", "celsius")
    text = f"{{arguments['location']}}: 21 degrees {{units}}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("sdk", version="1", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
'''

FASTMCP = '''
"""The same tools on FastMCP."""
from typing import Annotated, Literal

from fastmcp import FastMCP
from pydantic import Field

mcp = FastMCP("fastmcp")


def make(i):
    def get_weather(
        location: Annotated[str, Field(min_length=1)],
        units: Literal["celsius", "fahrenheit"] = "celsius",
    ) -> str:
        """Weather for a city"""
        return f"{{location}}: 21 degrees {{units}}"

    get_weather.__name__ = f"get_weather_{{i}}"
    return get_weather


for i in range({tools}):
    mcp.tool(make(i), name=f"get_weather_{{i}}")

if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
'''


# The floor over HTTP (bench_http.py): an ASGI app that does nothing but read the request
# and answer, under uvicorn and under granian.
HELLO = '''
"""A bare "hello" ASGI app: the floor under every server on the same ASGI server."""
BODY = b\'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}\'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
'''


def generate_ours(root: Path, count: int = TOOLS) -> None:
    """Build ``ours_pkg`` with mcp-codegen from ``count`` tool files, as a user would, and
    fill in the handler bodies (the build keeps them)."""
    tools = root / "ours_project" / "tools"
    tools.mkdir(parents=True)
    for i in range(count):
        definition = {
            "name": f"get_weather_{i}",
            "description": "Weather for a city",
            "inputSchema": SCHEMA,
        }
        (tools / f"get_weather_{i}.json").write_text(orjson.dumps(definition).decode())
    (root / "ours_project" / "pyproject.toml").write_text(
        '[project]\nname = "ours"\nversion = "1"\n\n[tool.mcp-codegen]\n'
        'package = "ours_pkg"\nout = ".."\npage-size = 1000\n'
    )
    # The package goes beside the peers (out = ".."), outside the project: allowed here.
    project = str(root / "ours_project")
    build = [
        sys.executable,
        "-m",
        "mcp_schemagen.cli",
        "build",
        "-q",
        "--allow-outside-project",
        project,
    ]
    environment = dict(os.environ)
    shared_specs = REPO.parent / "shared" / "specs"
    if "MCP_CODEGEN_SPEC_MIRROR" not in environment and shared_specs.is_dir():
        environment["MCP_CODEGEN_SPEC_MIRROR"] = str(shared_specs)
    subprocess.run(build, check=True, capture_output=True, cwd=REPO, env=environment)
    handlers = root / "ours_pkg" / "handlers.py"
    text = handlers.read_text()
    for i in range(count):
        text = text.replace(
            f'raise NotImplementedError("get_weather_{i}")',
            'return f"{location}: 21 degrees {units}"',
        )
    handlers.write_text(text)
    subprocess.run(
        build, check=True, capture_output=True, cwd=REPO, env=environment
    )  # keeps bodies
    compile_bytecode(root / "ours_pkg")
    # The fast-path copy: generated modules import each other relatively, so a copy of the
    # folder under another name is a package of its own.
    fast = root / "ours_fast_pkg"
    shutil.copytree(root / "ours_pkg", fast)
    text = (fast / "handlers.py").read_text()
    text = text.replace("\ndef get_weather_", "\n@nonblocking\ndef get_weather_")
    future = "from __future__ import annotations\n"
    assert future in text
    text = text.replace(future, future + "\nfrom .api import nonblocking\n", 1)
    (fast / "handlers.py").write_text(text)
    # The `async def` copy: the same handlers as coroutines, run on the loop as tasks.
    coroutines = root / "ours_async_pkg"
    shutil.copytree(root / "ours_pkg", coroutines)
    text = (coroutines / "handlers.py").read_text()
    (coroutines / "handlers.py").write_text(
        text.replace("\ndef get_weather_", "\nasync def get_weather_")
    )
    compile_bytecode(fast)
    compile_bytecode(coroutines)


def compile_bytecode(package: Path) -> None:
    """Write the package's bytecode caches, as ``pip install`` does for an installed
    package (and as the peers in site-packages have theirs): start-up is then measured as
    every start after the first, even where PYTHONDONTWRITEBYTECODE is set."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def write_peers(root: Path) -> dict[str, list[str]]:
    """Write every peer under ``root``; return the command serving each over stdio."""
    generate_ours(root)
    (root / "peer_bare.py").write_text(BARE)
    (root / "peer_sdk.py").write_text(SDK.format(schema=SCHEMA, tools=TOOLS))
    (root / "peer_fastmcp.py").write_text(FASTMCP.format(tools=TOOLS))
    python = sys.executable
    return {
        "bare orjson loop": [python, str(root / "peer_bare.py")],
        "ours": [python, "-m", "ours_pkg"],
        "ours, @nonblocking": [python, "-m", "ours_fast_pkg"],
        "ours, async def": [python, "-m", "ours_async_pkg"],
        "SDK low-level Server": [python, str(root / "peer_sdk.py")],
        "FastMCP": [python, str(root / "peer_fastmcp.py")],
    }
