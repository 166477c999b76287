"""Every run-time failure a client gets as an internal error (-32603) is also logged on
the server, once, with the tool and the detail: an SDK client shows the error's message,
not its ``data``, and under a host stderr is all a server's author sees.

A real server process over stdio, driven by the official MCP Python SDK client: results
that break their outputSchema, lack structured content, hold a ``set`` or a list item no
content block is made of; the client's error and the server's stderr line for each.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from tests.support.projects import run_cli, tool, write_project

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

STATUS = {
    "type": "object",
    "properties": {"status": {"enum": ["open", "closed"]}},
    "required": ["status"],
}
# tool -> (its definition's extra fields, the handler's body, what the log line must say)
FAILURES: dict[str, tuple[dict[str, object], str, list[str]]] = {
    "report_status": (
        {"outputSchema": STATUS},
        'return {"status": "opened"}',
        ["not matching its outputSchema", "result field 'status'", '"opened" is not one of'],
    ),
    "report_nothing": (
        {"outputSchema": STATUS},
        "return None",
        ["not matching its outputSchema", 'null is not of type "object"'],
    ),
    "tag_set": ({}, 'return {"a", "b"}', ["not JSON data", "set"]),
    "odd_list": ({}, 'return ["fine", 42]', ["content[1] is int, not a content block"]),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tools = {f"{name}.json": tool(name, **extra) for name, (extra, _, _) in FAILURES.items()}
    root = write_project(
        tmp_path_factory.mktemp("internal") / "p", tools, revisions=("2025-11-25",)
    )
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    text = handlers.read_text(encoding="utf-8")
    for name, (_, body, _) in FAILURES.items():
        stub = f'raise NotImplementedError("{name}")'
        assert stub in text
        text = text.replace(stub, body + "  # type: ignore[return-value]")
    handlers.write_text(text, encoding="utf-8")
    return root


def test_internal_errors_reach_the_server_log_once(project: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "server"], cwd=str(project))
    log = tmp_path / "stderr.log"
    errors: dict[str, tuple[int, str]] = {}

    async def run() -> None:
        with log.open("w") as err:
            async with Client(stdio_client(params, errlog=err), read_timeout_seconds=15) as client:
                for name in FAILURES:
                    with pytest.raises(MCPError) as failed:
                        await client.call_tool(name, {"text": "x"})
                    errors[name] = (failed.value.error.code, failed.value.error.message)

    async def bounded() -> None:
        with anyio.fail_after(60):
            await run()

    anyio.run(bounded)
    lines = log.read_text(encoding="utf-8").splitlines()
    for name, (_, _, wanted) in FAILURES.items():
        code, message = errors[name]
        assert code == -32603, (name, message)
        logged = [line for line in lines if f"Tool {name} " in line]
        assert len(logged) == 1, (name, lines)
        for part in wanted:
            assert part in logged[0], (name, part, logged[0])
