"""The handlers users copy from (the scaffold's and the example's) raise ``ToolError`` for a
failure they expect: any other exception is taken for a bug, and the server logs its
traceback on every such call."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_schemagen.scaffold import project_files
from tests.support.projects import EXAMPLE_HANDLERS

# An unwritten stub raises this on purpose (the server says "not implemented yet").
ALLOWED = {"ToolError", "NotImplementedError"}


def _scaffold_handlers(tmp_path: Path) -> str:
    files = project_files(tmp_path, "demo", None)
    return next(f.text for f in files if f.path.name == "handlers.py")


def _raised(source: str) -> list[tuple[int, str]]:
    """(line, exception name) of every `raise Name(...)` / `raise Name` in the module."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = target.id if isinstance(target, ast.Name) else ast.unparse(target)
            found.append((node.lineno, name))
    return found


@pytest.mark.parametrize("which", ["scaffold", "example"])
def test_expected_failures_raise_tool_error(which: str, tmp_path: Path) -> None:
    if which == "scaffold":
        source = _scaffold_handlers(tmp_path)
    else:
        source = EXAMPLE_HANDLERS.read_text(encoding="utf-8")
    raised = _raised(source)
    assert raised, "the example has no failure to show"
    assert [(line, name) for line, name in raised if name not in ALLOWED] == []
    assert any(name == "ToolError" for _, name in raised)
