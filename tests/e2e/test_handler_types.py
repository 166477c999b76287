"""The generated handler signatures admit every return docs/how-to/tools.md documents, and only
what the runtime accepts: handlers returning each form pass ``mypy --strict`` and are
answered without error by the built server; a form no client can be sent fails mypy.
Handler code needs nothing from ``_runtime``: an older module's ``._runtime.content``
import is moved to the public modules by the merge."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.projects import run_cli, tool, write_project
from tests.support.stdio_conversation import Conversation, meta

NO_INPUT = {"type": "object", "properties": {}}
COUNT = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}

# tool name -> (the handler's return expression, whether the tool has an outputSchema)
RETURNS: dict[str, tuple[str, bool]] = {
    "plain_text": ('"hello"', False),
    "one_block": ('text("hello")', False),
    "block_list": ('[text("a"), image(b"\\x89PNG", "image/png")]', False),
    "mixed_list": ('["a", text("b")]', False),
    "block_tuple": ('(text("a"), "b")', False),
    "explicit_result": ('ToolResult(content=["a"], structured={"n": 1})', False),
    "error_result": ('ToolResult(content=["failed"], is_error=True)', False),
    "data_object": ('{"temperature": 21, "unit": "C"}', False),
    # Data with a "type" key is data: only a dict shaped exactly as a content block is one.
    "typed_data": ('{"type": "shell_call", "id": 1}', False),
    "text_typed_data": ('{"type": "text", "id": 1}', False),
    "block_literal": ('{"type": "text", "text": "hello"}', False),
    "number": ("42", False),
    "fraction": ("0.5", False),
    "dataclass_value": ("Point(1, 2)", False),
    "model_value": ("Reading(value=1.5)", False),
    "nothing": ("None", False),
    "structured": ('{"count": 3}', True),
    "structured_result": ('ToolResult(content=["three"], structured={"count": 3})', True),
}

HELPERS = """
import dataclasses

from pydantic import BaseModel

from .api import image, text


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Reading(BaseModel):
    value: float
"""


def mypy_strict(root: Path, package: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict` over the handler module alone (the runtime it imports is checked by
    tests/generator/test_generated_code.py; here its errors are not the subject)."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
         "-m", f"{package}.handlers"],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip


def _tools() -> dict[str, object]:
    tools: dict[str, object] = {}
    for name, (_, structured) in RETURNS.items():
        fields: dict[str, object] = {"inputSchema": NO_INPUT}
        if structured:
            fields["outputSchema"] = COUNT
        tools[f"{name}.json"] = tool(name, **fields)
    return tools


def _fill(handlers: Path, bodies: dict[str, str], helpers: str = HELPERS) -> None:
    """Replace each stub's ``raise NotImplementedError`` with ``return BODY``, keeping the
    signature the generator wrote; helpers go after the generated import."""
    source = handlers.read_text(encoding="utf-8")
    for name, body in bodies.items():
        source, count = re.subn(
            rf"raise NotImplementedError\((['\"]){name}\1\)",
            lambda _, line=f"return {body}": line,
            source,
        )
        assert count == 1, name
    head, marker, rest = source.partition("\n\n# mcp-codegen tool:")
    handlers.write_text(head + "\n" + helpers + marker + rest, encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_project(tmp_path_factory.mktemp("returns"), _tools())
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    _fill(root / "server" / "handlers.py", {n: body for n, (body, _) in RETURNS.items()})
    code, _, err = run_cli("build", "-q", str(root))  # the merge keeps the bodies
    assert code == 0, err
    return root


def test_generated_signatures_name_the_public_return_types(built: Path) -> None:
    source = (built / "server" / "handlers.py").read_text(encoding="utf-8")
    assert "def plain_text() -> ToolReturn:" in source
    assert "def structured() -> StructuredOutput | ToolResult:" in source
    assert "_runtime" not in source


def test_every_documented_return_passes_mypy_strict(built: Path) -> None:
    result = mypy_strict(built, "server")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_server_answers_every_documented_return(built: Path, tmp_path: Path) -> None:
    client = Conversation(built, "server", "2026-07-28", tmp_path / "stderr")
    try:
        results = {
            name: client.result("tools/call", {"name": name, "arguments": {}, "_meta": meta()})
            for name in RETURNS
        }
    finally:
        client.close()
    failed = {n: r for n, r in results.items() if r.get("isError") and n != "error_result"}
    assert failed == {}
    assert results["error_result"]["isError"] is True
    assert results["structured"]["structuredContent"] == {"count": 3}
    data = {"type": "text", "text": '{"temperature":21,"unit":"C"}'}
    assert results["data_object"]["content"] == [data]  # data without a schema: JSON text
    assert results["model_value"]["content"] == [{"type": "text", "text": '{"value":1.5}'}]
    assert results["typed_data"]["content"] == [
        {"type": "text", "text": '{"type":"shell_call","id":1}'}
    ]
    assert results["text_typed_data"]["content"] == [
        {"type": "text", "text": '{"type":"text","id":1}'}
    ]
    assert results["block_literal"]["content"] == [{"type": "text", "text": "hello"}]


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("plain_text", "{1, 2}"),  # a set: no JSON value, no content
        ("plain_text", "object()"),
        ("structured", '{"count": "three"}'),  # not the output type
        ("structured", '"three"'),  # text where the schema wants structured content
    ],
)
def test_a_return_no_client_can_be_sent_fails_mypy(tmp_path: Path, name: str, body: str) -> None:
    tools = {f"{name}.json": _tools()[f"{name}.json"]}
    root = write_project(tmp_path, tools)
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    _fill(root / "server" / "handlers.py", {name: body}, helpers="")
    result = mypy_strict(root, "server")
    assert result.returncode == 1
    assert "handlers.py" in result.stdout and "return value" in result.stdout


def test_the_merge_moves_runtime_content_imports_to_public_modules(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"plain_text.json": _tools()["plain_text.json"]})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    handlers = root / "server" / "handlers.py"
    older = handlers.read_text(encoding="utf-8").replace(
        "from .types import ToolReturn",
        "from .types import ToolReturn\nfrom ._runtime.content import ContentBlock, image",
    )
    older = older.replace(
        'raise NotImplementedError("plain_text")',
        'blocks: list[ContentBlock] = [image(b"x", "image/png")]\n    return blocks',
    )
    handlers.write_text(older, encoding="utf-8")
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err
    merged = handlers.read_text(encoding="utf-8")
    assert "_runtime" not in merged
    assert "from .types import ToolReturn, ContentBlock" in merged  # first-seen order
    assert "from .api import image" in merged
    result = mypy_strict(root, "server")
    assert result.returncode == 0, result.stdout + result.stderr
    code, _, err = run_cli("build", "-q", str(root))  # and the next build leaves it alone
    assert code == 0, err
    assert handlers.read_text(encoding="utf-8") == merged
