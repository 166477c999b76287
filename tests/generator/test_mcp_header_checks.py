"""The build checks the x-mcp-header constraints of 2026-07-28 and reports each
violation as an error with its place; valid annotations build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import needs_shared
from tests.support.projects import run_cli, tool, write_project

pytestmark = needs_shared


def _with(properties: dict[str, Any], **schema: Any) -> dict[str, Any]:
    return tool(inputSchema={"type": "object", "properties": properties, **schema})


def test_valid_annotations_build(tmp_path: Path) -> None:
    nested = {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "limits": {
            "type": "object",
            "properties": {"count": {"type": "integer", "x-mcp-header": "Count"}},
        },
        "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
    }
    root = write_project(tmp_path, {"echo.json": _with(nested)})
    code, _, err = run_cli("build", "-q", str(root))
    assert code == 0, err


@pytest.mark.parametrize(
    ("properties", "schema", "pointer", "words"),
    [
        (
            {"a": {"type": "string", "x-mcp-header": "Bad Name"}},
            {},
            "/inputSchema/properties/a/x-mcp-header",
            "HTTP field-name token",
        ),
        (
            {"a": {"type": "string", "x-mcp-header": ""}},
            {},
            "/inputSchema/properties/a/x-mcp-header",
            "non-empty",
        ),
        (
            {"a": {"type": "number", "x-mcp-header": "A"}},
            {},
            "/inputSchema/properties/a/x-mcp-header",
            "integer, string or boolean",
        ),
        (
            {
                "a": {"type": "string", "x-mcp-header": "Name"},
                "b": {"type": "string", "x-mcp-header": "name"},
            },
            {},
            "/inputSchema/properties/b/x-mcp-header",
            "already used at",
        ),
        (
            {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}},
            {},
            "/inputSchema/properties/a/items/x-mcp-header",
            'through "properties" alone',
        ),
        (
            {"a": {"$ref": "#/$defs/a"}},
            {"$defs": {"a": {"type": "string", "x-mcp-header": "A"}}},
            "/inputSchema/$defs/a/x-mcp-header",
            'through "properties" alone',
        ),
        (
            {},
            {"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]},
            "/inputSchema/anyOf/0/properties/a/x-mcp-header",
            'through "properties" alone',
        ),
    ],
)
def test_violations_are_errors_at_their_place(
    tmp_path: Path, properties: dict[str, Any], schema: dict[str, Any], pointer: str, words: str
) -> None:
    root = write_project(tmp_path, {"echo.json": _with(properties, **schema)})
    code, out, err = run_cli("build", "-q", str(root))
    assert code == 2
    lines = [line for line in (out + err).splitlines() if ": error: " in line]
    assert any(
        line.startswith(f"tools/echo.json#{pointer}: error: ") and words in line for line in lines
    ), lines
