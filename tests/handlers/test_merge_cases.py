"""Golden cases for the handler-module merge, found by glob under tests/handlers/merge_cases/NAME/.

Each case holds ``before_spec.json`` (what ``user.py`` was generated from), ``user.py`` (the
user's module), ``after_spec.json`` (the schemas now), and either ``expected.py`` (plus
``expected_warnings.json`` when the merge warns) or ``expected_conflict.json``
(``{"function": ..., "reason_contains": ...}``). A spec json holds the fields of
HandlerModuleSpec.

To (re)write the expected files after a deliberate change, run
``MCP_CODEGEN_REGEN_MERGE_CASES=1 pytest tests/handlers/test_merge_cases.py`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from mcp_schemagen.handlers import HandlerModuleSpec, HandlerSpec, MergeConflict, merge
from mcp_schemagen.render.formatting import format_python
from tests.support.golden import rewriting

CASES = Path(__file__).parent / "merge_cases"
REGEN = "MCP_CODEGEN_REGEN_MERGE_CASES"  # rewrites the expected files; never under CI


def load_spec(path: Path) -> HandlerModuleSpec:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    handlers = [HandlerSpec(**h) for h in data["handlers"]]
    names = data.get("type_names")
    return HandlerModuleSpec(
        data["docstring"],
        data["managed_imports"],
        handlers,
        None if names is None else frozenset(names),
    )


def read(path: Path) -> str:
    # newline="" keeps \r\n, should a case use it: the merge must keep line endings.
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def user_fragments(text: str) -> list[str]:
    """Source the merge must keep byte for byte: each top-level function's body and
    decorators, and every other top-level statement but the generated imports (with
    their ``if TYPE_CHECKING:`` block and the ``TYPE_CHECKING`` import it needs)."""
    module = cst.parse_module(text)
    found: list[str] = []
    for node in module.body:
        if isinstance(node, cst.FunctionDef):
            found.append(module.code_for_node(node.body))
            found.extend(module.code_for_node(d) for d in node.decorators)
        elif isinstance(node, cst.If) and isinstance(node.body, cst.IndentedBlock):
            found.extend(
                module.code_for_node(inner)
                for inner in node.body.body
                if not _relative_import(inner)
            )
        elif not _relative_import(node) and module.code_for_node(
            node.with_changes(leading_lines=())
        ) != ("from typing import TYPE_CHECKING\n"):
            found.append(module.code_for_node(node.with_changes(leading_lines=())))
    return found


def _relative_import(node: cst.BaseStatement) -> bool:
    return isinstance(node, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and s.relative for s in node.body
    )


CASE_DIRS = sorted(p for p in CASES.iterdir() if p.is_dir())


def test_cases_exist() -> None:
    assert len(CASE_DIRS) >= 14


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_merge_case(case: Path) -> None:
    user = read(case / "user.py")
    after = load_spec(case / "after_spec.json")
    conflict_file = case / "expected_conflict.json"
    if conflict_file.exists():
        expected_conflict = json.loads(conflict_file.read_text(encoding="utf-8"))
        with pytest.raises(MergeConflict) as raised:
            merge(user, after)
        assert raised.value.function == expected_conflict["function"]
        assert expected_conflict["reason_contains"] in raised.value.reason
        return

    result = merge(user, after)
    expected_file, warnings_file = case / "expected.py", case / "expected_warnings.json"
    if rewriting(REGEN):
        write(expected_file, result.text)
        if result.warnings:
            warnings_file.write_text(json.dumps(result.warnings, indent=2) + "\n")
        else:
            warnings_file.unlink(missing_ok=True)
    expected = read(expected_file)
    assert result.text == expected
    expected_warnings = (
        json.loads(warnings_file.read_text(encoding="utf-8")) if warnings_file.exists() else []
    )
    assert result.warnings == expected_warnings

    # A second build with the same schemas changes nothing.
    assert merge(expected, after).text == expected
    # Every body (and all other user code) survives, byte for byte.
    for fragment in user_fragments(user):
        assert fragment in expected
    # A black-clean user file stays black-clean: the generated parts are formatted alike.
    if format_python(user) == user:
        assert format_python(expected) == expected


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_user_file_matches_before_spec(case: Path) -> None:
    """The case is coherent: merging user.py with the spec it came from changes nothing,
    or, for a user file broken on purpose (the conflict is the file's, not the schema
    change's), stops with the very conflict the case expects."""
    user = read(case / "user.py")
    before = load_spec(case / "before_spec.json")
    if case.name in BROKEN_ON_PURPOSE:
        expected = json.loads((case / "expected_conflict.json").read_text(encoding="utf-8"))
        with pytest.raises(MergeConflict) as raised:
            merge(user, before)
        assert raised.value.function == expected["function"]
        assert expected["reason_contains"] in raised.value.reason
        return
    assert merge(user, before).text == user


# Conflict cases whose user file conflicts whatever the schemas say; every other case,
# conflict or not, must merge with its own spec unchanged.
BROKEN_ON_PURPOSE = frozenset({"renamed_handler_marker_kept", "unparsable_module"})


def test_broken_on_purpose_names_conflict_cases() -> None:
    names = {case.name for case in CASE_DIRS if (case / "expected_conflict.json").exists()}
    assert names >= BROKEN_ON_PURPOSE
