"""Read prompt files: JSON or YAML holding one prompt, a list of prompts, or a saved
prompts/list result, with the same bounds, JSON-data rules and containment as tool files
(load/tools.py reads both kinds alike)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic
from mcp_schemagen.load.tools import (
    definitions_in,
    find_tool_files,
    read_definition_files,
)


@dataclass(frozen=True)
class PromptSource:
    """One prompt definition as authored, and where it came from."""

    file: str  # path relative to the project root, as printed in diagnostics
    pointer: str  # JSON pointer of the prompt inside its file
    definition: dict[str, Any]


def prompts_in(document: Any, label: str) -> tuple[list[PromptSource], list[Diagnostic]]:
    """The prompts a parsed file holds, by shape: a prompt, a list, or a prompts/list result."""
    found, problems = definitions_in(document, label, "prompts", "a prompt (an object with a name)")
    return [PromptSource(label, pointer, item) for pointer, item in found], problems


def find_prompt_files(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> list[Path]:
    return find_tool_files(root, globs, allow_outside=allow_outside)


def load_prompts(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> tuple[list[PromptSource], list[Diagnostic]]:
    """Every prompt of the project and its problems; no file is no prompts."""
    sources, problems, _ = read_definition_files(
        root, globs, "prompt", prompts_in, allow_outside=allow_outside
    )
    return sources, problems
