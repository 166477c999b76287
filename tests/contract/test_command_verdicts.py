"""`mcp-codegen breaking` end to end on the verdicts of issue 32: pointers through $ref
as the file has them, widenings not called breaking, tagged unions and allOf decided, a
property added to an open object, and a saved listing compared in its own revision."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.contract.test_command import PYPROJECT, _git, _run

ADDRESS = {"type": "object", "properties": {"street": {"type": "string", "maxLength": 100}}}
PLACE_ORDER: dict[str, Any] = {
    "name": "place_order",
    "description": "Place an order.",
    "inputSchema": {
        "type": "object",
        "$defs": {"Address": copy.deepcopy(ADDRESS)},
        "properties": {
            "to": {"$ref": "#/$defs/Address"},
            "period": {"const": "2024-01"},
            "target": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"const": kind}, "name": {"type": "string"}},
                        "required": ["kind", "name"],
                    }
                    for kind in ("user", "group")
                ]
            },
            "options": {"type": "object", "properties": {"fast": {"type": "boolean"}}},
        },
    },
    "outputSchema": {
        "type": "object",
        "$defs": {"Address": copy.deepcopy(ADDRESS)},
        "properties": {"shipped_to": {"$ref": "#/$defs/Address"}},
    },
}
FILE = "tools/place_order.json"


def _write(project: Path, tool: dict[str, Any]) -> None:
    (project / FILE).write_text(json.dumps(tool, indent=2), encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repository = tmp_path / "repo"
    project = repository / "shop"
    (project / "tools").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    _write(project, PLACE_ORDER)
    _git(repository, "init", "-q")
    _git(repository, "add", "-A")
    _git(repository, "commit", "-qm", "first")
    return project


def _changed(project: Path, edit: Any) -> None:
    tool = copy.deepcopy(PLACE_ORDER)
    edit(tool)
    _write(project, tool)


def _verdicts(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, list[str]]:
    code, out, _ = _run(capsys, *arguments)
    return code, [line for line in out.splitlines() if ": cache: " not in line]


def test_a_definition_behind_a_reference_is_located_where_the_file_has_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(tool: dict[str, Any]) -> None:
        tool["inputSchema"]["$defs"]["Address"]["properties"]["street"]["maxLength"] = 50
        tool["outputSchema"]["$defs"]["Address"]["properties"]["street"]["maxLength"] = 200

    _changed(project, edit)
    street = "$defs/Address/properties/street/maxLength"
    code, lines = _verdicts(capsys, "--against", "HEAD", str(project))
    assert (code, lines) == (
        1,
        [
            f"{FILE}#/inputSchema/{street}: breaking (callers): maxLength 100 → maxLength 50",
            f"{FILE}#/outputSchema/{street}: breaking (result consumers): maxLength 100 → "
            "maxLength 200: a consumer may now get a result the old schema did not allow",
        ],
    )
    (project / "breaking-acknowledged.yaml").write_text(
        f"- pointer: {FILE}#/inputSchema/{street}\n  reason: the carrier's limit\n"
        f"- pointer: {FILE}#/outputSchema/{street}\n  reason: longer streets shown\n",
        encoding="utf-8",
    )
    code, _, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 0, err
    assert "unused acknowledgement" not in err


def test_a_const_replaced_by_a_pattern_it_matches_passes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(tool: dict[str, Any]) -> None:
        period = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"}
        tool["inputSchema"]["properties"]["period"] = period

    _changed(project, edit)
    assert _verdicts(capsys, "--against", "HEAD", str(project)) == (
        0,
        [
            f"{FILE}#/inputSchema/properties/period/const: compatible: const removed: any "
            "value of the type accepted"
        ],
    )


def test_a_branch_removed_from_a_tagged_union_breaks_callers(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _changed(project, lambda tool: tool["inputSchema"]["properties"]["target"]["oneOf"].pop())
    assert _verdicts(capsys, "--against", "HEAD", str(project)) == (
        1,
        [f"{FILE}#/inputSchema/properties/target/oneOf: breaking (callers): oneOf: 2 → 1 branches"],
    )


def test_an_allof_conjunct_added_breaks_callers(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(tool: dict[str, Any]) -> None:
        tool["inputSchema"]["allOf"] = [{"required": ["to"]}]

    _changed(project, edit)
    assert _verdicts(capsys, "--against", "HEAD", str(project)) == (
        1,
        [
            f"{FILE}#/inputSchema/allOf: breaking (callers): allOf: a conjunct added that the "
            "old schema does not imply"
        ],
    )


def _precision(tool: dict[str, Any]) -> None:
    tool["inputSchema"]["properties"]["options"]["properties"]["precision"] = {"type": "integer"}


PRECISION = (
    f"{FILE}#/inputSchema/properties/options/properties/precision: VERDICT: property 'precision' "
    'added where any key was accepted: a call that sent {"precision": "two"} is refused now'
)


def test_a_property_added_to_an_open_object_breaks_callers_unless_told_otherwise(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _changed(project, _precision)
    code, lines = _verdicts(capsys, "--against", "HEAD", str(project))
    assert (code, lines) == (1, [PRECISION.replace("VERDICT", "breaking (callers)")])
    pyproject = project / "pyproject.toml"
    pyproject.write_text(PYPROJECT + "breaking-only-declared-properties = true\n", "utf-8")
    code, lines = _verdicts(capsys, "--against", "HEAD", str(project))
    lenient = "; compatible as breaking-only-declared-properties says callers send no other"
    assert (code, lines) == (0, [PRECISION.replace("VERDICT", "compatible") + lenient])
    pyproject.write_text(PYPROJECT + 'breaking-only-declared-properties = "yes"\n', "utf-8")
    code, _, err = _run(capsys, "--against", "HEAD", str(project))
    assert code == 2
    assert (
        "/tool/mcp-codegen/breaking-only-declared-properties: error: must be true or false" in err
    )


NEWER = "the listing bytes differ for revisions 2025-06-18, 2025-11-25, 2026-07-28"


@pytest.mark.parametrize(
    ("saved", "now", "expected"),
    [
        # Saved by a 2024-11-05 server or one with no title: newer clients see it added.
        ({}, {"title": "Order"}, f"title changed: {NEWER}"),
        # Saved with a title (so by 2025-06-18 or later): only what changed is named, for
        # the revisions that send it.
        ({"title": "Order"}, {"title": "Order"}, None),
        ({"title": "Order"}, {"title": "Place"}, f"title changed: {NEWER}"),
        ({"title": "Order"}, {"title": "Order", "description": "Order."}, f"description changed: {NEWER}"),
    ],
)  # fmt: skip
def test_a_saved_listing_is_compared_in_the_revisions_it_was_saved_in(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    saved: dict[str, Any],
    now: dict[str, Any],
    expected: str | None,
) -> None:
    tool = {k: v for k, v in PLACE_ORDER.items() if k != "outputSchema"}
    listing = tmp_path / "old.json"
    listing.write_text(json.dumps({"result": {"tools": [{**tool, **saved}]}}), encoding="utf-8")
    _write(project, {**tool, **now})
    code, out, err = _run(capsys, "--against", str(listing), str(project))
    cache = [line for line in out.splitlines() if ": cache: " in line]
    assert code == 0, out
    assert cache == ([f"{FILE}: cache: {expected}"] if expected else []), err
