"""Blank and comment lines around libcst statements: reading, moving and tidying them."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from mcp_schemagen.handlers.stubs import ORPHAN_BANNER


def leading(node: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    lines: Sequence[cst.EmptyLine] = getattr(node, "leading_lines", ())
    return lines


def comment_of(line: cst.EmptyLine) -> str | None:
    return line.comment.value.rstrip() if line.comment else None


# -- empty lines and comments


def blank() -> cst.EmptyLine:
    return cst.EmptyLine()


def comment_line(text: str) -> cst.EmptyLine:
    return cst.EmptyLine(comment=cst.Comment(text))


def with_leading(node: cst.BaseStatement, lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    return node.with_changes(leading_lines=list(lines))


def split_attached(
    lines: Sequence[cst.EmptyLine],
) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """(detached, attached): attached are the comment lines right above, no blank between."""
    cut = len(lines)
    while cut and lines[cut - 1].comment is not None:
        cut -= 1
    return list(lines[:cut]), list(lines[cut:])


def split_banner(node: cst.BaseStatement) -> tuple[list[cst.EmptyLine], cst.BaseStatement]:
    """(lines before the banner, the statement without banner and the blanks after it)."""
    lines = list(leading(node))
    at = next(i for i, line in enumerate(lines) if comment_of(line) == ORPHAN_BANNER)
    return meaningful(lines[:at]), with_leading(node, strip_blanks(lines[at + 1 :]))


def strip_blanks(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    start = 0
    while start < len(lines) and lines[start].comment is None:
        start += 1
    return list(lines[start:])


def strip_trailing_blanks(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    end = len(lines)
    while end and lines[end - 1].comment is None:
        end -= 1
    return list(lines[:end])


def meaningful(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Lines worth keeping where they are: only if they hold a comment."""
    return list(lines) if any(line.comment is not None for line in lines) else []


def collapse(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """At most two blank lines in a row, as ruff's formatter (black's layout) keeps them at the top level."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if run <= 2:
            out.append(line)
    return out


class _CommentFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found = True


def has_comment(node: cst.CSTNode) -> bool:
    finder = _CommentFinder()
    node.visit(finder)
    return finder.found
