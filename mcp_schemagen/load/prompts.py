"""Read prompt files: JSON or YAML holding one prompt, a list of prompts, or a saved
prompts/list result, with the same bounds, JSON-data rules and containment as tool files
(load/tools.py reads both kinds alike)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error
from mcp_schemagen.load.containment import outside_message
from mcp_schemagen.load.tools import (
    definitions_in,
    file_name_problem,
    find_tool_files,
    not_json,
    outside_tool_files,
    parse_file,
    tool_label,
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
    globs = tuple(globs)
    sources: list[PromptSource] = []
    problems: list[Diagnostic] = []
    if not allow_outside:
        problems.extend(
            error(name, "", outside_message("this prompt file (a symbolic link)"))
            for name in outside_tool_files(root, globs)
        )
    for path in find_prompt_files(root, globs, allow_outside=allow_outside):
        label = tool_label(root, path)
        name_problem = file_name_problem(label)
        if name_problem:
            problems.append(error(label, "", name_problem))
            continue
        document, parse_problems = parse_file(path, label)
        problems.extend(parse_problems)
        if parse_problems:
            continue
        json_problems = not_json(document, label, "")
        problems.extend(json_problems)
        if json_problems:
            continue
        found, shape_problems = prompts_in(document, label)
        sources.extend(found)
        problems.extend(shape_problems)
    return sources, problems
