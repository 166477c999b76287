"""The rules for prompts: removed, arguments added, removed or newly required, and each
argument's x-mcp-codegen-schema compared as an input."""

from __future__ import annotations

from typing import Any

from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.contract.snapshot import Definition
from mcp_schemagen.contract.subschema import Comparer
from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.runtime.prompts.table import SCHEMA_KEY


def removed(old: Definition, renamed_to: str | None) -> list[Change]:
    said = f"prompt {old.name!r} removed"
    if renamed_to:
        said += f" (renamed to {renamed_to!r}? same arguments)"
    return [Change(old.file, old.pointer, Category.BREAKING_CALLERS, said)]


def added(new: Definition) -> list[Change]:
    return [Change(new.file, new.pointer, Category.COMPATIBLE, f"prompt {new.name!r} added")]


def _arguments(definition: dict[str, Any]) -> dict[str, tuple[int, dict[str, Any]]]:
    found: dict[str, tuple[int, dict[str, Any]]] = {}
    arguments = definition.get("arguments")
    for index, argument in enumerate(arguments if isinstance(arguments, list) else []):
        if isinstance(argument, dict) and isinstance(argument.get("name"), str):
            found.setdefault(argument["name"], (index, argument))
    return found


def changed(old: Definition, new: Definition) -> list[Change]:
    before, after = _arguments(old.definition), _arguments(new.definition)
    changes: list[Change] = []
    for name, (index, argument) in after.items():
        at = pointer_join(new.pointer, "arguments", index)
        required = argument.get("required") is True
        if name not in before:
            category = Category.BREAKING_CALLERS if required else Category.COMPATIBLE
            kind = "required" if required else "optional"
            changes.append(Change(new.file, at, category, f"new {kind} argument {name!r}"))
            continue
        was = before[name][1]
        if required and was.get("required") is not True:
            said = f"argument {name!r} is now required"
            changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
        elif was.get("required") is True and not required:
            said = f"argument {name!r} is no longer required"
            changes.append(Change(new.file, at, Category.COMPATIBLE, said))
        # No schema is any string: prompt arguments are strings.
        first = was.get(SCHEMA_KEY, {"type": "string"})
        second = argument.get(SCHEMA_KEY, {"type": "string"})
        where = pointer_join(at, SCHEMA_KEY)
        comparer = Comparer(first, second, where, Reader.SERVER)
        changes += Reader.SERVER.changes(new.file, comparer.compare(first, second, where))
    for name in before:
        if name not in after:
            said = f"argument {name!r} removed: prompts/get refuses arguments it does not declare"
            at = pointer_join(new.pointer, "arguments")
            changes.append(Change(new.file, at, Category.BREAKING_CALLERS, said))
    return changes
