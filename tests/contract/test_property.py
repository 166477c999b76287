"""The comparer's "compatible" is a proof: a schema change classified compatible for
arguments keeps every value the old schema accepted valid under the new one; for results,
every value the new schema accepts was valid under the old one. Hypothesis draws a schema,
a change of it, and values; a real validator (jsonschema_rs, as the server uses) judges."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import jsonschema_rs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_schemagen.contract.changes import Category
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.contract.subschema import Comparer, resolve

KEYS = ("a", "b", "c")
SCALAR_TYPES = ("string", "integer", "number", "boolean", "null")
EXAMPLES = 500  # hypothesis examples per direction; each checks VALUES values

VALUES = 12


def _scalar_schema(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(SCALAR_TYPES))
    schema: dict[str, Any] = {"type": kind}
    if kind in ("integer", "number"):
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
            if draw(st.booleans()) and draw(st.booleans()):
                schema[key] = draw(st.integers(1, 4) if key == "multipleOf" else st.integers(-3, 3))
    if kind == "string":
        for key in ("minLength", "maxLength"):
            if draw(st.booleans()):
                schema[key] = draw(st.integers(0, 3))
        if draw(st.integers(0, 5)) == 0:
            schema["pattern"] = draw(st.sampled_from(["^a", "b", "^[ab]*$"]))
    if draw(st.integers(0, 3)) == 0:
        schema["enum"] = draw(st.lists(_scalar_value(), min_size=1, max_size=3))
    return schema


def _bounds() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "minimum": st.integers(-3, 3),
            "maxLength": st.integers(0, 3),
            "const": _scalar_value(),
        },
    )


def _scalar_value() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-4, 4),
        st.sampled_from([0.5, -1.5, 2.0, 3.25]),
        st.sampled_from(["", "a", "ab", "b", "abc", "ba"]),
    )


@st.composite
def schemas(draw: st.DrawFn, depth: int = 0) -> Any:
    shape = draw(st.integers(0, 7 if depth < 2 else 2))
    if shape <= 2:
        return _scalar_schema(draw)
    if shape == 3:
        schema: dict[str, Any] = {"type": "array", "items": draw(schemas(depth + 1))}
        for key in ("minItems", "maxItems"):
            if draw(st.booleans()):
                schema[key] = draw(st.integers(0, 2))
        if draw(st.integers(0, 3)) == 0:
            schema["uniqueItems"] = True
        return schema
    if shape == 4:
        return {"anyOf": draw(st.lists(schemas(depth + 1), min_size=1, max_size=3))}
    if shape == 7:  # conjuncts: a scalar schema and a few more bounds on it
        return {**_scalar_schema(draw), "allOf": draw(st.lists(_bounds(), min_size=1, max_size=2))}
    names = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=3))
    schema = {"type": "object", "properties": {n: draw(schemas(depth + 1)) for n in names}}
    if names and draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    rest = draw(st.sampled_from(["absent", "false", "schema"]))
    if rest == "false":
        schema["additionalProperties"] = False
    elif rest == "schema":
        schema["additionalProperties"] = draw(schemas(depth + 1))
    return schema


def _mutate(draw: st.DrawFn, schema: Any, depth: int = 0) -> Any:
    """The schema with a few edits: a keyword added, dropped or changed, at any depth."""
    if not isinstance(schema, dict):
        return schema
    changed = copy.deepcopy(schema)
    for key in ("items", "additionalProperties"):
        if isinstance(changed.get(key), dict) and draw(st.booleans()):
            changed[key] = _mutate(draw, changed[key], depth + 1)
    for name in list(changed.get("properties", {})):
        if draw(st.booleans()):
            changed["properties"][name] = _mutate(draw, changed["properties"][name], depth + 1)
    if "anyOf" in changed and draw(st.booleans()):
        branches = [_mutate(draw, b, depth + 1) for b in changed["anyOf"]]
        action = draw(st.sampled_from(["keep", "drop", "add"]))
        if action == "drop" and len(branches) > 1:
            branches.pop(draw(st.integers(0, len(branches) - 1)))
        elif action == "add":
            branches.append(draw(schemas(2)))
        changed["anyOf"] = branches
    if "allOf" in changed and draw(st.booleans()):
        conjuncts = list(changed["allOf"])
        if len(conjuncts) > 1 and draw(st.booleans()):
            conjuncts.pop(draw(st.integers(0, len(conjuncts) - 1)))
        else:
            conjuncts.append(draw(_bounds()))
        changed["allOf"] = conjuncts
    for _ in range(draw(st.integers(0, 2))):
        edit = draw(st.sampled_from(["drop", "set", "property", "required", "type", "replace"]))
        keys = sorted(k for k in changed if k not in ("properties", "anyOf", "allOf"))
        if edit == "drop" and keys:
            del changed[draw(st.sampled_from(keys))]
        elif edit == "set":
            key = draw(
                st.sampled_from(
                    ["minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength",
                     "minItems", "maxItems", "multipleOf"]
                )
            )  # fmt: skip
            low = -2 if key in ("minimum", "maximum", "exclusiveMinimum") else 0
            changed[key] = draw(st.integers(1, 3) if key == "multipleOf" else st.integers(low, 3))
        elif edit == "property" and changed.get("type") == "object":
            changed.setdefault("properties", {})[draw(st.sampled_from(KEYS))] = draw(schemas(2))
        elif edit == "required" and changed.get("type") == "object":
            changed["required"] = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=3))
        elif edit == "type":
            changed["type"] = draw(st.sampled_from((*SCALAR_TYPES, "object", "array")))
        elif edit == "replace" and depth > 0:
            return draw(schemas(2))
    return changed


@st.composite
def values_for(
    draw: st.DrawFn, schema: Any, edges: tuple[int, ...] = (), root: Any = None, depth: int = 0
) -> Any:
    """A value aimed at ``schema`` (often, not always, valid under it); numbers and string
    lengths often at or beside one of ``edges`` (the bounds of both schemas compared);
    references resolved in ``root`` (the schema itself at the top)."""
    root = schema if root is None else root
    if isinstance(schema, dict) and "$ref" in schema:
        if depth > 3:
            return {}
        return draw(values_for(resolve(root, schema["$ref"]), edges, root, depth + 1))
    if not isinstance(schema, dict):
        return draw(_scalar_value())
    if "enum" in schema and draw(st.booleans()):
        return draw(st.sampled_from(schema["enum"]))
    if "anyOf" in schema:
        return draw(values_for(draw(st.sampled_from(schema["anyOf"])), edges, root, depth))
    constants = [c["const"] for c in schema.get("allOf", []) if "const" in c]
    if constants and draw(st.booleans()):
        return draw(st.sampled_from(constants))
    kind = schema.get("type")
    if kind == "array":
        return draw(st.lists(values_for(schema.get("items", {}), edges, root, depth), max_size=3))
    if kind == "object":
        properties = schema.get("properties", {})
        value = {
            name: draw(values_for(sub, edges, root, depth))
            for name, sub in properties.items()
            if draw(st.booleans())
        }
        if draw(st.integers(0, 3)) == 0:  # an undeclared key, as a caller might send
            value[draw(st.sampled_from(KEYS))] = draw(_scalar_value())
        return value
    if kind in ("integer", "number") and edges and draw(st.booleans()):
        # Near a bound, where a tightened or loosened bound is told apart.
        steps = [-1, 0, 1] if kind == "integer" else [-1, -0.5, 0, 0.5, 1]
        return draw(st.sampled_from(edges)) + draw(st.sampled_from(steps))
    if kind == "string" and edges and draw(st.booleans()):
        return "a" * max(0, draw(st.sampled_from(edges)) + draw(st.sampled_from([-1, 0, 1])))
    return draw(_scalar_value())


_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength")


def _edges(*schemas: Any) -> tuple[int, ...]:
    found: set[int] = set()
    pending = list(schemas)
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            found |= {v for k, v in node.items() if k in _BOUNDS and isinstance(v, int)}
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return tuple(sorted(found))


@functools.lru_cache(maxsize=4096)
def _validator(text: str) -> Any:
    return jsonschema_rs.Draft202012Validator(json.loads(text))


def _valid(schema: Any, value: Any) -> bool:
    return bool(_validator(json.dumps(schema, sort_keys=True)).is_valid(value))


@st.composite
def changes(draw: st.DrawFn) -> tuple[Any, Any]:
    """A schema and an edited copy, either way round (an edit that widens, reversed,
    narrows: both directions are drawn as often)."""
    old = draw(schemas())
    new = _mutate(draw, old)
    shape = draw(st.sampled_from(["plain", "plain", "referenced", "recursive"]))
    if shape != "plain":
        old, new = _behind_reference(old, shape), _behind_reference(new, shape)
    return (new, old) if draw(st.booleans()) else (old, new)


def _behind_reference(schema: Any, shape: str) -> Any:
    """The schema reached through $ref: once, or as the value of each node of a list
    that refers to itself (recursion, compared coinductively)."""
    if shape == "referenced":
        return {
            "$defs": {"s": schema},
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/s"}},
        }
    node = {"type": "object", "properties": {"v": schema, "next": {"$ref": "#/$defs/node"}}}
    return {"$defs": {"node": node}, "$ref": "#/$defs/node"}


CHECKED = {"inputs": 0, "outputs": 0}


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes(), st.data())
def test_compatible_arguments_accept_every_old_value(change: tuple[Any, Any], data: Any) -> None:
    old, new = change
    found = Reader.SERVER.changes("t", Comparer(old, new).compare(old, new, ""))
    if not {c.category for c in found} <= {Category.COMPATIBLE}:
        return
    CHECKED["inputs"] += bool(found)  # a change the comparer calls compatible
    for _ in range(VALUES):
        value = data.draw(values_for(old, _edges(old, new)))
        # Undeclared keys too: a caller may send them (breaking-only-declared-properties
        # is the option that says it does not).
        if _valid(old, value):
            assert _valid(new, value), (old, new, value)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes(), st.data())
def test_compatible_results_were_valid_before(change: tuple[Any, Any], data: Any) -> None:
    old, new = change
    comparer = Comparer(old, new, "", Reader.CLIENT)
    found = Reader.CLIENT.changes("t", comparer.compare(old, new, ""))
    if not {c.category for c in found} <= {Category.COMPATIBLE}:
        return
    CHECKED["outputs"] += bool(found)  # a change the comparer calls compatible
    for _ in range(VALUES):
        value = data.draw(values_for(new, _edges(old, new)))
        if _valid(new, value):
            assert _valid(old, value), (old, new, value)


def test_the_property_tests_checked_compatible_changes() -> None:
    """Runs after the two above (file order): they must have met compatible changes, or
    they proved nothing."""
    if CHECKED["inputs"] or CHECKED["outputs"]:
        assert CHECKED["inputs"] >= EXAMPLES // 20, CHECKED
        assert CHECKED["outputs"] >= EXAMPLES // 20, CHECKED
