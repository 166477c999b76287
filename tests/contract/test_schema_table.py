"""Every comparison rule, as a row: the categories a schema change gets as arguments
(narrowing breaks callers) and as results (widening breaks consumers)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_schemagen.contract import subschema
from mcp_schemagen.contract.changes import Change, for_inputs, for_outputs
from mcp_schemagen.contract.subschema import Comparer
from tests.contract.schema_cases import CASES


def _changes(old: Any, new: Any, inputs: bool) -> list[Change]:
    found = Comparer(old, new).compare(old, new, "")
    return (for_inputs if inputs else for_outputs)("t.json", found)


@pytest.mark.parametrize(("old", "new", "as_input", "as_output"), CASES.values(), ids=CASES.keys())
def test_rule(old: Any, new: Any, as_input: frozenset[str], as_output: frozenset[str]) -> None:
    for inputs, expected in ((True, as_input), (False, as_output)):
        changes = _changes(old, new, inputs)
        assert {c.category.value for c in changes} == expected, [str(c) for c in changes]


def test_a_change_is_located_at_the_keyword_that_changed() -> None:
    old = {"type": "object", "properties": {"q": {"type": "integer", "maximum": 9}}}
    new = {"type": "object", "properties": {"q": {"type": "integer", "maximum": 5}}}
    (change,) = _changes(old, new, True)
    assert str(change) == "t.json#/properties/q/maximum: breaking (callers): maximum 9 → maximum 5"


def test_a_change_behind_a_reference_is_located_in_its_definition() -> None:
    old, new, _, _ = CASES["$ref target narrowed"]
    (change,) = _changes(old, new, True)
    assert change.pointer == "/$defs/a/required"


def test_deep_recursion_ends_in_unknown_not_a_crash() -> None:
    old: Any = {"type": "string"}
    new: Any = {"type": "integer"}
    for _ in range(100):
        old, new = {"properties": {"a": old}}, {"properties": {"a": new}}
    assert {c.category.value for c in _changes(old, new, True)} == {"unknown"}


def _fan_out(leaf: dict[str, Any], levels: int = 30) -> dict[str, Any]:
    """$defs d0 .. dN, each referring to the next twice: 2**N paths through references."""
    definitions: dict[str, Any] = {f"d{levels}": leaf}
    for level in range(levels):
        nxt = {"$ref": f"#/$defs/d{level + 1}"}
        definitions[f"d{level}"] = {"type": "object", "properties": {"x": nxt, "y": nxt}}
    return {"$defs": definitions, "$ref": "#/$defs/d0"}


def test_references_that_fan_out_are_compared_once_each() -> None:
    old, new = _fan_out({"type": "string"}), _fan_out({"type": "string", "maxLength": 2})
    changes = {str(c) for c in _changes(old, new, True)}
    assert changes == {"t.json#/$defs/d30/maxLength: breaking (callers): none → maxLength 2"}


def test_a_change_deep_behind_an_unchanged_reference_is_found() -> None:
    deep: Any = {"$ref": "#/$defs/leaf"}
    for _ in range(12):
        deep = {"type": "object", "properties": {"a": deep}}
    old = {"$defs": {"leaf": {"type": "integer"}}, **deep}
    new = {"$defs": {"leaf": {"type": "string"}}, **deep}
    assert {c.category.value for c in _changes(old, new, True)} == {"breaking-callers"}


def test_references_that_fan_out_and_loop_back_end_in_an_answer() -> None:
    def looping(leaf: dict[str, Any]) -> dict[str, Any]:
        schema = _fan_out(leaf, 24)
        for name, definition in schema["$defs"].items():
            if name != "d24":
                definition["properties"]["back"] = {"$ref": "#/$defs/d0"}
        return schema

    old, new = looping({"type": "string"}), looping({"type": "string", "maxLength": 2})
    changes = {str(c) for c in _changes(old, new, True)}
    assert changes == {"t.json#/$defs/d24/maxLength: breaking (callers): none → maxLength 2"}


def test_past_its_bound_a_comparison_answers_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subschema, "_MAX_WORK", 20)
    old, new = _fan_out({"type": "string"}), _fan_out({"type": "string", "maxLength": 2})
    assert [str(c) for c in _changes(old, new, True)] == [
        "t.json: unknown: too large to compare within bounds"
    ]
