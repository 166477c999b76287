"""Which names of the generated import the handler module reads at run time (those are
imported for real; the rest under ``if TYPE_CHECKING:``), and the ``TYPE_CHECKING`` import
that block needs."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from mcp_schemagen.handlers.imports import (
    is_managed,
    is_managed_block,
    read_by_annotations,
    read_by_signatures,
)
from mcp_schemagen.handlers.lines import has_comment
from mcp_schemagen.handlers.module import HandlerModule
from mcp_schemagen.handlers.scope import at_run_time, evaluates_annotations, names_read
from mcp_schemagen.handlers.spec import ParsedSpec, is_managed_import


def managed_statements(module: HandlerModule) -> Iterator[ast.stmt]:
    """The generated imports' top-level statements: imports and ``if TYPE_CHECKING:``."""
    return (s for top in module.tops for s in top.stmts if is_managed(s))


def block_test(module: HandlerModule) -> str | None:
    """How the generated block (the first, which the merge keeps) tests, if there is one."""
    for statement in managed_statements(module):
        if isinstance(statement, ast.If):
            return ast.unparse(statement.test)
    return None


def unused_type_checking_import(module: HandlerModule) -> int | None:
    """The line ``from typing import TYPE_CHECKING`` (maybe with other names) the generated
    block needed, once no block is left and nothing else reads the name (a linter would
    flag it)."""
    line: int | None = None
    for top in module.tops:
        statement = top.stmts[0]
        if (
            len(top.stmts) == 1
            and isinstance(statement, ast.ImportFrom)
            and statement.module == "typing"
            and statement.level == 0
            and all(a.asname is None for a in statement.names)
            and any(a.name == "TYPE_CHECKING" for a in statement.names)
            and not has_comment(top.node.with_changes(leading_lines=()))
        ):
            line = top.index if line is None else line
            continue
        for statement in top.stmts:
            if is_managed_block(statement):
                assert isinstance(statement, ast.If)
                if all(is_managed_import(s) for s in statement.body):
                    continue  # leaves with the generated imports
            if any(name == "TYPE_CHECKING" for name, _, _ in names_read(statement)):
                return None
    return line


def read_at_run_time(module: HandlerModule, spec: ParsedSpec, handler_tops: set[int]) -> set[str]:
    """Names the module reads when it runs, as it will be after the merge: as it loads or
    in a function's body (orphans' too: user code may still call them). Any other
    name of the generated import is only needed by type checkers."""
    names: set[str] = set()
    for top in module.tops:
        for statement in top.stmts:
            if is_managed(statement):
                continue
            own = top.index in handler_tops and statement is top.function
            names.update(
                name
                for name, when, _ in names_read(statement, skip_signature=own)
                if at_run_time(when, module)
            )
    signatures = spec.signatures.values()
    names |= read_by_signatures(signatures)
    if not module.future_annotations:
        names |= read_by_annotations(signatures)
    # A handler under a decorator that may evaluate its annotations (a validating one).
    for top in module.tops:
        fn = top.function
        if (
            top.index in handler_tops
            and fn is not None
            and fn.name in spec.signatures
            and evaluates_annotations(fn.decorator_list)
        ):
            names |= read_by_annotations([spec.signatures[fn.name]])
    return names
