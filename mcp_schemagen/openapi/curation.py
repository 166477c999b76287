"""The curation file: what the project chose of an imported document, kept across
re-imports because the import reads it and never writes it.

    select:                      # which operations (the command line's options win)
      tags: [pets]
      paths: ["/pets/*"]
      operations: [findPets, "DELETE /pets/{id}"]
    operations:                  # per operation (operationId, or "METHOD /path")
      findPets:
        name: list_pets          # the tool's name
        title: List pets
        description: Lists the pets of the store.
        fixed: {limit: 20}       # a parameter sent with this value, hidden from inputs
        skip: true               # not imported
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.openapi.document import read_data
from mcp_schemagen.openapi.names import MAX_NAME
from mcp_schemagen.openapi.operations import EVERYTHING, Selection

_NAME = re.compile(rf"[A-Za-z0-9_.-]{{1,{MAX_NAME}}}")
_OPERATION_KEYS = frozenset({"name", "title", "description", "fixed", "skip"})


@dataclass(frozen=True)
class Override:
    name: str | None = None
    title: str | None = None
    description: str | None = None
    fixed: dict[str, Any] = field(default_factory=dict)
    skip: bool = False


@dataclass(frozen=True)
class Curation:
    selection: Selection = EVERYTHING
    overrides: dict[str, Override] = field(default_factory=dict)


def _strings(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def read_curation(path: Path, label: str) -> tuple[Curation, list[Diagnostic]]:
    """The curation file's choices, or its problems (each at its pointer)."""
    try:
        data = read_data(path)
    except OSError as exc:
        return Curation(), [error(label, "", f"cannot read the curation file: {exc}")]
    except yaml.YAMLError as exc:
        return Curation(), [error(label, "", f"not YAML: {exc}")]
    if data is None:
        return Curation(), []
    if not isinstance(data, dict):
        return Curation(), [error(label, "", "a curation file is a mapping: select, operations")]
    problems = [
        error(label, pointer_join("", key), "unknown key; a curation file has select, operations")
        for key in data
        if key not in ("select", "operations")
    ]
    select = data.get("select") or {}
    lists: dict[str, tuple[str, ...]] = {}
    if not isinstance(select, dict):
        problems.append(error(label, "/select", "must map tags/paths/operations to lists"))
        select = {}
    for key, value in select.items():
        strings = _strings(value)
        if key not in ("tags", "paths", "operations") or strings is None:
            problems.append(
                error(label, pointer_join("/select", key), "tags, paths or operations: a list")
            )
        else:
            lists[key] = strings
    overrides: dict[str, Override] = {}
    entries = data.get("operations") or {}
    if not isinstance(entries, dict):
        problems.append(error(label, "/operations", "must map operation ids to overrides"))
        entries = {}
    for key, entry in entries.items():
        at = pointer_join("/operations", key)
        if not isinstance(entry, dict):
            problems.append(
                error(label, at, "must be a mapping of name/title/description/fixed/skip")
            )
            continue
        bad = sorted(set(entry) - _OPERATION_KEYS)
        if bad:
            problems.append(
                error(
                    label, at, f"unknown {', '.join(bad)}; use {', '.join(sorted(_OPERATION_KEYS))}"
                )
            )
        for text in ("name", "title", "description"):
            if text in entry and not isinstance(entry[text], str):
                problems.append(error(label, pointer_join(at, text), "must be a string"))
        name = entry.get("name")
        if isinstance(name, str) and not _NAME.fullmatch(name):
            problems.append(
                error(
                    label,
                    pointer_join(at, "name"),
                    f"{name!r}: 1 to {MAX_NAME} of A-Z a-z 0-9 _ - .",
                )
            )
        if not isinstance(entry.get("fixed", {}), dict):
            problems.append(
                error(label, pointer_join(at, "fixed"), "must map parameters to values")
            )
        if not isinstance(entry.get("skip", False), bool):
            problems.append(error(label, pointer_join(at, "skip"), "must be true or false"))
        if problems:
            continue
        overrides[str(key)] = Override(
            entry.get("name"),
            entry.get("title"),
            entry.get("description"),
            dict(entry.get("fixed", {})),
            entry.get("skip", False),
        )
    selection = Selection(
        lists.get("tags", ()), lists.get("paths", ()), lists.get("operations", ())
    )
    return Curation(selection, overrides), problems
