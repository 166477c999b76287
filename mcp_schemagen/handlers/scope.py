"""Which names the handler module binds at its top level, and which names its code reads
and when (as the module loads, in an annotation, or only once a function runs)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from mcp_schemagen.handlers.imports import is_type_checking_test
from mcp_schemagen.handlers.module import HandlerModule


@dataclass(frozen=True)
class Binding:
    kind: str  # "function", "class", "an assignment", ...
    line: int
    top: int  # index of the top-level statement it is in
    plain: bool  # a top-level def statement itself


def module_bindings(module: HandlerModule) -> dict[str, list[Binding]]:
    found: dict[str, list[Binding]] = {}
    for top in module.tops:
        collector = _BindingCollector(top.index)
        for statement in top.stmts:
            collector.visit_top(statement)
        for name, binding in collector.found:
            found.setdefault(name, []).append(binding)
    return found


class _BindingCollector(ast.NodeVisitor):
    """Names a top-level statement binds in the module's namespace."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.found: list[tuple[str, Binding]] = []
        self.depth = 0

    def add(self, name: str, kind: str, line: int, plain: bool = False) -> None:
        self.found.append((name, Binding(kind, line, self.top, plain)))

    def visit_top(self, node: ast.stmt) -> None:
        self.visit(node)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        # Only what is evaluated in the module's scope; a body is a scope of its own,
        # except for `global` statements, which reach back here.
        plain = self.depth == 0 and not isinstance(node, ast.ClassDef)
        kind = "a class" if isinstance(node, ast.ClassDef) else "a function nested in a block"
        self.add(node.name, kind, node.lineno, plain)
        for child in ast.walk(node):
            if isinstance(child, ast.Global):
                for name in child.names:
                    self.add(name, "a `global` statement", child.lineno)

    visit_FunctionDef = _definition
    visit_AsyncFunctionDef = _definition
    visit_ClassDef = _definition

    def _own_scope(self, node: ast.AST) -> None:
        return None  # a lambda or comprehension binds its names in a scope of its own

    visit_Lambda = _own_scope
    visit_ListComp = _own_scope
    visit_SetComp = _own_scope
    visit_DictComp = _own_scope
    visit_GeneratorExp = _own_scope

    def generic_visit(self, node: ast.AST) -> None:
        self.depth += 1
        super().generic_visit(node)
        self.depth -= 1

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.add(node.id, "an assignment", node.lineno)

    def _imports(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.add(alias.asname or alias.name.split(".")[0], "an import", node.lineno)

    visit_Import = _imports
    visit_ImportFrom = _imports

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.add(node.name, "an except clause", node.lineno)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.add(node.name, "a match pattern", node.lineno)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.add(node.name, "a match pattern", node.lineno)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.add(node.rest, "a match pattern", node.lineno)
        self.generic_visit(node)


def live_reads(module: HandlerModule, orphans: set[int], handlers: set[int]) -> set[str]:
    """Names read by user code that stays live: not orphans, not generated signatures."""
    names: set[str] = set()
    for top in module.tops:
        if top.index in orphans:
            continue
        for statement in top.stmts:
            own = top.index in handlers and statement is top.function
            names.update(name for name, _, _ in names_read(statement, skip_signature=own))
    return names


def at_import(when: str, module: HandlerModule) -> bool:
    return when == "import" or (when in _ANNOTATION and not module.future_annotations)


def at_run_time(when: str, module: HandlerModule) -> bool:
    """Read by running code: as the module loads, once a function runs, or by a decorator
    or base class that may evaluate annotations (pydantic, typeguard)."""
    return when in ("call", "evaluated") or at_import(when, module)


_ANNOTATION = ("annotation", "evaluated")
# Decorators and base classes known never to evaluate the annotations they see; any
# other (a validating decorator, a pydantic model) may, as the module loads or later.
_INERT = frozenset(
    {
        "blocking",
        "nonblocking",
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "cache",
        "lru_cache",
        "wraps",
        "overload",
        "override",
        "final",
        "abstractmethod",
        "contextmanager",
        "asynccontextmanager",
        "dataclass",
        "object",
        "TypedDict",
        "NamedTuple",
        "Protocol",
        "Generic",
        "Enum",
        "IntEnum",
        "StrEnum",
        "Exception",
        "ToolError",
    }
)


def evaluates_annotations(expressions: Iterable[ast.expr]) -> bool:
    """Whether any of these decorators (or base classes) may evaluate annotations."""
    for expression in expressions:
        node = expression
        while isinstance(node, ast.Call | ast.Subscript):
            node = node.func if isinstance(node, ast.Call) else node.value
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if name not in _INERT:
            return True
    return False


def names_read(statement: ast.stmt, skip_signature: bool = False) -> Iterator[tuple[str, str, int]]:
    """(name, when, line) for each name the statement reads; when is "import" (evaluated
    as the module loads), "annotation", "evaluated" (an annotation a decorator or base
    class may evaluate), "call" (only once a function runs) or "typing" (under
    ``if TYPE_CHECKING:`` or a variable's annotation in a function: never evaluated)."""
    reader = _Reader()
    if skip_signature and isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        for decorator in statement.decorator_list:
            reader.visit(decorator)
        reader.within("call", statement.body)
    else:
        reader.visit(statement)
    return iter(reader.found)


class _Reader(ast.NodeVisitor):
    def __init__(self) -> None:
        self.found: list[tuple[str, str, int]] = []
        self.when = "import"
        self.annotation = "annotation"  # "evaluated" in a class body whose bases may

    def within(self, when: str, nodes: Iterable[ast.AST | None]) -> None:
        outer, self.when = self.when, when
        for node in nodes:
            if node is not None:
                self.visit(node)
        self.when = outer

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.found.append((node.id, self.when, node.lineno))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        self.within(self.when, [*node.decorator_list, *args.defaults, *args.kw_defaults])
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        annotations = [a.annotation for a in every if a is not None]
        evaluated = evaluates_annotations(node.decorator_list)
        later = ("evaluated" if evaluated else "annotation") if self.when == "import" else self.when
        self.within(later, [*annotations, node.returns])
        outer, self.annotation = self.annotation, "annotation"
        self.within("call", node.body)
        self.annotation = outer

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        parts = [*node.decorator_list, *node.bases]
        self.within(self.when, [*parts, *(k.value for k in node.keywords)])
        outer = self.annotation
        self.annotation = "evaluated" if evaluates_annotations(parts) else "annotation"
        self.within(self.when, node.body)
        self.annotation = outer

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        # A variable's annotation in a function is never evaluated; elsewhere it is
        # evaluated as the module (or class) loads, unless annotations are postponed.
        self.within(self.annotation if self.when == "import" else "typing", [node.annotation])
        self.within(self.when, [node.target, node.value])

    def visit_If(self, node: ast.If) -> None:
        if not is_type_checking_test(node.test):
            self.generic_visit(node)
            return
        self.visit(node.test)
        self.within("typing", node.body)
        self.within(self.when, node.orelse)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.within(self.when, [*node.args.defaults, *node.args.kw_defaults])
        self.within("call", [node.body])
