"""A tool's outputSchema is read by the client: every rule applied to it gives the verdict
of a result consumer (new ⊆ old is safe; a value not allowed before, or a property no longer
promised, breaks) and words about results, never about calls. One row per class of change,
through the same comparison `mcp-codegen breaking` runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_schemagen.contract.changes import Change
from mcp_schemagen.contract.rules import compare
from mcp_schemagen.contract.snapshot import Definition, Snapshot
from tests.contract.test_command import PYPROJECT, _git, _run

BR, OK, UNK = "breaking-results", "compatible", "unknown"
PET = {"type": "object", "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}}}
CLOSED = {**PET, "additionalProperties": False}
NAMED = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def _with(schema: dict[str, Any], **keys: Any) -> dict[str, Any]:
    return {**schema, **keys}


def _properties(schema: dict[str, Any], **properties: Any) -> dict[str, Any]:
    return {**schema, "properties": {**schema["properties"], **properties}}


def _without(schema: dict[str, Any], name: str) -> dict[str, Any]:
    kept = {k: v for k, v in schema["properties"].items() if k != name}
    return {**schema, "properties": kept}


def _tag(kind: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"kind": {"const": kind}}, "required": ["kind"]}


def _referenced(target: dict[str, Any]) -> dict[str, Any]:
    return {
        "$defs": {"Pet": target},
        "type": "object",
        "properties": {"pet": {"$ref": "#/$defs/Pet"}},
    }


# id: (old outputSchema, new outputSchema, the category of each line)
ROWS: dict[str, tuple[dict[str, Any], dict[str, Any], set[str]]] = {
    "property added, open object": (PET, _properties(PET, nickname={"type": "string"}), {OK}),
    "property added, closed object": (
        CLOSED,
        _properties(CLOSED, nickname={"type": "string"}),
        {BR},
    ),
    "property removed, open object": (PET, _without(PET, "tag"), {BR}),
    "property of any value removed, open object": (
        _properties(PET, extra={}),
        PET,
        {BR},
    ),
    "property removed, closed object": (CLOSED, _without(CLOSED, "tag"), {BR}),
    "property renamed, closed object (the finding)": (
        CLOSED,
        _properties(_without(CLOSED, "tag"), nickname={"type": "string"}),
        {BR},
    ),
    "required added": (PET, _with(PET, required=["id"]), {OK}),
    "required dropped": (_with(PET, required=["id"]), PET, {BR}),
    "required property removed": (
        _with(CLOSED, required=["tag"]),
        _without(CLOSED, "tag"),
        {BR},
    ),
    "type widened": (PET, _properties(PET, id={"type": "number"}), {BR}),
    "type narrowed": (
        _properties(PET, id={"type": "number"}),
        PET,
        {OK},
    ),
    "enum value added": (
        _properties(PET, tag={"enum": ["a", "b"]}),
        _properties(PET, tag={"enum": ["a", "b", "c"]}),
        {BR},
    ),
    "enum value removed": (
        _properties(PET, tag={"enum": ["a", "b"]}),
        _properties(PET, tag={"enum": ["a"]}),
        {OK},
    ),
    "maximum raised": (
        _properties(PET, id={"type": "integer", "maximum": 9}),
        _properties(PET, id={"type": "integer", "maximum": 99}),
        {BR},
    ),
    "maxLength lowered": (
        _properties(PET, tag={"type": "string", "maxLength": 9}),
        _properties(PET, tag={"type": "string", "maxLength": 3}),
        {OK},
    ),
    "additionalProperties opened": (CLOSED, PET, {BR}),
    "additionalProperties closed": (PET, CLOSED, {OK}),
    "a keyword not compared added": (
        _properties(PET, tag={"type": "string"}),
        _properties(PET, tag={"type": "string", "not": {"const": "x"}}),
        {OK},
    ),
    "a keyword not compared removed": (
        _properties(PET, tag={"type": "string", "not": {"const": "x"}}),
        _properties(PET, tag={"type": "string"}),
        {UNK},
    ),
    "anyOf branch added": (
        {"anyOf": [{"type": "string"}]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {BR},
    ),
    "anyOf branch removed": (
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"anyOf": [{"type": "string"}]},
        {OK},
    ),
    "anyOf branch drops a property": (
        {"anyOf": [PET, {"type": "null"}]},
        {"anyOf": [_without(PET, "tag"), {"type": "null"}]},
        {BR},
    ),
    "anyOf branch of a closed object drops a property": (
        {"anyOf": [CLOSED, {"type": "null"}]},
        {"anyOf": [_without(CLOSED, "tag"), {"type": "null"}]},
        {BR},
    ),
    "oneOf tagged branch added": (
        {"oneOf": [_tag("cat"), _tag("dog")]},
        {"oneOf": [_tag("cat"), _tag("dog"), _tag("fish")]},
        {BR},
    ),
    "allOf conjunct removed": ({"allOf": [PET, NAMED]}, {"allOf": [PET]}, {BR}),
    "allOf conjunct added": ({"allOf": [PET]}, {"allOf": [PET, NAMED]}, {OK}),
    "allOf member drops a property": ({"allOf": [PET]}, {"allOf": [_without(PET, "tag")]}, {BR}),
    "$ref target widened": (
        _referenced(PET),
        _referenced(_properties(PET, id={"type": "number"})),
        {BR},
    ),
    "$ref target drops a property": (_referenced(PET), _referenced(_without(PET, "tag")), {BR}),
    "$ref target narrowed": (
        _referenced(PET),
        _referenced(_properties(PET, tag={"type": "string", "maxLength": 3})),
        {OK},
    ),
}


def _verdicts(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    def snapshot(output: dict[str, Any]) -> Snapshot:
        tool = {"name": "pet", "inputSchema": {"type": "object"}, "outputSchema": output}
        return Snapshot("x", {"tools": [Definition("tool", "tools/pet.json", "", tool)]})

    found = compare(snapshot(old), snapshot(new), ("2025-06-18",))
    return [c for c in found if c.category.value != "cache"]


@pytest.mark.parametrize(("old", "new", "expected"), ROWS.values(), ids=ROWS.keys())
def test_result_change_verdict_and_words(
    old: dict[str, Any], new: dict[str, Any], expected: set[str]
) -> None:
    changes = _verdicts(old, new)
    lines = [str(c) for c in changes]
    assert {c.category.value for c in changes} == expected, lines
    for change in changes:
        # A result schema's reader is the consumer: its words (not only the category's
        # label) speak of results.
        assert "call" not in change.what, str(change)
        assert "result" in change.what or "consumer" in change.what, str(change)


def test_the_finding_names_what_a_consumer_loses_and_may_now_get() -> None:
    old, new, _ = ROWS["property renamed, closed object (the finding)"]
    assert sorted(str(c) for c in _verdicts(old, new)) == [
        "tools/pet.json#/outputSchema/properties/nickname: breaking (result consumers): "
        "property 'nickname' added: a result may now carry it, which additionalProperties "
        "false refused; a consumer that checks results against the old schema refuses it",
        "tools/pet.json#/outputSchema/properties/tag: breaking (result consumers): property "
        "'tag' removed, and additionalProperties false now refuses it: no longer promised; a "
        "consumer that reads 'tag' no longer gets it",
    ]


def test_a_property_declared_over_any_value_speaks_of_results_it_no_longer_sends() -> None:
    old, new, _ = ROWS["property added, open object"]
    assert [str(c) for c in _verdicts(old, new)] == [
        "tools/pet.json#/outputSchema/properties/nickname: compatible: property 'nickname' "
        'added where any key was accepted: a result that carried {"nickname": 0} is no longer '
        "sent; consumers still read every result"
    ]


def test_the_same_change_to_arguments_still_speaks_of_calls() -> None:
    """The reader decides the words: an inputSchema's line is about what callers send."""
    tool = {"name": "pet", "inputSchema": PET}
    changed = {**tool, "inputSchema": _properties(PET, nickname={"type": "string"})}

    def snapshot(definition: dict[str, Any]) -> Snapshot:
        return Snapshot("x", {"tools": [Definition("tool", "tools/pet.json", "", definition)]})

    lines = [str(c) for c in compare(snapshot(tool), snapshot(changed), ("2025-06-18",))]
    assert (
        "tools/pet.json#/inputSchema/properties/nickname: breaking (callers): property "
        "'nickname' added where any key was accepted: a call that sent {\"nickname\": 0} is "
        "refused now" in lines
    )


def test_the_finding_end_to_end_against_a_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The finding from outside, with a plain tool file: the answer loses `tag` and gains
    `nickname`; `mcp-codegen breaking --against HEAD` fails on both, in words of results."""
    old, new, _ = ROWS["property renamed, closed object (the finding)"]
    project = tmp_path / "repo"
    (project / "tools").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    tool = {"name": "find_pet", "inputSchema": {"type": "object"}, "outputSchema": old}
    path = project / "tools" / "find_pet.json"
    path.write_text(json.dumps(tool, indent=2), encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "first")
    path.write_text(json.dumps({**tool, "outputSchema": new}, indent=2), encoding="utf-8")

    code, out, _ = _run(capsys, "--against", "HEAD", str(project))
    lines = [line for line in out.splitlines() if ": cache: " not in line]
    assert (code, lines) == (
        1,
        [
            "tools/find_pet.json#/outputSchema/properties/nickname: breaking (result "
            "consumers): property 'nickname' added: a result may now carry it, which "
            "additionalProperties false refused; a consumer that checks results against the "
            "old schema refuses it",
            "tools/find_pet.json#/outputSchema/properties/tag: breaking (result consumers): "
            "property 'tag' removed, and additionalProperties false now refuses it: no longer "
            "promised; a consumer that reads 'tag' no longer gets it",
        ],
    )
