"""The user's handler module read twice, by ast (for analysis) and by libcst (for edits),
the two trees paired statement by statement at the top level."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from mcp_schemagen.handlers.lines import comment_of, leading, split_attached
from mcp_schemagen.handlers.spec import MergeConflict
from mcp_schemagen.handlers.stubs import KEYED_PREFIXES, ORPHAN_BANNER, marker_prefix


@dataclass
class Top:
    """One top-level statement, in both trees."""

    index: int
    node: cst.BaseStatement
    stmts: list[ast.stmt]
    orphan: bool = False  # after the orphan banner
    marker: str | None = None  # tool named by the marker comment (functions only)

    @property
    def function(self) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        first = self.stmts[0]
        return first if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef) else None

    @property
    def line(self) -> int:
        first = self.stmts[0]
        decorators = getattr(first, "decorator_list", None)
        return decorators[0].lineno if decorators else first.lineno


@dataclass
class HandlerModule:
    cst: cst.Module
    ast: ast.Module
    tops: list[Top]
    orphan_start: int  # index of the first orphan-section statement (len(tops) if none)
    banner_in_footer: bool

    @property
    def future_annotations(self) -> bool:
        return any(
            isinstance(s, ast.ImportFrom)
            and s.module == "__future__"
            and any(a.name == "annotations" for a in s.names)
            for s in self.ast.body
        )


def parse_module(text: str) -> HandlerModule:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f"line {error.lineno}, column {error.offset}"
        raise MergeConflict(None, _unparsable(where, error.msg), unreadable=True) from None
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        where = f"line {error.raw_line}, column {error.raw_column}"
        raise MergeConflict(None, _unparsable(where, error.message), unreadable=True) from None
    module = _attach_header_comments(module)
    tops = [Top(i, node, stmts) for i, (node, stmts) in enumerate(_pair(module, tree))]
    if sum(len(t.stmts) for t in tops) != len(tree.body) or not all(t.stmts for t in tops):
        # The two parsers disagree (a Python newer than libcst's grammar?): editing
        # would be guesswork, so refuse rather than risk user code.
        raise MergeConflict(None, "the handler module uses syntax the merge cannot edit safely")
    start = next((t.index for t in tops if has_banner(leading(t.node))), len(tops))
    for top in tops:
        top.orphan = top.index >= start
        top.marker = _marker_of(top)
    in_footer = start == len(tops) and has_banner(module.footer)
    return HandlerModule(module, tree, tops, start, in_footer)


def _unparsable(where: str, problem: str) -> str:
    return (
        f"it does not parse: {where}: {problem}; fix the syntax error, then run the command again"
    )


def _attach_header_comments(module: cst.Module) -> cst.Module:
    """libcst files comments at the very top under the module's header, even a marker
    right above a first-line handler; give those to the function (same text either way)."""
    if not module.body or not isinstance(module.body[0], cst.FunctionDef):
        return module
    rest, attached = split_attached(module.header)
    if not attached:
        return module
    first = module.body[0].with_changes(leading_lines=[*attached, *module.body[0].leading_lines])
    return module.with_changes(header=rest, body=[first, *module.body[1:]])


def _pair(
    module: cst.Module, tree: ast.Module
) -> Iterator[tuple[cst.BaseStatement, list[ast.stmt]]]:
    """Each libcst top-level statement with its ast statement(s) (`a = 1; b = 2` is two)."""
    return pair(module.body, tree.body)


def pair(
    nodes: Sequence[cst.BaseStatement], statements: Sequence[ast.stmt]
) -> Iterator[tuple[cst.BaseStatement, list[ast.stmt]]]:
    """The statements of one block in both trees, libcst's with ast's."""
    remaining = iter(statements)
    for node in nodes:
        count = len(node.body) if isinstance(node, cst.SimpleStatementLine) else 1
        yield node, [s for _, s in zip(range(count), remaining, strict=False)]


def has_banner(lines: Iterable[cst.EmptyLine]) -> bool:
    return any(comment_of(line) == ORPHAN_BANNER for line in lines)


def _marker_lines(fn: cst.FunctionDef) -> Iterator[cst.EmptyLine]:
    yield from fn.leading_lines
    for decorator in fn.decorators:
        yield from decorator.leading_lines
    yield from fn.lines_after_decorators


def _marker_of(top: Top) -> str | None:
    if not isinstance(top.node, cst.FunctionDef):
        return None
    tool: str | None = None
    for line in _marker_lines(top.node):
        comment = comment_of(line)
        prefix = None if comment is None else marker_prefix(comment)
        if comment is None or prefix is None:
            continue
        try:
            tool = json.loads(comment[len(prefix) :])
        except json.JSONDecodeError:
            tool = None
        if not isinstance(tool, str):
            where = f"line {top.line}"
            raise MergeConflict(top.node.name.value, f"malformed marker comment above {where}")
        for key_prefix, marker in KEYED_PREFIXES:
            if prefix == marker:
                tool = key_prefix + tool
    return tool
