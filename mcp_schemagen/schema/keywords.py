"""The keywords of JSON Schema 2020-12 and draft-07 (the dialects a tool schema may use),
grouped by what their value holds, for every module that walks or filters a tool schema."""

from __future__ import annotations

# Keywords whose value is one subschema ("items" is a list of them in draft-07 too).
ONE_SCHEMA = frozenset(
    {
        "additionalProperties",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "contentSchema",
        "items",
    }
)
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
# Maps of names to subschemas: the tool's own type names, property names, the rest.
DEFINITIONS = frozenset({"$defs", "definitions"})
PROPERTIES = frozenset({"properties", "patternProperties"})
OTHER_SCHEMA_MAPS = frozenset({"dependentSchemas", "dependencies"})
SCHEMA_MAPS = DEFINITIONS | PROPERTIES | OTHER_SCHEMA_MAPS
# Keywords whose value is data: assertions, annotations, identifiers.
VALUES = frozenset(
    {
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$comment",
        "$vocabulary",
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "format",
        "contentEncoding",
        "contentMediaType",
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
    }
)
KEYWORDS = ONE_SCHEMA | SCHEMA_LISTS | SCHEMA_MAPS | VALUES
# 2019-09's recursion keywords: not of either dialect, but no typo either (lint is quiet).
RECURSION_2019 = frozenset({"$recursiveRef", "$recursiveAnchor"})
