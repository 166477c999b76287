"""(old, new, categories for an argument schema, categories for a result schema): one
row per comparison rule of mcp_schemagen/contract/subschema.py and its helpers."""

from __future__ import annotations

from typing import Any

BC, BR, OK, UNK = "breaking-callers", "breaking-results", "compatible", "unknown"
NONE: frozenset[str] = frozenset()


def _c(*names: str) -> frozenset[str]:
    return frozenset(names)


def _obj(properties: dict[str, Any], **rest: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **rest}


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
    return _obj(
        {"kind": kind, "name": {"type": "string"}},
        required=["kind", "name"] if required else ["name"],
    )


def _untyped(kind: str, required: bool = False) -> dict[str, Any]:
    """A branch with no type of its own, tagged by "kind"."""
    branch: dict[str, Any] = {"properties": {"kind": {"const": kind}}}
    return {**branch, "required": ["kind"]} if required else branch


_REFS = [{"$ref": "#/$defs/u"}, {"$ref": "#/$defs/g"}]
_PERIOD = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"}
_DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def _beside_reference(dialect: str | None, **beside: Any) -> dict[str, Any]:
    """An object whose property "s" is a $ref to a string, with ``beside`` next to it."""
    schema = _obj({"s": {"$ref": "#/definitions/s", **beside}})
    schema["definitions"] = {"s": {"type": "string"}}
    return {"$schema": dialect, **schema} if dialect else schema


# id: (old, new, input categories, output categories)
CASES: dict[str, tuple[Any, Any, frozenset[str], frozenset[str]]] = {
    # types
    "type changed": ({"type": "string"}, {"type": "integer"}, _c(BC), _c(BR)),
    "type changed, its bounds dropped": (
        {"type": "integer", "minimum": 1},
        {"type": "string"},
        _c(BC),
        _c(BR),
    ),
    "type changed, an object's properties dropped": (
        _obj({"a": {"type": "integer"}}, required=["a"]),
        {"type": "string", "maxLength": 3},
        _c(BC),
        _c(BR),
    ),
    "type gained, with bounds of its own": (
        {"type": "string"},
        {"type": ["string", "integer"], "minimum": 1},
        _c(OK),
        _c(BR),
    ),
    "integer widened to number": ({"type": "integer"}, {"type": "number"}, _c(OK), _c(BR)),
    "number narrowed to integer": ({"type": "number"}, {"type": "integer"}, _c(BC), _c(OK)),
    "null dropped": ({"type": ["string", "null"]}, {"type": "string"}, _c(BC), _c(OK)),
    "type list, same values": ({"type": ["number", "integer"]}, {"type": "number"}, NONE, NONE),
    "type removed": ({"type": "string"}, {}, _c(OK), _c(BR)),
    # enum and const
    "enum value removed": ({"enum": ["a", "b"]}, {"enum": ["a"]}, _c(BC), _c(OK)),
    "enum value added": ({"enum": ["a"]}, {"enum": ["a", "b"]}, _c(OK), _c(BR)),
    "enum added": ({"type": "string"}, {"type": "string", "enum": ["a"]}, _c(BC), _c(OK)),
    "enum removed": ({"type": "string", "enum": ["a"]}, {"type": "string"}, _c(OK), _c(BR)),
    "enum 1 and 1.0 are equal": ({"enum": [1]}, {"enum": [1.0]}, NONE, NONE),
    "enum true is not 1": ({"enum": [1]}, {"enum": [True]}, _c(BC), _c(BR)),
    "const changed": ({"const": "a"}, {"const": "b"}, _c(BC), _c(BR)),
    "const to enum holding it": ({"const": "a"}, {"enum": ["a", "b"]}, _c(OK), _c(BR)),
    # a listed value decided by validating it against the other side
    "const to a pattern it matches": ({"const": "2024-01"}, _PERIOD, _c(OK), _c(BR)),
    "const to a pattern it does not match": ({"const": "2024-1"}, _PERIOD, _c(BC), _c(BR)),
    "enum to a maxLength they fit": (
        {"enum": ["ab", "cd"]},
        {"type": "string", "maxLength": 2},
        _c(OK),
        _c(BR),
    ),
    "enum to a minimum one is under": (
        {"type": "integer", "enum": [1, 5]},
        {"type": "integer", "minimum": 2},
        _c(BC),
        _c(BR),
    ),
    "enum to a pattern, a listed value its type refused": (
        {"type": "string", "enum": ["2024-01", 7]},
        _PERIOD,
        _c(OK),
        _c(BR),
    ),
    "schema to an enum of values it accepted": (
        {"type": "string", "pattern": "^a"},
        {"enum": ["ab", "ac"]},
        _c(BC),
        _c(OK),
    ),
    "schema to an enum with a value it refused": (
        {"type": "string", "pattern": "^a"},
        {"enum": ["ab", "b"]},
        _c(BC),
        _c(BR),
    ),
    "enum to enum across a type": (
        {"type": "integer", "enum": [1, 2]},
        {"type": "integer", "enum": [1, 2], "maximum": 1},
        _c(BC),
        _c(OK),
    ),
    # numeric bounds
    "minimum raised": (
        {"type": "number", "minimum": 0},
        {"type": "number", "minimum": 1},
        _c(BC),
        _c(OK),
    ),
    "minimum lowered": (
        {"type": "number", "minimum": 1},
        {"type": "number", "minimum": 0},
        _c(OK),
        _c(BR),
    ),
    "maximum added": ({"type": "number"}, {"type": "number", "maximum": 9}, _c(BC), _c(OK)),
    "maximum removed": ({"type": "number", "maximum": 9}, {"type": "number"}, _c(OK), _c(BR)),
    "exclusive to inclusive": (
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "number", "minimum": 0},
        _c(OK),
        _c(BR),
    ),
    "integer: > 0 is >= 1": (
        {"type": "integer", "exclusiveMinimum": 0},
        {"type": "integer", "minimum": 1},
        NONE,
        NONE,
    ),
    "exclusiveMaximum tightened": (
        {"type": "number", "maximum": 5},
        {"type": "number", "exclusiveMaximum": 5},
        _c(BC),
        _c(OK),
    ),
    "numeric bound on a string": ({"type": "string"}, {"type": "string", "minimum": 3}, NONE, NONE),
    "draft-04 boolean exclusiveMinimum": (
        {"type": "number", "minimum": 0},
        {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        _c(UNK),
        _c(UNK),
    ),
    "multipleOf 2 → 4": (
        {"type": "integer", "multipleOf": 2},
        {"type": "integer", "multipleOf": 4},
        _c(BC),
        _c(OK),
    ),
    "multipleOf 4 → 2": (
        {"type": "integer", "multipleOf": 4},
        {"type": "integer", "multipleOf": 2},
        _c(OK),
        _c(BR),
    ),
    "multipleOf 2 → 3": (
        {"type": "integer", "multipleOf": 2},
        {"type": "integer", "multipleOf": 3},
        _c(BC),
        _c(BR),
    ),
    "multipleOf 0.5 → 0.25": (
        {"type": "number", "multipleOf": 0.5},
        {"type": "number", "multipleOf": 0.25},
        _c(OK),
        _c(BR),
    ),
    # strings
    "maxLength tightened": (
        {"type": "string", "maxLength": 10},
        {"type": "string", "maxLength": 5},
        _c(BC),
        _c(OK),
    ),
    "minLength loosened": ({"type": "string", "minLength": 2}, {"type": "string"}, _c(OK), _c(BR)),
    "pattern added": ({"type": "string"}, {"type": "string", "pattern": "^a"}, _c(BC), _c(OK)),
    "pattern removed": ({"type": "string", "pattern": "^a"}, {"type": "string"}, _c(OK), _c(BR)),
    "pattern changed": (
        {"type": "string", "pattern": "^a"},
        {"type": "string", "pattern": "^[ab]"},
        _c(UNK),
        _c(UNK),
    ),
    "format is an annotation": (
        {"type": "string"},
        {"type": "string", "format": "email"},
        NONE,
        NONE,
    ),
    "description only": ({"type": "string"}, {"type": "string", "description": "x"}, NONE, NONE),
    # arrays
    "minItems raised": ({"type": "array"}, {"type": "array", "minItems": 1}, _c(BC), _c(OK)),
    "maxItems raised": (
        {"type": "array", "maxItems": 1},
        {"type": "array", "maxItems": 2},
        _c(OK),
        _c(BR),
    ),
    "uniqueItems on": ({"type": "array"}, {"type": "array", "uniqueItems": True}, _c(BC), _c(OK)),
    "items narrowed": (
        {"type": "array", "items": {"type": "number"}},
        {"type": "array", "items": {"type": "integer"}},
        _c(BC),
        _c(OK),
    ),
    "prefixItems position narrowed": (
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "array", "prefixItems": [{"enum": ["x"]}]},
        _c(BC),
        _c(OK),
    ),
    "prefixItems position added": (
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        _c(BC),
        _c(OK),
    ),
    "draft-07 tuple items widened": (
        {
            "$schema": _DRAFT_07,
            "type": "array",
            "items": [{"type": "integer"}],
            "additionalItems": False,
        },
        {"$schema": _DRAFT_07, "type": "array", "items": [{"type": "integer"}]},
        _c(OK),
        _c(BR),
    ),
    "contains changed": (
        {"type": "array", "contains": {"type": "string"}},
        {"type": "array", "contains": {"type": "integer"}},
        _c(UNK),
        _c(UNK),
    ),
    # objects
    "new required argument": (_obj({"a": {}}), _obj({"a": {}}, required=["a"]), _c(BC), _c(OK)),
    "no longer required": (_obj({"a": {}}, required=["a"]), _obj({"a": {}}), _c(OK), _c(BR)),
    "new optional argument, closed object": (
        _obj({"a": {}}, additionalProperties=False),
        _obj({"a": {}, "b": {"type": "string"}}, additionalProperties=False),
        _c(OK),
        _c(BR),
    ),
    # A caller that sent "b" undeclared was accepted and is refused now (the lenient
    # policy, breaking-only-declared-properties, is applied by run.py, not here).
    "new optional argument, open object": (
        _obj({"a": {}}),
        _obj({"a": {}, "b": {"type": "string"}}),
        _c(BC),
        _c(OK),
    ),
    "new optional argument, open object, any value": (
        _obj({"a": {}}),
        _obj({"a": {}, "b": {}}),
        NONE,
        NONE,
    ),
    "new required argument, a new property": (
        _obj({"a": {}}),
        _obj({"a": {}, "b": {"type": "string"}}, required=["b"]),
        _c(BC),
        _c(OK),
    ),
    "new required argument, a new property of a closed object": (
        _obj({"a": {}}, additionalProperties=False),
        _obj({"a": {}, "b": {"type": "string"}}, required=["b"], additionalProperties=False),
        _c(BC),
        _c(BR),
    ),
    "argument removed, closed object": (
        _obj({"a": {}, "b": {}}, additionalProperties=False),
        _obj({"a": {}}, additionalProperties=False),
        _c(BC),
        _c(OK),
    ),
    "required argument removed, closed object": (
        _obj({"a": {}, "b": {}}, required=["b"], additionalProperties=False),
        _obj({"a": {}}, additionalProperties=False),
        _c(BC),
        _c(BR),
    ),
    "argument removed, open object": (
        _obj({"a": {}, "b": {"type": "string"}}),
        _obj({"a": {}}),
        _c(OK),
        _c(BR),
    ),
    "additionalProperties closed": (
        _obj({"a": {}}),
        _obj({"a": {}}, additionalProperties=False),
        _c(BC),
        _c(OK),
    ),
    "additionalProperties opened": (
        _obj({"a": {}}, additionalProperties=False),
        _obj({"a": {}}),
        _c(OK),
        _c(BR),
    ),
    "additionalProperties schema narrowed": (
        _obj({}, additionalProperties={"type": "number"}),
        _obj({}, additionalProperties={"type": "integer"}),
        _c(BC),
        _c(OK),
    ),
    "nested property narrowed": (
        _obj({"c": _obj({"n": {"type": "string"}})}),
        _obj({"c": _obj({"n": {"type": "string", "maxLength": 3}})}),
        _c(BC),
        _c(OK),
    ),
    "maxProperties added": (
        {"type": "object"},
        {"type": "object", "maxProperties": 2},
        _c(BC),
        _c(OK),
    ),
    "patternProperties changed": (
        {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
        _c(UNK),
        _c(UNK),
    ),
    "dependentRequired changed": (
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"type": "object", "dependentRequired": {"a": ["c"]}},
        _c(UNK),
        _c(UNK),
    ),
    "propertyNames changed": (
        {"type": "object", "propertyNames": {"maxLength": 3}},
        {"type": "object", "propertyNames": {"maxLength": 2}},
        _c(UNK),
        _c(UNK),
    ),
    # $ref
    "$ref target narrowed": (
        {"$defs": {"a": _ADDRESS}, "$ref": "#/$defs/a"},
        {"$defs": {"a": {**_ADDRESS, "required": ["zip"]}}, "$ref": "#/$defs/a"},
        _c(BC),
        _c(OK),
    ),
    "draft-07: a keyword beside $ref is ignored": (
        _beside_reference(_DRAFT_07),
        _beside_reference(_DRAFT_07, maxLength=20),
        NONE,
        NONE,
    ),
    "draft-07: a keyword beside $ref, its target narrowed": (
        _beside_reference(_DRAFT_07),
        {**_beside_reference(_DRAFT_07), "definitions": {"s": {"type": "string", "maxLength": 3}}},
        _c(BC),
        _c(OK),
    ),
    "2020-12: a keyword beside $ref applies": (
        _beside_reference(None),
        _beside_reference(None, maxLength=20),
        _c(BC),
        _c(OK),
    ),
    "$ref written out": (
        {"$defs": {"a": _ADDRESS}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"properties": {"x": _ADDRESS}},
        NONE,
        NONE,
    ),
    "recursive $ref widened": (_LIST, _LIST_WIDER, _c(OK), _c(BR)),
    "external $ref": (
        {"$ref": "https://example.com/a.json"},
        {"$ref": "https://example.com/b.json"},
        _c(UNK),
        _c(UNK),
    ),
    # combinators
    "allOf member narrowed": (
        {"allOf": [{"type": "string"}, {"maxLength": 5}]},
        {"allOf": [{"type": "string"}, {"maxLength": 4}]},
        _c(BC),
        _c(OK),
    ),
    "allOf member added": (
        {"allOf": [{"type": "string"}]},
        {"allOf": [{"type": "string"}, {"maxLength": 4}]},
        _c(BC),
        _c(OK),
    ),
    "allOf added beside keywords": (
        {"type": "object", "properties": {"a": {"type": "integer"}}},
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "allOf": [{"required": ["a"]}],
        },
        _c(BC),
        _c(OK),
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
        _c(OK),
        _c(BR),
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
        _c(UNK),
        _c(UNK),
    ),
    "anyOf branch added": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        _c(OK),
        _c(BR),
    ),
    "anyOf branch removed": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string"}]},
        _c(BC),
        _c(OK),
    ),
    "anyOf branch narrowed": (
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]},
        _c(BC),
        _c(OK),
    ),
    "anyOf covered only by a union": (
        {"anyOf": [{"type": "number"}]},
        {"anyOf": [{"type": "number", "minimum": 0}, {"type": "number", "maximum": 0}]},
        _c(UNK),
        _c(OK),
    ),
    "oneOf disjoint branch added": (
        {"oneOf": [{"type": "string"}]},
        {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        _c(OK),
        _c(BR),
    ),
    "oneOf constants narrowed": (
        {"oneOf": [{"const": "a"}, {"const": "b"}]},
        {"oneOf": [{"const": "a"}]},
        _c(BC),
        _c(OK),
    ),
    "oneOf tagged union, branch removed": (
        {"oneOf": [_tagged("user"), _tagged("group")]},
        {"oneOf": [_tagged("user")]},
        _c(BC),
        _c(OK),
    ),
    "oneOf tagged union, branch added": (
        {"oneOf": [_tagged("user")]},
        {"oneOf": [_tagged("user"), _tagged("group")]},
        _c(OK),
        _c(BR),
    ),
    "oneOf tagged union by enum, through $ref, branch removed": (
        {"$defs": {"u": _tagged("user"), "g": _tagged("group", "team")}, "oneOf": _REFS},
        {"$defs": {"u": _tagged("user")}, "oneOf": _REFS[:1]},
        _c(BC),
        _c(OK),
    ),
    "oneOf tagged union, type and tag beside the oneOf, branch removed": (
        {"type": "object", "required": ["kind"], "oneOf": [_untyped("user"), _untyped("group")]},
        {"type": "object", "required": ["kind"], "oneOf": [_untyped("user")]},
        _c(BC),
        _c(OK),
    ),
    "oneOf tag untyped: a string matches every branch": (
        {"oneOf": [_untyped("user", required=True), _untyped("group", required=True)]},
        {"oneOf": [_untyped("user", required=True)]},
        _c(UNK),
        _c(UNK),
    ),
    "oneOf tag not required: branches may overlap": (
        {"oneOf": [_tagged("user", required=False), _tagged("group", required=False)]},
        {"oneOf": [_tagged("user", required=False)]},
        _c(UNK),
        _c(UNK),
    ),
    "oneOf overlapping changed": (
        {"oneOf": [{"type": "number"}, {"type": "integer"}]},
        {"oneOf": [{"type": "number"}, {"type": "integer", "minimum": 0}]},
        _c(UNK),
        _c(UNK),
    ),
    "not changed": ({"not": {"type": "string"}}, {"not": {"type": "integer"}}, _c(UNK), _c(UNK)),
    "if/then changed": (
        {"if": {"type": "string"}, "then": {"maxLength": 3}},
        {"if": {"type": "string"}, "then": {"maxLength": 2}},
        _c(UNK),
        _c(UNK),
    ),
    "unknown keyword changed": ({"x-custom": 1}, {"x-custom": 2}, _c(UNK), _c(UNK)),
    # boolean schemas
    "true to false": (True, False, _c(BC), _c(OK)),
    "false to a schema": (False, {"type": "string"}, _c(OK), _c(BR)),
}
