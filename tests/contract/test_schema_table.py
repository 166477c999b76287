"""Every comparison rule, as a row: the categories a schema change gets as arguments
(narrowing breaks callers) and as results (widening breaks consumers)."""

from __future__ import annotations

from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from jsonschema.validators import validator_for

from mcp_schemagen.contract import subschema
from mcp_schemagen.contract.changes import Change
from mcp_schemagen.contract.readers import Reader
from mcp_schemagen.contract.subschema import Comparer
from tests.contract.schema_cases import BC, BR, CASES, OK
from tests.contract.schema_witnesses import WITNESSES


def _changes(old: Any, new: Any, inputs: bool) -> list[Change]:
    reader = Reader.SERVER if inputs else Reader.CLIENT
    return reader.changes("t.json", Comparer(old, new, "", reader).compare(old, new, ""))


@pytest.mark.parametrize(("old", "new", "as_input", "as_output"), CASES.values(), ids=CASES.keys())
def test_rule(old: Any, new: Any, as_input: frozenset[str], as_output: frozenset[str]) -> None:
    for inputs, expected in ((True, as_input), (False, as_output)):
        changes = _changes(old, new, inputs)
        assert {c.category.value for c in changes} == expected, [str(c) for c in changes]


def _valid(schema: Any, instance: Any) -> bool:
    """Valid under both validators, which must agree."""
    python = validator_for(schema, default=jsonschema.Draft202012Validator)(schema)
    rust = jsonschema_rs.validator_for(schema)
    verdicts = {bool(python.is_valid(instance)), bool(rust.is_valid(instance))}
    assert len(verdicts) == 1, f"the validators disagree on {instance!r} under {schema!r}"
    return verdicts.pop()


@pytest.mark.parametrize("case", CASES.keys())
def test_each_verdict_is_witnessed(case: str) -> None:
    """A breaking verdict names a value that shows it; a compatible one has none; every
    value is judged by python-jsonschema and jsonschema-rs alike."""
    old, new, as_input, as_output = CASES[case]
    refused_now, accepted_now = WITNESSES.get(case, ([], []))
    for value in refused_now:
        assert _valid(old, value) and not _valid(new, value), value
    for value in accepted_now:
        assert not _valid(old, value) and _valid(new, value), value
    assert (BC in as_input) <= bool(refused_now), "a caller breaks: which value?"
    # A consumer breaks on a value it did not expect, or on a property it reads that is
    # no longer promised (the old schema declares it, the new one does not).
    dropped = _declared(old) - _declared(new)
    assert (BR in as_output) <= bool(accepted_now or dropped), "a consumer breaks: which value?"
    # A value that breaks is never called compatible, nor left unsaid.
    assert not refused_now or as_input - {OK}, "a refused value was called compatible"
    assert not accepted_now or as_output - {OK}, "an accepted value was called compatible"


def _declared(schema: Any) -> set[str]:
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return set(properties) if isinstance(properties, dict) else set()


def test_witnesses_name_cases() -> None:
    assert WITNESSES.keys() <= CASES.keys()


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


@pytest.mark.parametrize(
    "case",
    [
        "const changed",
        "enum true is not 1",
        "type changed, its bounds dropped",
        "type changed, an object's properties dropped",
        "new required argument, a new property",
        "new required argument, a new property of a closed object",
        "required argument removed, closed object",
    ],
)
def test_one_change_is_one_line(case: str) -> None:
    """One change, one verdict, the strongest: not a breaking line and a compatible one."""
    old, new, _, _ = CASES[case]
    for inputs in (True, False):
        assert len(_changes(old, new, inputs)) == 1, [str(c) for c in _changes(old, new, inputs)]
