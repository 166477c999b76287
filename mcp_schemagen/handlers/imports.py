"""The generated imports of the handler module, in two parts: names its code reads at run
time (as the module loads, or once a function runs) are imported for real; names it only
uses in annotations are imported under ``if TYPE_CHECKING:``, so that serving never loads
``.types`` (one private module per tool: most of a large server's start-up) and mypy
still sees every name.

The generator owns the top-level ``from .types import ...`` statements and the top-level
``if TYPE_CHECKING:`` block (no ``else``) holding one; any other statement a user put in
that block is theirs and stays in it."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from mcp_schemagen.handlers.spec import Triple, bound_name, import_triples, is_managed_import

TYPE_CHECKING_IMPORT = "from typing import TYPE_CHECKING\n"
_TYPING = ("typing", "typing_extensions")


@dataclass(frozen=True)
class ManagedImports:
    """The generated imports: ``real`` at the top level, ``lazy`` under TYPE_CHECKING."""

    real: tuple[Triple, ...]
    lazy: tuple[Triple, ...]

    def same_as(self, other: ManagedImports) -> bool:
        return set(self.real) == set(other.real) and set(self.lazy) == set(other.lazy)

    def real_source(self) -> str:
        return render_imports(self.real)

    def lazy_source(self) -> str:
        """The ``if TYPE_CHECKING:`` block, or "" when no name is lazy."""
        if not self.lazy:
            return ""
        body = render_imports(self.lazy)
        return "if TYPE_CHECKING:\n" + "".join(f"    {line}\n" for line in body.splitlines())


def split(triples: Iterable[Triple], read_at_run_time: set[str]) -> ManagedImports:
    """Each name to the part its use asks for; star imports bind unknown names: real."""
    real: list[Triple] = []
    lazy: list[Triple] = []
    for triple in triples:
        eager = triple[1] == "*" or bound_name(triple) in read_at_run_time
        (real if eager else lazy).append(triple)
    return ManagedImports(tuple(real), tuple(lazy))


def render_imports(triples: Sequence[Triple]) -> str:
    """`from .M import a, b as c` per module, in first-seen order; star imports apart."""
    modules: dict[str, list[str]] = {}
    stars: list[str] = []
    for module, name, asname in triples:
        if name == "*":
            stars.append(f"from .{module} import *\n")
        else:
            modules.setdefault(module, []).append(f"{name} as {asname}" if asname else name)
    lines = [f"from .{m} import {', '.join(names)}\n" for m, names in modules.items()]
    return "".join([*lines, *stars])


def is_type_checking_test(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING`` (mypy takes either as true)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Attribute)
        and test.attr == "TYPE_CHECKING"
        and isinstance(test.value, ast.Name)
        and test.value.id in _TYPING
    )


def is_managed_block(statement: ast.stmt) -> bool:
    """A top-level ``if TYPE_CHECKING:`` (no ``else``) holding a generated import."""
    return (
        isinstance(statement, ast.If)
        and not statement.orelse
        and is_type_checking_test(statement.test)
        and any(is_managed_import(s) for s in statement.body)
    )


def is_managed(statement: ast.stmt) -> bool:
    return is_managed_import(statement) or is_managed_block(statement)


def found_imports(statements: Iterable[ast.stmt]) -> ManagedImports:
    """The generated imports as the module holds them (top-level statements)."""
    real: list[Triple] = []
    lazy: list[Triple] = []
    for statement in statements:
        if is_managed_import(statement):
            real.extend(import_triples(statement))
        elif is_managed_block(statement):
            assert isinstance(statement, ast.If)
            for inner in statement.body:
                if is_managed_import(inner):
                    lazy.extend(import_triples(inner))
    return ManagedImports(tuple(real), tuple(lazy))


def read_by_signatures(signatures: Iterable[ast.FunctionDef]) -> set[str]:
    """Names the generated signatures read as the module loads: their default values (the
    annotations are never evaluated, under ``from __future__ import annotations``)."""
    names: set[str] = set()
    for signature in signatures:
        args = signature.args
        for default in [*args.defaults, *args.kw_defaults]:
            names.update(_loads(default))
    return names


def read_by_annotations(signatures: Iterable[ast.FunctionDef]) -> set[str]:
    """Names the generated signatures' annotations read: evaluated as the module loads in
    a module without ``from __future__ import annotations``."""
    names: set[str] = set()
    for signature in signatures:
        args = signature.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for annotation in [*(a.annotation for a in every if a is not None), signature.returns]:
            names.update(_loads(annotation))
    return names


def _loads(node: ast.AST | None) -> Iterator[str]:
    if node is None:
        return
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            yield child.id
