"""The bench's own project: its tool shapes (small, medium, composed, one wide schema), a
project folder made of them, one inputSchema edit, and the CLI run on it. bench_build.py
and build_reference.py both measure builds of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def small(index: int) -> dict[str, Any]:
    return {
        "name": f"small_{index}",
        "description": "A small tool: a string and an enum with a default.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "mode": {"type": "string", "enum": ["fast", "exact"], "default": "fast"},
            },
            "required": ["query"],
        },
    }


def medium(index: int) -> dict[str, Any]:
    line = {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
        "required": ["sku", "qty"],
    }
    properties: dict[str, Any] = {
        f"field_{n}": {"type": "string", "maxLength": 64} for n in range(10)
    }
    properties |= {
        "customer": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
        },
        "lines": {"type": "array", "items": line},
        "priority": {"type": "integer", "minimum": 0, "maximum": 9, "default": 5},
        "tags": {"type": "array", "items": {"type": "string"}},
        "express": {"type": "boolean", "default": False},
    }
    return {
        "name": f"medium_{index}",
        "description": "About fifteen properties, nested objects and arrays of objects.",
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": ["customer", "lines"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "total": {"type": "number"}},
            "required": ["order_id", "total"],
        },
    }


def composed(index: int) -> dict[str, Any]:
    return {
        "name": f"composed_{index}",
        "description": "$defs, $ref and oneOf.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "shape": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]}
            },
            "required": ["shape"],
            "$defs": {
                "Circle": {
                    "type": "object",
                    "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                    "required": ["kind", "r"],
                },
                "Square": {
                    "type": "object",
                    "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                    "required": ["kind", "side"],
                },
            },
        },
    }


def wide(properties: int) -> dict[str, Any]:
    """One tool of ``properties`` string properties (issue 10 point 9: 5,000 took 168 s)."""
    return {
        "name": f"wide_{properties}",
        "description": "Very many properties.",
        "inputSchema": {
            "type": "object",
            "properties": {f"p_{n}": {"type": "string"} for n in range(properties)},
        },
    }


def make_project(
    root: Path, count: int, tools: list[dict[str, Any]] | None = None, extra: str = ""
) -> list[dict[str, Any]]:
    shapes = (small, medium, composed)
    tools = tools if tools is not None else [shapes[i % 3](i) for i in range(count)]
    (root / "tools").mkdir(parents=True)
    for definition in tools:
        (root / "tools" / f"{definition['name']}.json").write_text(json.dumps(definition, indent=2))
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench"\nversion = "0.1.0"\n\n[tool.mcp-codegen]\n'
        f'package = "bench_server"\n{extra}'
    )
    return tools


def cli(*argv: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "mcp_schemagen.cli", *argv], env=env, check=True, capture_output=True
    )


def edit_tool(project: Path, name: str) -> None:
    """One inputSchema edit: a new optional property."""
    path = project / "tools" / f"{name}.json"
    definition = json.loads(path.read_text())
    definition["inputSchema"].setdefault("properties", {})["added"] = {"type": "integer"}
    path.write_text(json.dumps(definition, indent=2))
