"""Read resource files: JSON or YAML holding one static resource (``uri``) or resource
template (``uriTemplate``), a list of them (both kinds may mix), or a saved
resources/list or resources/templates/list result, with the same bounds, JSON-data rules
and containment as tool files (load/tools.py reads every kind alike)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.load.tools import read_definition_files
from mcp_schemagen.source import Source

LISTS = ("resources", "resourceTemplates")  # the fields of the two list results


def _source(label: str, pointer: str, definition: dict[str, Any]) -> Source:
    kind = "resource template" if "uriTemplate" in definition else "resource"
    return Source(kind, label, pointer, definition)


def resources_in(document: Any, label: str) -> tuple[list[Source], list[Diagnostic]]:
    """The definitions a parsed file holds, by shape: one, a list, or a list result."""
    if isinstance(document, dict) and isinstance(document.get("result"), dict):
        return _lists(document["result"], label, "/result")
    if (
        isinstance(document, dict)
        and not {"uri", "uriTemplate", "name"} & document.keys()
        and any(key in document for key in LISTS)
    ):
        return _lists(document, label, "")
    if isinstance(document, list):
        return _items(document, label, "")
    if isinstance(document, dict):
        return [_source(label, "", document)], []
    shape = (
        "expected a resource (an object with uri and name), a resource template (uriTemplate"
        ' and name), a list of them, or a saved list result ({"resources": [...]} or'
        ' {"resourceTemplates": [...]})'
    )
    return [], [error(label, "", shape)]


def _lists(
    holder: dict[str, Any], label: str, pointer: str
) -> tuple[list[Source], list[Diagnostic]]:
    found: list[Source] = []
    problems: list[Diagnostic] = []
    for field in LISTS:
        if field in holder:
            items, item_problems = _items(holder[field], label, pointer_join(pointer, field))
            found += items
            problems += item_problems
    if not found and not problems and not any(field in holder for field in LISTS):
        problems.append(error(label, pointer, 'expected "resources" or "resourceTemplates"'))
    return found, problems


def _items(items: Any, label: str, pointer: str) -> tuple[list[Source], list[Diagnostic]]:
    if not isinstance(items, list):
        return [], [error(label, pointer, "expected a list of resources or resource templates")]
    found: list[Source] = []
    problems: list[Diagnostic] = []
    for index, item in enumerate(items):
        where = pointer_join(pointer, index)
        if isinstance(item, dict):
            found.append(_source(label, where, item))
        else:
            problems.append(error(label, where, "expected a resource or resource template object"))
    return found, problems


def load_resources(
    root: Path, globs: Iterable[str], *, allow_outside: bool = False
) -> tuple[list[Source], list[Diagnostic]]:
    """Every resource and template of the project and its problems; no file is none."""
    sources, problems, _ = read_definition_files(
        root, globs, "resource", resources_in, allow_outside=allow_outside
    )
    return sources, problems
