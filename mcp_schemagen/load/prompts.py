"""Read prompt files: JSON or YAML holding one prompt, a list of prompts, or a saved
prompts/list result, with the same bounds, JSON-data rules and containment as tool files
(load/tools.py reads both kinds alike)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic
from mcp_schemagen.load.tools import (
    definitions_in,
    find_tool_files,
    read_definition_files,
)
from mcp_schemagen.source import Source


def prompts_in(document: Any, label: str) -> tuple[list[Source], list[Diagnostic]]:
    """The prompts a parsed file holds, by shape: a prompt, a list, or a prompts/list result."""
    found, problems = definitions_in(document, label, "prompts", "a prompt (an object with a name)")
    return [Source("prompt", label, pointer, item) for pointer, item in found], problems


def find_prompt_files(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> list[Path]:
    return find_tool_files(root, globs, allow_outside=allow_outside)


def load_prompts(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> tuple[list[Source], list[Diagnostic]]:
    """Every prompt of the project and its problems; no file is no prompts."""
    sources, problems, _ = read_definition_files(
        root, globs, "prompt", prompts_in, allow_outside=allow_outside
    )
    return sources, problems
