"""Tool and prompt rules, on two snapshots: removed, renamed, added, arguments, results,
annotations, scopes and the bytes each revision lists."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mcp_schemagen.contract.rules import compare
from mcp_schemagen.contract.snapshot import Definition, Snapshot
from mcp_schemagen.runtime.auth.scopes import SCOPES_KEY

REVISIONS = ("2025-06-18", "2025-11-25")
TOOL: dict[str, Any] = {
    "name": "add",
    "title": "Add",
    "description": "Add two numbers.",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"],
    },
    "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
    "_meta": {SCOPES_KEY: ["math:read"]},
}
PROMPT: dict[str, Any] = {
    "name": "brief",
    "description": "A briefing.",
    "arguments": [
        {"name": "city", "required": True},
        {"name": "style", "x-mcp-codegen-schema": {"type": "string", "enum": ["a", "b"]}},
    ],
}


def _snapshot(tools: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> Snapshot:
    return Snapshot(
        "x",
        {
            "tools": [Definition("tool", f"tools/{t['name']}.json", "", t) for t in tools],
            "prompts": [Definition("prompt", f"prompts/{p['name']}.yaml", "", p) for p in prompts],
        },
    )


def _lines(
    old_tools: Any, new_tools: Any, old_prompts: Any = (), new_prompts: Any = ()
) -> list[str]:
    old = _snapshot(list(old_tools), list(old_prompts))
    new = _snapshot(list(new_tools), list(new_prompts))
    return sorted(str(c) for c in compare(old, new, REVISIONS))


def _edited(
    base: dict[str, Any], *path: str, value: Any = None, delete: bool = False
) -> dict[str, Any]:
    changed = copy.deepcopy(base)
    node = changed
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return changed


CACHE = "cache: {} changed: the listing bytes differ for revisions 2025-06-18, 2025-11-25"


def test_nothing_changed_nothing_said() -> None:
    assert _lines([TOOL], [copy.deepcopy(TOOL)], [PROMPT], [copy.deepcopy(PROMPT)]) == []


def test_tool_removed_breaks_callers() -> None:
    assert _lines([TOOL], []) == [
        "tools/add.json: breaking (callers): tool 'add' removed; clients calling it get an "
        "unknown-tool error",
        "tools/add.json: cache: tool 'add' removed from tools/list",
    ]


def test_tool_renamed_is_named_as_a_likely_rename() -> None:
    lines = _lines([TOOL], [{**TOOL, "name": "plus"}])
    assert (
        "tools/add.json: breaking (callers): tool 'add' removed (renamed to 'plus'? same inputSchema); clients calling it get an unknown-tool error"
        in lines
    )
    assert "tools/plus.json: compatible: tool 'plus' added" in lines


def test_tool_added_is_compatible_and_changes_the_listing() -> None:
    other = {**TOOL, "name": "sub"}
    assert _lines([TOOL], [TOOL, other]) == [
        "tools/sub.json: cache: tool 'sub' added to tools/list",
        "tools/sub.json: compatible: tool 'sub' added",
    ]


def test_new_required_argument_breaks_callers() -> None:
    new = _edited(TOOL, "inputSchema", "required", value=["a", "b"])
    assert (
        "tools/add.json#/inputSchema/required: breaking (callers): 'b' is now required"
        in _lines([TOOL], [new])
    )


def test_a_new_required_property_is_one_line() -> None:
    new = _edited(TOOL, "inputSchema", "properties", "c", value={"type": "string"})
    new["inputSchema"]["required"] = ["a", "c"]
    assert [line for line in _lines([TOOL], [new]) if "cache:" not in line] == [
        "tools/add.json#/inputSchema/required: breaking (callers): 'c' is now required; "
        "property 'c' added"
    ]


def test_argument_removed_from_a_closed_object_breaks_callers() -> None:
    new = _edited(TOOL, "inputSchema", "properties", "b", delete=True)
    assert (
        "tools/add.json#/inputSchema/properties/b: breaking (callers): property 'b' removed, "
        "and additionalProperties false now refuses it" in _lines([TOOL], [new])
    )


def test_output_property_no_longer_required_breaks_result_consumers() -> None:
    new = _edited(TOOL, "outputSchema", "required", value=[])
    assert (
        "tools/add.json#/outputSchema/required: breaking (result consumers): 'sum' is no "
        "longer required: a result may now leave it out, and a consumer that reads 'sum' may "
        "get nothing" in _lines([TOOL], [new])
    )


def test_output_type_widened_breaks_result_consumers() -> None:
    new = _edited(TOOL, "outputSchema", "properties", "sum", "type", value=["number", "string"])
    lines = _lines([TOOL], [new])
    assert any(
        "#/outputSchema/properties/sum/type: breaking (result consumers)" in line for line in lines
    )


def test_output_schema_removed_breaks_result_consumers() -> None:
    new = _edited(TOOL, "outputSchema", delete=True)
    assert (
        "tools/add.json#/outputSchema: breaking (result consumers): outputSchema removed: "
        "structured results are no longer promised" in _lines([TOOL], [new])
    )


WRITING = _edited(TOOL, "annotations", "readOnlyHint", value=False)


@pytest.mark.parametrize(
    ("base", "hint", "value", "category"),
    [
        (TOOL, "readOnlyHint", False, "safety"),
        (TOOL, "openWorldHint", True, "safety"),
        (TOOL, "destructiveHint", True, None),  # absent is true already: no change
        # Beside readOnlyHint true the write hints mean nothing: no change either way.
        (TOOL, "idempotentHint", False, None),
        (TOOL, "destructiveHint", False, None),
        (WRITING, "idempotentHint", False, "safety"),
        (WRITING, "destructiveHint", False, "compatible"),  # a promise added
    ],
)
def test_annotation_hints(base: Any, hint: str, value: bool, category: str | None) -> None:
    lines = [
        line
        for line in _lines([base], [_edited(base, "annotations", hint, value=value)])
        if "cache:" not in line
    ]
    if category is None:
        assert lines == []
    else:
        (line,) = lines
        assert line.startswith(f"tools/add.json#/annotations/{hint}: {category}: "), line


def test_write_hints_appearing_as_read_only_goes_are_one_safety_verdict() -> None:
    new = copy.deepcopy(TOOL)
    new["annotations"].update(readOnlyHint=False, destructiveHint=False, idempotentHint=False)
    lines = [line for line in _lines([TOOL], [new]) if "cache:" not in line]
    assert lines == [
        "tools/add.json#/annotations/readOnlyHint: safety: readOnlyHint true → false (now "
        "destructiveHint false, idempotentHint false): a promise loosened"
    ]
    # And back: one line, a promise added.
    lines = [line for line in _lines([new], [TOOL]) if "cache:" not in line]
    assert lines == [
        "tools/add.json#/annotations/readOnlyHint: compatible: readOnlyHint false → true "
        "(destructiveHint, idempotentHint no longer apply): a promise added"
    ]


def test_hint_dropped_loosens_the_promise() -> None:
    new = _edited(TOOL, "annotations", "readOnlyHint", delete=True)
    assert (
        "tools/add.json#/annotations/readOnlyHint: safety: readOnlyHint true → absent: a promise loosened"
        in _lines([TOOL], [new])
    )


def test_required_scopes_changed_is_safety() -> None:
    new = _edited(TOOL, "_meta", SCOPES_KEY, value=["math:read", "math:write"])
    assert (
        f"tools/add.json#/_meta/{SCOPES_KEY.replace('/', '~1')}: safety: required scopes "
        "changed: now needs math:write" in _lines([TOOL], [new])
    )


def test_description_change_is_cache_only() -> None:
    new = _edited(TOOL, "description", value="Add two numbers, exactly.")
    assert _lines([TOOL], [new]) == ["tools/add.json: " + CACHE.format("description")]


def test_a_field_no_targeted_revision_publishes_changes_no_bytes() -> None:
    new = _edited(TOOL, "title", value="Plus")
    old_snapshot, new_snapshot = _snapshot([TOOL], []), _snapshot([new], [])
    assert [str(c) for c in compare(old_snapshot, new_snapshot, ("2024-11-05",))] == []
    assert [str(c) for c in compare(old_snapshot, new_snapshot, REVISIONS)] == [
        "tools/add.json: " + CACHE.format("title")
    ]


def test_order_change_is_cache() -> None:
    other = {**TOOL, "name": "sub"}
    assert _lines([TOOL, other], [other, TOOL]) == [
        "tools/list: cache: order of tools/list changed, for revisions 2025-06-18, 2025-11-25"
    ]


def test_prompt_removed_breaks_callers() -> None:
    assert "prompts/brief.yaml: breaking (callers): prompt 'brief' removed" in _lines(
        [], [], [PROMPT], []
    )


def test_prompt_new_required_argument_breaks_callers() -> None:
    new = _edited(
        PROMPT, "arguments", value=[*PROMPT["arguments"], {"name": "day", "required": True}]
    )
    assert (
        "prompts/brief.yaml#/arguments/2: breaking (callers): new required argument 'day'"
        in _lines([], [], [PROMPT], [new])
    )


def test_prompt_new_optional_argument_is_compatible() -> None:
    new = _edited(PROMPT, "arguments", value=[*PROMPT["arguments"], {"name": "day"}])
    assert "prompts/brief.yaml#/arguments/2: compatible: new optional argument 'day'" in _lines(
        [], [], [PROMPT], [new]
    )


def test_prompt_argument_now_required_breaks_callers() -> None:
    new = copy.deepcopy(PROMPT)
    new["arguments"][1]["required"] = True
    assert (
        "prompts/brief.yaml#/arguments/1: breaking (callers): argument 'style' is now required"
        in _lines([], [], [PROMPT], [new])
    )


def test_prompt_argument_removed_breaks_callers() -> None:
    new = _edited(PROMPT, "arguments", value=PROMPT["arguments"][:1])
    assert (
        "prompts/brief.yaml#/arguments: breaking (callers): argument 'style' removed: "
        "prompts/get refuses arguments it does not declare" in _lines([], [], [PROMPT], [new])
    )


def test_prompt_argument_enum_narrowed_breaks_callers_and_changes_no_bytes() -> None:
    new = copy.deepcopy(PROMPT)
    new["arguments"][1]["x-mcp-codegen-schema"]["enum"] = ["a"]
    # x-mcp-codegen-schema is never published: no cache line.
    assert _lines([], [], [PROMPT], [new]) == [
        "prompts/brief.yaml#/arguments/1/x-mcp-codegen-schema/enum: breaking (callers): no "
        'longer accepts ["b"]'
    ]


def test_prompt_description_is_cache() -> None:
    new = _edited(PROMPT, "description", value="Another briefing.")
    assert _lines([], [], [PROMPT], [new]) == ["prompts/brief.yaml: " + CACHE.format("description")]
