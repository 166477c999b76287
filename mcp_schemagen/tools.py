"""Read tool files: JSON or YAML holding one tool, a list of tools, or a tools/list result."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join


@dataclass(frozen=True)
class ToolSource:
    """One tool definition as authored, and where it came from."""

    file: str  # path relative to the project root, as printed in diagnostics
    pointer: str  # JSON pointer of the tool inside its file
    definition: dict[str, Any]


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json.loads would silently keep the last of two equal keys; a schema author
    # almost never means that, and the published definition would differ from the file.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


class _StrictYamlLoader(yaml.SafeLoader):
    """SafeLoader (constructs plain data only, never objects) that refuses duplicate keys."""


def _construct_mapping(loader: _StrictYamlLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    mapping: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
    return mapping


_StrictYamlLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def parse_file(path: Path, label: str) -> tuple[Any, list[Diagnostic]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [error(label, "", f"not UTF-8 text: {exc}")]
    if path.suffix == ".json":
        try:
            return json.loads(text, object_pairs_hook=_no_duplicates), []
        except _DuplicateKey as exc:
            return None, [
                error(label, "", f"duplicate key {exc.args[0]!r}; JSON keys must be unique")
            ]
        except json.JSONDecodeError as exc:
            return None, [
                error(
                    label, "", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
                )
            ]
    try:
        return yaml.load(text, Loader=_StrictYamlLoader), []
    except yaml.YAMLError as exc:
        return None, [error(label, "", f"not valid YAML: {exc}".replace("\n", " "))]


def _not_json(value: Any, label: str, pointer: str) -> list[Diagnostic]:
    """YAML has values JSON has not (dates, non-string keys) and JSON parsers accept
    1e999 as infinity; a tool definition must be plain JSON to be published as written."""
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            if not isinstance(key, str):
                found.append(error(label, pointer, f"key {key!r} is not a string; quote it"))
            else:
                found.extend(_not_json(item, label, pointer_join(pointer, key)))
        return found
    if isinstance(value, list):
        return [
            d
            for i, item in enumerate(value)
            for d in _not_json(item, label, pointer_join(pointer, i))
        ]
    if isinstance(value, float) and not math.isfinite(value):
        return [error(label, pointer, f"{value} is not a JSON number; use a finite number")]
    if value is None or isinstance(value, str | int | float | bool):
        return []
    return [
        error(label, pointer, f"a {type(value).__name__} value is not JSON; quote it as a string")
    ]


def tools_in(document: Any, label: str) -> tuple[list[ToolSource], list[Diagnostic]]:
    """The tools a parsed file holds, by shape: a tool, a list, or a tools/list result."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        return _list_at(document["result"].get("tools"), label, "/result/tools")
    if isinstance(document, dict) and "tools" in document and "name" not in document:
        return _list_at(document["tools"], label, "/tools")
    if isinstance(document, list):
        return _list_at(document, label, "")
    if isinstance(document, dict):
        return [ToolSource(label, "", document)], []
    return [], [
        error(
            label,
            "",
            "expected a tool (an object with name and inputSchema), a list of tools, "
            'or a tools/list result ({"tools": [...]})',
        )
    ]


def _list_at(items: Any, label: str, pointer: str) -> tuple[list[ToolSource], list[Diagnostic]]:
    if not isinstance(items, list):
        return [], [error(label, pointer, "expected a list of tools")]
    found: list[ToolSource] = []
    problems: list[Diagnostic] = []
    for index, item in enumerate(items):
        where = pointer_join(pointer, index)
        if isinstance(item, dict):
            found.append(ToolSource(label, where, item))
        else:
            problems.append(error(label, where, "expected a tool object"))
    return found, problems


def tool_label(root: Path, path: Path) -> str:
    """How a tool file is named in diagnostics, headers and the manifest: its path
    relative to the project, with forward slashes on every platform."""
    resolved_root = root.resolve()
    return (
        path.relative_to(resolved_root).as_posix()
        if path.is_relative_to(resolved_root)
        else path.as_posix()
    )


def find_tool_files(root: Path, globs: Iterable[str]) -> list[Path]:
    # Sorted by label so the order never depends on the file system.
    matches = {p.resolve() for pattern in globs for p in root.glob(pattern) if p.is_file()}
    return sorted(matches, key=lambda p: tool_label(root, p))


def load_tools(
    root: Path, globs: Iterable[str]
) -> tuple[list[ToolSource], list[Diagnostic], list[Path]]:
    """Every tool of the project, its problems, and the files read (for provenance)."""
    sources: list[ToolSource] = []
    problems: list[Diagnostic] = []
    files = find_tool_files(root, globs)
    for path in files:
        label = tool_label(root, path)
        document, parse_problems = parse_file(path, label)
        problems.extend(parse_problems)
        if parse_problems:
            continue
        json_problems = _not_json(document, label, "")
        problems.extend(json_problems)
        if json_problems:
            continue
        found, shape_problems = tools_in(document, label)
        sources.extend(found)
        problems.extend(shape_problems)
    return sources, problems, files
