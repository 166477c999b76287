"""(old, new, categories for an argument schema, categories for a result schema): one
row per comparison rule of mcp_schemagen/contract/subschema.py and its helpers; the rows
for $ref, combinators and boolean schemas are in schema_cases_combinators.py."""

from __future__ import annotations

from typing import Any

from tests.contract.schema_cases_combinators import COMBINATOR_CASES
from tests.contract.schema_rows import BC, BR, DRAFT_07, NONE, OK, UNK, c, obj

__all__ = ["BC", "BR", "CASES", "OK"]
_PERIOD = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"}


# id: (old, new, input categories, output categories)
CASES: dict[str, tuple[Any, Any, frozenset[str], frozenset[str]]] = {
    # types
    "type changed": ({"type": "string"}, {"type": "integer"}, c(BC), c(BR)),
    "type changed, its bounds dropped": (
        {"type": "integer", "minimum": 1},
        {"type": "string"},
        c(BC),
        c(BR),
    ),
    "type changed, an object's properties dropped": (
        obj({"a": {"type": "integer"}}, required=["a"]),
        {"type": "string", "maxLength": 3},
        c(BC),
        c(BR),
    ),
    "type gained, with bounds of its own": (
        {"type": "string"},
        {"type": ["string", "integer"], "minimum": 1},
        c(OK),
        c(BR),
    ),
    "integer widened to number": ({"type": "integer"}, {"type": "number"}, c(OK), c(BR)),
    "number narrowed to integer": ({"type": "number"}, {"type": "integer"}, c(BC), c(OK)),
    "null dropped": ({"type": ["string", "null"]}, {"type": "string"}, c(BC), c(OK)),
    "type list, same values": ({"type": ["number", "integer"]}, {"type": "number"}, NONE, NONE),
    "type removed": ({"type": "string"}, {}, c(OK), c(BR)),
    # enum and const
    "enum value removed": ({"enum": ["a", "b"]}, {"enum": ["a"]}, c(BC), c(OK)),
    "enum value added": ({"enum": ["a"]}, {"enum": ["a", "b"]}, c(OK), c(BR)),
    "enum added": ({"type": "string"}, {"type": "string", "enum": ["a"]}, c(BC), c(OK)),
    "enum removed": ({"type": "string", "enum": ["a"]}, {"type": "string"}, c(OK), c(BR)),
    "enum 1 and 1.0 are equal": ({"enum": [1]}, {"enum": [1.0]}, NONE, NONE),
    "enum true is not 1": ({"enum": [1]}, {"enum": [True]}, c(BC), c(BR)),
    "const changed": ({"const": "a"}, {"const": "b"}, c(BC), c(BR)),
    "const to enum holding it": ({"const": "a"}, {"enum": ["a", "b"]}, c(OK), c(BR)),
    # a listed value decided by validating it against the other side
    "const to a pattern it matches": ({"const": "2024-01"}, _PERIOD, c(OK), c(BR)),
    "const to a pattern it does not match": ({"const": "2024-1"}, _PERIOD, c(BC), c(BR)),
    "enum to a maxLength they fit": (
        {"enum": ["ab", "cd"]},
        {"type": "string", "maxLength": 2},
        c(OK),
        c(BR),
    ),
    "enum to a minimum one is under": (
        {"type": "integer", "enum": [1, 5]},
        {"type": "integer", "minimum": 2},
        c(BC),
        c(BR),
    ),
    "enum to a pattern, a listed value its type refused": (
        {"type": "string", "enum": ["2024-01", 7]},
        _PERIOD,
        c(OK),
        c(BR),
    ),
    "schema to an enum of values it accepted": (
        {"type": "string", "pattern": "^a"},
        {"enum": ["ab", "ac"]},
        c(BC),
        c(OK),
    ),
    "schema to an enum with a value it refused": (
        {"type": "string", "pattern": "^a"},
        {"enum": ["ab", "b"]},
        c(BC),
        c(BR),
    ),
    "enum to enum across a type": (
        {"type": "integer", "enum": [1, 2]},
        {"type": "integer", "enum": [1, 2], "maximum": 1},
        c(BC),
        c(OK),
    ),
    # numeric bounds
    "minimum raised": (
        {"type": "number", "minimum": 0},
        {"type": "number", "minimum": 1},
        c(BC),
        c(OK),
    ),
    "minimum lowered": (
        {"type": "number", "minimum": 1},
        {"type": "number", "minimum": 0},
        c(OK),
        c(BR),
    ),
    "maximum added": ({"type": "number"}, {"type": "number", "maximum": 9}, c(BC), c(OK)),
    "maximum removed": ({"type": "number", "maximum": 9}, {"type": "number"}, c(OK), c(BR)),
    "exclusive to inclusive": (
        {"type": "number", "exclusiveMinimum": 0},
        {"type": "number", "minimum": 0},
        c(OK),
        c(BR),
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
        c(BC),
        c(OK),
    ),
    "numeric bound on a string": ({"type": "string"}, {"type": "string", "minimum": 3}, NONE, NONE),
    "draft-04 boolean exclusiveMinimum": (
        {"type": "number", "minimum": 0},
        {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        c(UNK),
        c(UNK),
    ),
    "multipleOf 2 → 4": (
        {"type": "integer", "multipleOf": 2},
        {"type": "integer", "multipleOf": 4},
        c(BC),
        c(OK),
    ),
    "multipleOf 4 → 2": (
        {"type": "integer", "multipleOf": 4},
        {"type": "integer", "multipleOf": 2},
        c(OK),
        c(BR),
    ),
    "multipleOf 2 → 3": (
        {"type": "integer", "multipleOf": 2},
        {"type": "integer", "multipleOf": 3},
        c(BC),
        c(BR),
    ),
    "multipleOf 0.5 → 0.25": (
        {"type": "number", "multipleOf": 0.5},
        {"type": "number", "multipleOf": 0.25},
        c(OK),
        c(BR),
    ),
    # strings
    "maxLength tightened": (
        {"type": "string", "maxLength": 10},
        {"type": "string", "maxLength": 5},
        c(BC),
        c(OK),
    ),
    "minLength loosened": ({"type": "string", "minLength": 2}, {"type": "string"}, c(OK), c(BR)),
    "pattern added": ({"type": "string"}, {"type": "string", "pattern": "^a"}, c(BC), c(OK)),
    "pattern removed": ({"type": "string", "pattern": "^a"}, {"type": "string"}, c(OK), c(BR)),
    "pattern changed": (
        {"type": "string", "pattern": "^a"},
        {"type": "string", "pattern": "^[ab]"},
        c(UNK),
        c(UNK),
    ),
    "format is an annotation": (
        {"type": "string"},
        {"type": "string", "format": "email"},
        NONE,
        NONE,
    ),
    "description only": ({"type": "string"}, {"type": "string", "description": "x"}, NONE, NONE),
    # arrays
    "minItems raised": ({"type": "array"}, {"type": "array", "minItems": 1}, c(BC), c(OK)),
    "maxItems raised": (
        {"type": "array", "maxItems": 1},
        {"type": "array", "maxItems": 2},
        c(OK),
        c(BR),
    ),
    "uniqueItems on": ({"type": "array"}, {"type": "array", "uniqueItems": True}, c(BC), c(OK)),
    "items narrowed": (
        {"type": "array", "items": {"type": "number"}},
        {"type": "array", "items": {"type": "integer"}},
        c(BC),
        c(OK),
    ),
    "prefixItems position narrowed": (
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "array", "prefixItems": [{"enum": ["x"]}]},
        c(BC),
        c(OK),
    ),
    "prefixItems position added": (
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        c(BC),
        c(OK),
    ),
    "draft-07 tuple items widened": (
        {
            "$schema": DRAFT_07,
            "type": "array",
            "items": [{"type": "integer"}],
            "additionalItems": False,
        },
        {"$schema": DRAFT_07, "type": "array", "items": [{"type": "integer"}]},
        c(OK),
        c(BR),
    ),
    "contains changed": (
        {"type": "array", "contains": {"type": "string"}},
        {"type": "array", "contains": {"type": "integer"}},
        c(UNK),
        c(UNK),
    ),
    # objects
    "new required argument": (obj({"a": {}}), obj({"a": {}}, required=["a"]), c(BC), c(OK)),
    "no longer required": (obj({"a": {}}, required=["a"]), obj({"a": {}}), c(OK), c(BR)),
    "new optional argument, closed object": (
        obj({"a": {}}, additionalProperties=False),
        obj({"a": {}, "b": {"type": "string"}}, additionalProperties=False),
        c(OK),
        c(BR),
    ),
    # A caller that sent "b" undeclared was accepted and is refused now (the lenient
    # policy, breaking-only-declared-properties, is applied by run.py, not here).
    "new optional argument, open object": (
        obj({"a": {}}),
        obj({"a": {}, "b": {"type": "string"}}),
        c(BC),
        c(OK),
    ),
    "new optional argument, open object, any value": (
        obj({"a": {}}),
        obj({"a": {}, "b": {}}),
        NONE,
        NONE,
    ),
    "new required argument, a new property": (
        obj({"a": {}}),
        obj({"a": {}, "b": {"type": "string"}}, required=["b"]),
        c(BC),
        c(OK),
    ),
    "new required argument, a new property of a closed object": (
        obj({"a": {}}, additionalProperties=False),
        obj({"a": {}, "b": {"type": "string"}}, required=["b"], additionalProperties=False),
        c(BC),
        c(BR),
    ),
    # Results narrow, but 'b' is no longer promised: a consumer that reads it breaks.
    "argument removed, closed object": (
        obj({"a": {}, "b": {}}, additionalProperties=False),
        obj({"a": {}}, additionalProperties=False),
        c(BC),
        c(BR),
    ),
    "argument of any value removed, open object": (
        obj({"a": {}, "b": {}}),
        obj({"a": {}}),
        NONE,
        c(BR),
    ),
    "required argument removed, closed object": (
        obj({"a": {}, "b": {}}, required=["b"], additionalProperties=False),
        obj({"a": {}}, additionalProperties=False),
        c(BC),
        c(BR),
    ),
    "argument removed, open object": (
        obj({"a": {}, "b": {"type": "string"}}),
        obj({"a": {}}),
        c(OK),
        c(BR),
    ),
    "additionalProperties closed": (
        obj({"a": {}}),
        obj({"a": {}}, additionalProperties=False),
        c(BC),
        c(OK),
    ),
    "additionalProperties opened": (
        obj({"a": {}}, additionalProperties=False),
        obj({"a": {}}),
        c(OK),
        c(BR),
    ),
    "additionalProperties schema narrowed": (
        obj({}, additionalProperties={"type": "number"}),
        obj({}, additionalProperties={"type": "integer"}),
        c(BC),
        c(OK),
    ),
    "nested property narrowed": (
        obj({"c": obj({"n": {"type": "string"}})}),
        obj({"c": obj({"n": {"type": "string", "maxLength": 3}})}),
        c(BC),
        c(OK),
    ),
    "maxProperties added": (
        {"type": "object"},
        {"type": "object", "maxProperties": 2},
        c(BC),
        c(OK),
    ),
    "patternProperties changed": (
        {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
        c(UNK),
        c(UNK),
    ),
    "dependentRequired changed": (
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"type": "object", "dependentRequired": {"a": ["c"]}},
        c(UNK),
        c(UNK),
    ),
    "propertyNames changed": (
        {"type": "object", "propertyNames": {"maxLength": 3}},
        {"type": "object", "propertyNames": {"maxLength": 2}},
        c(UNK),
        c(UNK),
    ),
}

CASES |= COMBINATOR_CASES
