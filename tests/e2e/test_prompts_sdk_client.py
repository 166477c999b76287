"""Prompts end to end with the official MCP Python SDK client: a project built from a
prompt file lists, gets (with a typed enum argument) and completes its prompt over stdio
and over Streamable HTTP, in each of the client's connection modes; the SDK validates
every response with its own models."""

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
from mcp.types import PromptReference  # noqa: E402

PROMPT = {
    "name": "code_review",
    "title": "Code review",
    "description": "Ask the model to review a piece of code.",
    "arguments": [
        {"name": "code", "description": "The code to review.", "required": True},
        {
            "name": "language",
            "description": "The code's language.",
            "x-mcp-codegen-schema": {"type": "string", "enum": ["python", "pascal", "go"]},
        },
    ],
}
HANDLERS = '''"""Handlers."""

from __future__ import annotations

from .api import PromptResult, assistant, get_context, user
from .types import CodeReviewPromptLanguage, PromptReturn, ToolReturn


# mcp-codegen tool: "echo"
def echo(*, text: str) -> ToolReturn:
    return text


# mcp-codegen prompt: "code_review"
def code_review(*, code: str, language: CodeReviewPromptLanguage | None = None) -> PromptReturn:
    revision = get_context().protocol_version
    return PromptResult(
        [user(f"Review this {language or 'code'}:\\n{code}"), assistant(f"Gladly ({revision}).")],
        description="A code review",
    )
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(
        tmp_path_factory.mktemp("prompts") / "p",
        {"echo.json": tool()},
        revisions=("2025-06-18", "2025-11-25", "2026-07-28"),
    )
    (root / "prompts").mkdir()
    (root / "prompts" / "review.json").write_text(json.dumps(PROMPT), encoding="utf-8")
    (root / "server").mkdir()
    (root / "server" / "handlers.py").write_text(HANDLERS, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    return root


async def exercise(client: Any, stateless: bool) -> None:
    if client.server_capabilities is not None and not stateless:
        assert client.server_capabilities.prompts is not None
        assert client.server_capabilities.completions is not None
    listed = await client.list_prompts()
    assert [p.name for p in listed.prompts] == ["code_review"]
    review = listed.prompts[0]
    assert review.title == "Code review"
    assert [(a.name, a.required) for a in review.arguments] == [("code", True), ("language", None)]
    got = await client.get_prompt("code_review", {"code": "x = 1", "language": "go"})
    assert got.description == "A code review"
    assert (
        got.messages[0].role == "user" and got.messages[0].content.text == "Review this go:\nx = 1"
    )
    expected = "2026-07-28" if stateless else "2025-11-25"
    assert got.messages[1].content.text == f"Gladly ({expected})."
    with pytest.raises(MCPError) as invalid:
        await client.get_prompt("code_review", {"code": "x", "language": "cobol"})
    assert invalid.value.error.code == -32602 and "'language'" in invalid.value.error.message
    with pytest.raises(MCPError) as missing:
        await client.get_prompt("code_review", {})
    assert missing.value.error.code == -32602 and "'code'" in missing.value.error.message
    done = await client.complete(
        PromptReference(type="ref/prompt", name="code_review"), {"name": "language", "value": "p"}
    )
    assert done.completion.values == ["python", "pascal"]


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
