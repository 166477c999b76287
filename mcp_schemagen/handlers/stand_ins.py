"""Stand-ins for generated types that orphaned handlers still name.

When a tool is removed, its handler moves to the orphan section byte for byte, and its
types leave ``.types`` with the tool. An orphan naming them (``-> ConvertTimeOutput``, a
parameter typed ``SearchPapersSortBy``, ``ConvertTimeOutput(...)`` in its body) would
leave a module mypy rejects. So the merge defines each such name as ``Any``, one marked
line per name after the imports::

    ConvertTimeOutput = Any  # mcp-codegen: stands in for a type of a removed tool

The generator owns these lines: a stand-in goes when nothing reads its name any more (the
orphan was deleted) or when the generated import binds the name again (the tool is back).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

import libcst as cst

from mcp_schemagen.handlers.module import HandlerModule, Top
from mcp_schemagen.handlers.spec import MergeConflict

STAND_IN_COMMENT = "# mcp-codegen: stands in for a type of a removed tool"
_TYPING = ("typing", "typing_extensions")


def is_stand_in(top: Top) -> bool:
    node = top.node
    if not isinstance(node, cst.SimpleStatementLine) or len(top.stmts) != 1:
        return False
    statement = top.stmts[0]
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.Name)
        and statement.value.id == "Any"
    ):
        return False
    comment = node.trailing_whitespace.comment
    return comment is not None and comment.value == STAND_IN_COMMENT


def stand_ins(module: HandlerModule) -> dict[str, int]:
    """Name -> index of the top-level statement defining its stand-in."""
    found: dict[str, int] = {}
    for top in module.tops:
        if is_stand_in(top):
            target = top.stmts[0]
            assert isinstance(target, ast.Assign) and isinstance(target.targets[0], ast.Name)
            found[target.targets[0].id] = top.index
    return found


def stand_in_source(names: Iterable[str]) -> str:
    return "".join(f"{name} = Any  {STAND_IN_COMMENT}\n" for name in names)


def needs_any_import(module: HandlerModule) -> bool:
    """Whether ``Any`` must be imported for the stand-ins: False when the module imports
    it from typing already; a conflict when the module uses the name for something else."""
    for statement in module.ast.body:
        if (
            isinstance(statement, ast.ImportFrom)
            and statement.module in _TYPING
            and any(a.name == "Any" and a.asname in (None, "Any") for a in statement.names)
        ):
            return False
    if any(_binds_any(s) for s in ast.walk(module.ast)):
        raise MergeConflict(
            None,
            "orphaned handlers name types that left with their tools, which the merge defines "
            "as typing.Any, but this module binds the name `Any` to something else; import "
            "it as `from typing import Any`, or delete the orphaned handlers",
        )
    return True


def _binds_any(node: ast.AST) -> bool:
    if isinstance(node, ast.Name) and node.id == "Any" and not isinstance(node.ctx, ast.Load):
        return True
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((a.asname or a.name.split(".")[0]) == "Any" for a in node.names)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == "Any"
    return False
