"""`mcp-codegen new`: a project that builds, imports and serves from its first minute."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from codegen.config import is_package_name
from codegen.diagnostics import BuildError, error
from codegen.pipeline import plan
from codegen.write import OutputFile, write_all

_EXAMPLE_TOOL = {
    "name": "greet",
    "title": "Greeting",
    "description": "Greet someone by name.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "description": "Who to greet"},
            "excited": {"type": "boolean", "default": False},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}


def check_name(name: str) -> None:
    if not is_package_name(name):
        raise BuildError(
            [
                error(
                    name,
                    "",
                    "not a valid project name: use a Python package name of ASCII letters, digits "
                    "and underscores, starting with a letter (no spaces, dashes, dots, slashes or "
                    "shell characters), e.g. weather_server",
                )
            ]
        )


def _pyproject(name: str, revisions: Sequence[str] | None) -> str:
    lines = [
        "[project]",
        f'name = "{name.replace("_", "-")}"',
        'version = "0.1.0"',
        'requires-python = ">=3.11"',
        'dependencies = ["jsonschema-rs>=0.29,<1", "orjson>=3.10,<4", "pydantic>=2.9,<3"]',
        "",
        "[tool.mcp-codegen]",
        f'package = "{name}"',
    ]
    if revisions:
        lines.append(f"revisions = {json.dumps(list(revisions))}")
    return "\n".join(lines) + "\n"


def scaffold(name: str, directory: Path | None, revisions: Sequence[str] | None) -> Path:
    check_name(name)
    target = directory if directory is not None else Path(name)
    if target.exists() and any(target.iterdir()):
        raise BuildError([error(str(target), "", "folder exists and is not empty; choose another with --dir")])
    write_all(
        [
            OutputFile(target / "pyproject.toml", _pyproject(name, revisions)),
            OutputFile(target / "tools" / "greet.json", json.dumps(_EXAMPLE_TOOL, indent=2) + "\n"),
        ]
    )
    write_all(plan(target).files)
    return target
