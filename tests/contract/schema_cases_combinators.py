"""Rows of the schema table (schema_cases.CASES) for $ref, allOf/anyOf/oneOf and boolean
schemas: (old, new, categories as arguments, categories as results)."""

from __future__ import annotations

from typing import Any

from tests.contract.schema_rows import BC, BR, DRAFT_07, NONE, OK, UNK, c, obj

_ADDRESS = {"type": "object", "properties": {"zip": {"type": "string"}}}
_LIST = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}},
        }
    },
    "$ref": "#/$defs/node",
}
_LIST_WIDER = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"v": {"type": "number"}, "next": {"$ref": "#/$defs/node"}},
        }
    },
    "$ref": "#/$defs/node",
}


def _tagged(*kinds: str, required: bool = True) -> dict[str, Any]:
    """A branch of a tagged union: an object whose "kind" is one of ``kinds``."""
    kind = {"const": kinds[0]} if len(kinds) == 1 else {"enum": list(kinds)}
    return obj(
        {"kind": kind, "name": {"type": "string"}},
        required=["kind", "name"] if required else ["name"],
    )


def _untyped(kind: str, required: bool = False) -> dict[str, Any]:
    """A branch with no type of its own, tagged by "kind"."""
    branch: dict[str, Any] = {"properties": {"kind": {"const": kind}}}
    return {**branch, "required": ["kind"]} if required else branch


_REFS = [{"$ref": "#/$defs/u"}, {"$ref": "#/$defs/g"}]


def _beside_reference(dialect: str | None, **beside: Any) -> dict[str, Any]:
    """An object whose property "s" is a $ref to a string, with ``beside`` next to it."""
    schema = obj({"s": {"$ref": "#/definitions/s", **beside}})
    schema["definitions"] = {"s": {"type": "string"}}
    return {"$schema": dialect, **schema} if dialect else schema


COMBINATOR_CASES: dict[str, tuple[Any, Any, frozenset[str], frozenset[str]]] = {
    # $ref
    "$ref target narrowed": (
        {"$defs": {"a": _ADDRESS}, "$ref": "#/$defs/a"},
        {"$defs": {"a": {**_ADDRESS, "required": ["zip"]}}, "$ref": "#/$defs/a"},
        c(BC),
        c(OK),
    ),
    "draft-07: a keyword beside $ref is ignored": (
        _beside_reference(DRAFT_07),
        _beside_reference(DRAFT_07, maxLength=20),
        NONE,
        NONE,
    ),
    "draft-07: a keyword beside $ref, its target narrowed": (
        _beside_reference(DRAFT_07),
        {**_beside_reference(DRAFT_07), "definitions": {"s": {"type": "string", "maxLength": 3}}},
        c(BC),
        c(OK),
    ),
    "2020-12: a keyword beside $ref applies": (
        _beside_reference(None),
        _beside_reference(None, maxLength=20),
        c(BC),
        c(OK),
    ),
    "$ref written out": (
        {"$defs": {"a": _ADDRESS}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"properties": {"x": _ADDRESS}},
        NONE,
        NONE,
    ),
    "recursive $ref widened": (_LIST, _LIST_WIDER, c(OK), c(BR)),
    "external $ref": (
        {"$ref": "https://example.com/a.json"},
        {"$ref": "https://example.com/b.json"},
        c(UNK),
        c(UNK),
    ),
    # combinators
    "allOf member narrowed": (
        {"allOf": [{"type": "string"}, {"maxLength": 5}]},
        {"allOf": [{"type": "string"}, {"maxLength": 4}]},
        c(BC),
        c(OK),
    ),
    "allOf member added": (
        {"allOf": [{"type": "string"}]},
        {"allOf": [{"type": "string"}, {"maxLength": 4}]},
        c(BC),
        c(OK),
    ),
    "allOf added beside keywords": (
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "allOf": [{"required": ["a"]}],
        },
        c(BC),
        c(OK),
    ),
    "allOf member added, implied by the old schema": (
        {"allOf": [{"type": "string", "maxLength": 3}]},
        {"allOf": [{"type": "string", "maxLength": 3}, {"maxLength": 4}]},
        NONE,
        NONE,
    ),
    "allOf member added, implied by the old conjuncts together": (
        {"type": "string", "allOf": [{"maxLength": 3}]},
        {"type": "string", "allOf": [{"maxLength": 3}, {"type": "string", "maxLength": 4}]},
        NONE,
        NONE,
    ),
    "allOf member removed": (
        {"allOf": [{"type": "string"}, {"maxLength": 4}]},
        {"allOf": [{"type": "string"}]},
        c(OK),
        c(BR),
    ),
    "allOf member removed, still implied": (
        {"allOf": [{"type": "string", "maxLength": 3}, {"maxLength": 4}]},
        {"allOf": [{"type": "string", "maxLength": 3}]},
        NONE,
        NONE,
    ),
    "allOf member replaced and one added": (
        {"allOf": [{"type": "string"}]},
        {"allOf": [{"type": "integer"}, {"minimum": 1}]},
        c(UNK),
        c(UNK),
    ),
    "anyOf branch added": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        c(OK),
        c(BR),
    ),
    "anyOf branch removed": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string"}]},
        c(BC),
        c(OK),
    ),
    "anyOf branch narrowed": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]},
        c(BC),
        c(OK),
    ),
    "anyOf covered only by a union": (
        {"anyOf": [{"type": "number"}]},
        {"anyOf": [{"type": "number", "minimum": 0}, {"type": "number", "maximum": 0}]},
        c(UNK),
        c(OK),
    ),
    "oneOf disjoint branch added": (
        {"oneOf": [{"type": "string"}]},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        c(OK),
        c(BR),
    ),
    "oneOf constants narrowed": (
        {"oneOf": [{"const": "a"}, {"const": "b"}]},
        {"oneOf": [{"const": "a"}]},
        c(BC),
        c(OK),
    ),
    "oneOf tagged union, branch removed": (
        {"oneOf": [_tagged("user"), _tagged("group")]},
        {"oneOf": [_tagged("user")]},
        c(BC),
        c(OK),
    ),
    "oneOf tagged union, branch added": (
        {"oneOf": [_tagged("user")]},
        {"oneOf": [_tagged("user"), _tagged("group")]},
        c(OK),
        c(BR),
    ),
    "oneOf tagged union by enum, through $ref, branch removed": (
        {"$defs": {"u": _tagged("user"), "g": _tagged("group", "team")}, "oneOf": _REFS},
        {"$defs": {"u": _tagged("user")}, "oneOf": _REFS[:1]},
        c(BC),
        c(OK),
    ),
    "oneOf tagged union, type and tag beside the oneOf, branch removed": (
        {"type": "object", "required": ["kind"], "oneOf": [_untyped("user"), _untyped("group")]},
        {"type": "object", "required": ["kind"], "oneOf": [_untyped("user")]},
        c(BC),
        c(OK),
    ),
    "oneOf tag untyped: a string matches every branch": (
        {"oneOf": [_untyped("user", required=True), _untyped("group", required=True)]},
        {"oneOf": [_untyped("user", required=True)]},
        c(UNK),
        c(UNK),
    ),
    "oneOf tag not required: branches may overlap": (
        {"oneOf": [_tagged("user", required=False), _tagged("group", required=False)]},
        {"oneOf": [_tagged("user", required=False)]},
        c(UNK),
        c(UNK),
    ),
    "oneOf overlapping changed": (
        {"oneOf": [{"type": "number"}, {"type": "integer"}]},
        {"oneOf": [{"type": "number"}, {"type": "integer", "minimum": 0}]},
        c(UNK),
        c(UNK),
    ),
    "not changed": ({"not": {"type": "string"}}, {"not": {"type": "integer"}}, c(UNK), c(UNK)),
    "if/then changed": (
        {"if": {"type": "string"}, "then": {"maxLength": 3}},
        {"if": {"type": "string"}, "then": {"maxLength": 2}},
        c(UNK),
        c(UNK),
    ),
    "unknown keyword changed": ({"x-custom": 1}, {"x-custom": 2}, c(UNK), c(UNK)),
    # boolean schemas
    "true to false": (True, False, c(BC), c(OK)),
    "false to a schema": (False, {"type": "string"}, c(OK), c(BR)),
}
