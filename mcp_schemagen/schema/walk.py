"""The one walk over a JSON Schema. Which values are subschemas is decided by the keyword
tables of mcp_schemagen.schema.keywords alone, so data that looks like a schema (an enum
value, a default, a property called "anyOf") is never taken for one. Lint, the reference
checks, type generation's shield and the protocol models all walk with it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from mcp_schemagen.diagnostics import pointer_join
from mcp_schemagen.schema.keywords import (
    KEYWORDS,
    ONE_SCHEMA,
    RECURSION_2019,
    SCHEMA_LISTS,
    SCHEMA_MAPS,
)

Position = Literal["map", "list", "one", "value", "unknown"]


def position(key: str, value: Any) -> Position:
    """What the value of keyword ``key`` holds: a map of names to subschemas, a list of
    subschemas, one subschema, data, or (a keyword of neither dialect) nobody knows."""
    if key in SCHEMA_MAPS and isinstance(value, dict):
        return "map"
    if key in SCHEMA_LISTS and isinstance(value, list):
        return "list"
    if key in ONE_SCHEMA:
        return "one"
    if key in KEYWORDS or key in RECURSION_2019:
        return "value"
    return "unknown"


def children(
    node: dict[str, Any], *, unknown: bool = False
) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """(path below ``node``, value) of each subschema directly under the schema object
    ``node``, in document order. With ``unknown``, the value of a keyword of neither
    dialect counts as a subschema too (an object, or each item of a list): for checks
    that would rather look at too much, such as where references point."""
    for key, value in node.items():
        where = position(key, value)
        if where == "map":
            for name, subschema in value.items():
                yield (key, name), subschema
        elif where == "list":
            for index, subschema in enumerate(value):
                yield (key, index), subschema
        elif where == "one" or (where == "unknown" and unknown and isinstance(value, dict)):
            yield (key,), value
        elif where == "unknown" and unknown and isinstance(value, list):
            for index, item in enumerate(value):
                yield (key, index), item


def subschemas(
    node: Any, pointer: str = "", *, unknown: bool = False
) -> Iterator[tuple[dict[str, Any], str]]:
    """Every schema object in ``node`` with its JSON pointer, parents first, in document
    order (boolean schemas hold nothing and are not yielded)."""
    if not isinstance(node, dict):
        return
    yield node, pointer
    for path, child in children(node, unknown=unknown):
        yield from subschemas(child, pointer_join(pointer, *path), unknown=unknown)
