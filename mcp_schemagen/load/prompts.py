"""Read prompt files: JSON or YAML holding one prompt, a list of prompts, or a saved
prompts/list result, with the same bounds, JSON-data rules and containment as tool files
(load/tools.py reads both kinds alike)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.load.containment import outside_message
from mcp_schemagen.load.tools import (
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
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        return _list_at(document["result"].get("prompts"), label, "/result/prompts")
    if isinstance(document, dict) and "prompts" in document and "name" not in document:
        return _list_at(document["prompts"], label, "/prompts")
    if isinstance(document, list):
        return _list_at(document, label, "")
    if isinstance(document, dict):
        return [PromptSource(label, "", document)], []
    return [], [
        error(
            label,
            "",
            "expected a prompt (an object with a name), a list of prompts, "
            'or a prompts/list result ({"prompts": [...]})',
        )
    ]


def _list_at(items: Any, label: str, pointer: str) -> tuple[list[PromptSource], list[Diagnostic]]:
    if not isinstance(items, list):
        return [], [error(label, pointer, "expected a list of prompts")]
    found: list[PromptSource] = []
    problems: list[Diagnostic] = []
    for index, item in enumerate(items):
        where = pointer_join(pointer, index)
        if isinstance(item, dict):
            found.append(PromptSource(label, where, item))
        else:
            problems.append(error(label, where, "expected a prompt object"))
    return found, problems


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
