"""Mistakes a valid schema can still hold: a misspelt keyword (`requird`, `minLenght`),
which JSON Schema ignores, so the tool quietly means something else (an error when it is
a near miss of a keyword that constrains data, else a warning); and a `required` name
that no object can ever have."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from typing import Any

from mcp_schemagen.check.header_checks import KEYWORD as HEADER_KEYWORD
from mcp_schemagen.check.near_miss import edit_distance, near_miss
from mcp_schemagen.check.schema_checks import GENERATOR_INSTRUCTIONS
from mcp_schemagen.check.vocabulary import OWN_KEYS, looks_like_own
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.schema.keywords import KEYWORDS, RECURSION_2019
from mcp_schemagen.schema.walk import subschemas

KNOWN_KEYWORDS = KEYWORDS | RECURSION_2019
# The usual way to carry data for other tools in a schema; never reported.
_EXTENSION = "x-"
# Keywords of other schema languages, with what JSON Schema says instead.
_FOREIGN = {"nullable": 'an OpenAPI keyword; to allow null, add "null" to "type"'}


def lint_schema(
    schema: Any, file: str, pointer: str, accepted: frozenset[str] = frozenset()
) -> list[Diagnostic]:
    """``accepted``: unknown keywords the project uses on purpose (``accept-keywords``)."""
    problems: list[Diagnostic] = []
    for node, where in subschemas(schema, pointer):
        problems.extend(_unknown_keywords(node, file, where, accepted))
        problems.extend(_unsatisfiable_required(node, file, where))
    return problems


def _unknown_keywords(
    node: dict[str, Any], file: str, pointer: str, accepted: frozenset[str]
) -> Iterator[Diagnostic]:
    for key in node:
        if key != HEADER_KEYWORD and (
            looks_like_own(key) or edit_distance(key, HEADER_KEYWORD) <= 2
        ):
            yield error(file, pointer_join(pointer, key), _misplaced_or_misspelt(key))
            continue
        if key in KNOWN_KEYWORDS or key.startswith(_EXTENSION) or key in accepted:
            continue
        if key in GENERATOR_INSTRUCTIONS:
            continue  # schema_checks warns about these, saying why they are ignored
        meant = near_miss(key)
        if meant is not None:
            yield error(
                file,
                pointer_join(pointer, key),
                f"unknown keyword {key!r}: did you mean {meant!r}? JSON Schema ignores "
                f"unknown keywords, so this one would silently not apply; correct it, or, if "
                f'{key!r} is meant, name it "{_EXTENSION}{key}" or list it in '
                f"accept-keywords of [tool.mcp-codegen]",
            )
            continue
        guess = difflib.get_close_matches(key, sorted(KNOWN_KEYWORDS), n=1, cutoff=0.75)
        hint = (
            _FOREIGN[key]
            if key in _FOREIGN
            else (
                f"did you mean {guess[0]!r}?"
                if guess
                else f'remove it, or name it "{_EXTENSION}{key}" if it is data for other tools'
            )
        )
        yield warning(
            file,
            pointer_join(pointer, key),
            f"unknown keyword {key!r}: JSON Schema ignores it, so it neither validates nor "
            f"types anything; {hint}",
        )


def _misplaced_or_misspelt(key: str) -> str:
    """A key inside a schema that reads as one of mcp-codegen's or as x-mcp-header: the
    build would ignore it, so what it was written for would silently not happen."""
    if edit_distance(key, HEADER_KEYWORD) <= 2:
        return f"unknown keyword {key!r}: did you mean {HEADER_KEYWORD!r}?"
    guess = min(OWN_KEYS, key=lambda own: (edit_distance(key, own), own))
    return (
        f"unknown mcp-codegen key {key!r} inside a JSON Schema, where mcp-codegen reads none"
        f" of its keys; did you mean {guess!r}? It belongs on a"
        f" {' or a '.join(OWN_KEYS[guess].places)}, beside (not inside) the schema"
    )


def _unsatisfiable_required(node: dict[str, Any], file: str, pointer: str) -> Iterator[Diagnostic]:
    """Under `additionalProperties: false` an object may hold only names its `properties`
    or `patternProperties` allow; a required name outside them rejects every call."""
    required = node.get("required")
    if node.get("additionalProperties") is not False or not isinstance(required, list):
        return
    properties = node.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    patterns = node.get("patternProperties")
    patterns = patterns if isinstance(patterns, dict) else {}
    for index, name in enumerate(required):
        if not isinstance(name, str):
            continue
        if name in properties and properties[name] is not False:
            continue
        if name not in properties and any(_matches(p, name) for p in patterns):
            continue
        reason = (
            "its schema in properties is false"
            if name in properties
            else "it is not in properties and additionalProperties is false"
        )
        yield error(
            file,
            pointer_join(pointer, "required", index),
            f"required property {name!r} can never be present: {reason}, so every call is "
            f"rejected; add {name!r} to properties or remove it from required",
        )


def _matches(pattern: str, name: str) -> bool:
    try:
        return re.search(pattern, name) is not None
    except re.error:
        return True  # the compile check reports the pattern; do not guess here
