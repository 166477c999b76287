"""Where generated imports go in the user's handler module: after its docstring and its
head of imports (the generated ``if TYPE_CHECKING:`` block among them), and names from
``typing`` joined to the module's own plain ``from typing import`` line, as isort orders
them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from mcp_schemagen.handlers.lines import blank, has_comment, leading, with_leading


def insert_imports(
    main: list[cst.BaseStatement], lines: Sequence[cst.BaseStatement], past_blocks: bool = True
) -> None:
    """New generated imports go after the module's docstring and leading imports (and
    the ``if TYPE_CHECKING:`` block among them, unless ``past_blocks`` is false)."""
    lines = list(lines)
    position = 0
    for index, node in enumerate(main):
        if not is_import_header(node, index) or (not past_blocks and isinstance(node, cst.If)):
            break
        position = index + 1
    if lines and position:
        lines[0] = lines[0].with_changes(leading_lines=[blank()])
    main[position:position] = lines


def is_import_header(node: cst.BaseStatement, index: int) -> bool:
    """Part of the module's head: its docstring, imports, and the generated imports'
    ``if TYPE_CHECKING:`` block."""
    if isinstance(node, cst.If):
        test = cst.Module([]).code_for_node(node.test)
        return test in ("TYPE_CHECKING", "typing.TYPE_CHECKING") and node.orelse is None
    return isinstance(node, cst.SimpleStatementLine) and all(
        isinstance(s, cst.Import | cst.ImportFrom) or (index == 0 and is_docstring(s))
        for s in node.body
    )


def insert_typing_import(
    main: list[cst.BaseStatement], name: str, lines_of: Callable[[str], list[cst.BaseStatement]]
) -> None:
    """`from typing import Any` (for the stand-ins) or `TYPE_CHECKING` (for the generated
    imports' block): into the module's plain `from typing import ...` if it has one, else
    with its other absolute imports, before its relative ones, as isort orders them;
    ``lines_of`` makes statements of source as the rest of the generated code is made."""
    for at, node in enumerate(main):
        if not is_import_header(node, at):
            break
        names = plain_typing_names(node)
        if names is not None:
            ordered = sorted({*names, name}, key=member_order)
            (line,) = lines_of(f"from typing import {', '.join(ordered)}\n")
            main[at] = with_leading(line, leading(node))
            return
    position = 0
    for index, node in enumerate(main):
        if not isinstance(node, cst.SimpleStatementLine) or not all(
            isinstance(s, cst.Import | cst.ImportFrom) or (index == 0 and is_docstring(s))
            for s in node.body
        ):
            break
        if any(isinstance(s, cst.ImportFrom) and s.relative for s in node.body):
            break
        position = index + 1
    (line,) = lines_of(f"from typing import {name}\n")
    if position > 0 and starts_a_group_after(main[position - 1]):
        line = line.with_changes(leading_lines=[blank()])
    main.insert(position, line)


def plain_typing_names(node: cst.BaseStatement) -> list[str] | None:
    """The names of a `from typing import a, b` line without aliases or comments."""
    if not isinstance(node, cst.SimpleStatementLine) or len(node.body) != 1:
        return None
    statement = node.body[0]
    if (
        not isinstance(statement, cst.ImportFrom)
        or statement.relative
        or not isinstance(statement.module, cst.Name)
        or statement.module.value != "typing"
        or isinstance(statement.names, cst.ImportStar)
        or has_comment(node.with_changes(leading_lines=()))
    ):
        return None
    names = [alias.name for alias in statement.names if alias.asname is None]
    if len(names) != len(statement.names) or not all(isinstance(n, cst.Name) for n in names):
        return None
    return [n.value for n in names if isinstance(n, cst.Name)]


def member_order(name: str) -> tuple[int, str]:
    """isort's order of imported names: constants, then classes, then the rest."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def starts_a_group_after(node: cst.BaseStatement) -> bool:
    """After the docstring or `from __future__ import ...`, an import starts a new group."""
    if not isinstance(node, cst.SimpleStatementLine):
        return True
    return any(
        is_docstring(s)
        or (
            isinstance(s, cst.ImportFrom)
            and isinstance(s.module, cst.Name)
            and s.module.value == "__future__"
        )
        for s in node.body
    )


def is_docstring(statement: cst.BaseSmallStatement) -> bool:
    return isinstance(statement, cst.Expr) and isinstance(
        statement.value, cst.SimpleString | cst.ConcatenatedString
    )
