"""The user-owned handler module: written once, then kept current with libcst.

What the generator owns in ``handlers.py``, and nothing else:

* each handler's name, parameter list and return annotation;
* one marker comment directly above each handler, ``# mcp-codegen tool: "<tool>"``. It is
  how a later build tells a handler (whose tool may disappear) from a helper function of the
  same shape, and which tool it served;
* the top-level import statements from ``.types`` and ``._runtime.content``;
* the orphan banner (:data:`ORPHAN_BANNER`) that starts the orphan section at the end.

Everything else is the user's and is kept byte for byte: bodies, docstrings, comments,
decorators, ``async``, helpers, other imports and module-level code.

Policies (see also :func:`merge`):

* **async** -- a user may turn a handler into ``async def``; the keyword is kept.
* **Removed tools** -- the handler moves, byte for byte with the comments directly above
  it, to the orphan section; a warning names function and tool. Nothing there is rewritten
  later. A tool that comes back takes its handler back out (body kept, signature updated).
* **Generated imports** -- after a merge they import what the schemas need, plus any name
  they imported before that live user code (anything but orphans and generated
  signatures) still reads: a user may add generated types to that import for their bodies.
  Names only orphans still read are dropped: their tool is gone, so their types most
  likely are too, and importing a vanished name would break the whole module at import.
  Such an orphan is reported in a warning (mypy will flag the names until the orphan is
  deleted or edited); it stays importable because annotations are not evaluated under
  ``from __future__ import annotations``. Where a dropped name *would* be evaluated at
  import (a decorator, a default value, an annotation without that future import) the
  merge stops with a :class:`MergeConflict` instead of writing a module that cannot load.
* **Conflicts** -- the merge either returns the whole new text or raises
  :class:`MergeConflict` (exit 3): the module does not parse; a handler's name is taken by
  something that is not a single marked top-level function; a signature or generated
  import that must change carries a comment that rewriting would lose; a dropped name is
  evaluated at import time. Nothing is ever partially applied.

Analysis uses :mod:`ast` (scopes and reads are simple there, and it is fast); edits use
libcst, which reproduces every untouched byte. The two trees are paired statement by
statement at the top level, so both views always agree on what is where.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst

from codegen.formatting import format_python

# One line of at most 88 characters, so that no line-length linter objects to it.
ORPHAN_BANNER = (
    "# --- mcp-codegen: orphaned handlers (tools removed from schemas); delete when done ---"
)
MARKER_PREFIX = "# mcp-codegen tool: "
MANAGED_MODULES = ("types", "_runtime.content")  # as in `from .<module> import ...`


@dataclass(frozen=True)
class HandlerSpec:
    """What the generator owns of one handler: its name, parameters and return type."""

    function: str  # Python function name
    tool: str  # the tool's name as published
    parameters: str  # source of the parameter list, e.g. "*, city: str, units: Units = 'c'"
    returns: str  # source of the return annotation
    docstring: str | None  # source of a string literal, used for new stubs only


@dataclass(frozen=True)
class HandlerModuleSpec:
    docstring: str  # source of the module docstring literal, for new modules
    # the import statement(s) the generator owns, e.g. "from .types import A, B"
    managed_imports: str
    handlers: Sequence[HandlerSpec]


@dataclass(frozen=True)
class MergeResult:
    text: str
    warnings: list[str] = field(default_factory=list)


class MergeConflict(Exception):
    """A change that cannot be applied without touching user code (exit 3)."""

    def __init__(self, function: str | None, reason: str) -> None:
        self.function = function
        self.reason = reason
        where = f"handler {function!r}: " if function else ""
        super().__init__(f"{where}{reason}")


# --------------------------------------------------------------------------- rendering


def marker_comment(tool: str) -> str:
    # json quoting keeps any tool name on one line and readable back exactly.
    return MARKER_PREFIX + json.dumps(tool)


def render_stub(handler: HandlerSpec) -> str:
    doc = f"    {handler.docstring}\n" if handler.docstring else ""
    return (
        f"{marker_comment(handler.tool)}\n"
        f"def {handler.function}({handler.parameters}) -> {handler.returns}:\n"
        f"{doc}"
        f"    raise NotImplementedError({handler.tool!r})\n"
    )


def render_new(spec: HandlerModuleSpec) -> str:
    """A fresh handler module, already in black's style (so merges add stubs alike)."""
    _Spec.of(spec)  # reject a malformed spec here too
    head = f"{spec.docstring}\n\nfrom __future__ import annotations\n"
    if spec.managed_imports.strip():
        head += f"\n{spec.managed_imports.strip()}\n"
    return format_python("\n\n".join([head, *(render_stub(h) for h in spec.handlers)]))


# --------------------------------------------------------------------------- the spec


Triple = tuple[str, str, str | None]  # (module, name, asname) of one imported name


@dataclass(frozen=True)
class _Spec:
    """The spec, parsed once: signatures as ast, imports as (module, name, asname)."""

    source: HandlerModuleSpec
    handlers: dict[str, HandlerSpec]
    signatures: dict[str, ast.FunctionDef]
    imports: tuple[Triple, ...]

    @staticmethod
    def of(spec: HandlerModuleSpec) -> _Spec:
        handlers: dict[str, HandlerSpec] = {}
        for h in spec.handlers:
            if h.function in handlers:
                raise ValueError(f"handler spec: function {h.function!r} appears twice")
            handlers[h.function] = h
        signatures = {name: _spec_signature(h) for name, h in handlers.items()}
        return _Spec(spec, handlers, signatures, _spec_imports(spec.managed_imports))


def _spec_signature(h: HandlerSpec) -> ast.FunctionDef:
    source = f"def {h.function}({h.parameters}) -> {h.returns}:\n    pass\n"
    try:
        node = ast.parse(source).body[0]
    except SyntaxError as error:
        raise ValueError(f"handler spec {h.function!r}: bad signature: {error}") from error
    assert isinstance(node, ast.FunctionDef)
    return node


def _spec_imports(source: str) -> tuple[Triple, ...]:
    try:
        statements = ast.parse(source).body
    except SyntaxError as error:
        raise ValueError(f"handler spec: bad managed_imports: {error}") from error
    triples: list[Triple] = []
    for statement in statements:
        if not _is_managed_import(statement):
            raise ValueError(f"handler spec: not a managed import: {ast.unparse(statement)}")
        triples.extend(_import_triples(statement))
    return tuple(triples)


def _is_managed_import(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.ImportFrom)
        and statement.level == 1
        and statement.module in MANAGED_MODULES
    )


def _import_triples(statement: ast.stmt) -> Iterator[Triple]:
    assert isinstance(statement, ast.ImportFrom) and statement.module is not None
    for alias in statement.names:
        yield (statement.module, alias.name, alias.asname)


def _bound_name(triple: Triple) -> str:
    return triple[2] or triple[1]


# --------------------------------------------------------------------------- the module


@dataclass
class _Top:
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
class _Module:
    cst: cst.Module
    ast: ast.Module
    tops: list[_Top]
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


def _parse(text: str) -> _Module:
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        where = f"line {error.lineno}, column {error.offset}"
        raise MergeConflict(
            None, f"the handler module does not parse: {where}: {error.msg}"
        ) from None
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        where = f"line {error.raw_line}, column {error.raw_column}"
        raise MergeConflict(
            None, f"the handler module does not parse: {where}: {error.message}"
        ) from None
    module = _attach_header_comments(module)
    tops = [_Top(i, node, stmts) for i, (node, stmts) in enumerate(_pair(module, tree))]
    if sum(len(t.stmts) for t in tops) != len(tree.body) or not all(t.stmts for t in tops):
        # The two parsers disagree (a Python newer than libcst's grammar?): editing
        # would be guesswork, so refuse rather than risk user code.
        raise MergeConflict(None, "the handler module uses syntax the merge cannot edit safely")
    start = next((t.index for t in tops if _has_banner(_leading(t.node))), len(tops))
    for top in tops:
        top.orphan = top.index >= start
        top.marker = _marker_of(top)
    in_footer = start == len(tops) and _has_banner(module.footer)
    return _Module(module, tree, tops, start, in_footer)


def _attach_header_comments(module: cst.Module) -> cst.Module:
    """libcst files comments at the very top under the module's header, even a marker
    right above a first-line handler; give those to the function (same text either way)."""
    if not module.body or not isinstance(module.body[0], cst.FunctionDef):
        return module
    rest, attached = _split_attached(module.header)
    if not attached:
        return module
    first = module.body[0].with_changes(leading_lines=[*attached, *module.body[0].leading_lines])
    return module.with_changes(header=rest, body=[first, *module.body[1:]])


def _pair(
    module: cst.Module, tree: ast.Module
) -> Iterator[tuple[cst.BaseStatement, list[ast.stmt]]]:
    """Each libcst top-level statement with its ast statement(s) (`a = 1; b = 2` is two)."""
    statements = iter(tree.body)
    for node in module.body:
        count = len(node.body) if isinstance(node, cst.SimpleStatementLine) else 1
        yield node, [s for _, s in zip(range(count), statements, strict=False)]


def _leading(node: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    lines: Sequence[cst.EmptyLine] = getattr(node, "leading_lines", ())
    return lines


def _comment(line: cst.EmptyLine) -> str | None:
    return line.comment.value.rstrip() if line.comment else None


def _has_banner(lines: Iterable[cst.EmptyLine]) -> bool:
    return any(_comment(line) == ORPHAN_BANNER for line in lines)


def _marker_lines(fn: cst.FunctionDef) -> Iterator[cst.EmptyLine]:
    yield from fn.leading_lines
    for decorator in fn.decorators:
        yield from decorator.leading_lines
    yield from fn.lines_after_decorators


def _marker_of(top: _Top) -> str | None:
    if not isinstance(top.node, cst.FunctionDef):
        return None
    tool: str | None = None
    for line in _marker_lines(top.node):
        comment = _comment(line)
        if comment is None or not comment.startswith(MARKER_PREFIX):
            continue
        try:
            tool = json.loads(comment[len(MARKER_PREFIX) :])
        except json.JSONDecodeError:
            tool = None
        if not isinstance(tool, str):
            where = f"line {top.line}"
            raise MergeConflict(top.node.name.value, f"malformed marker comment above {where}")
    return tool


# --------------------------------------------------------------------------- the plan


@dataclass
class _Plan:
    """Every change a merge makes, decided before anything is edited."""

    update: dict[int, HandlerSpec] = field(default_factory=dict)  # signature and/or marker
    append: list[HandlerSpec] = field(default_factory=list)  # restored or new, spec order
    restore: dict[str, int] = field(default_factory=dict)  # function -> orphan index
    orphan: list[int] = field(default_factory=list)  # main-section handlers to move
    imports: str | None = None  # source of the new generated imports, if they change
    drop_banner: bool = False
    warnings: list[str] = field(default_factory=list)

    def empty(self) -> bool:
        return not (
            self.update
            or self.append
            or self.orphan
            or self.imports is not None
            or self.drop_banner
        )


def _plan(module: _Module, spec: _Spec) -> _Plan:
    plan = _Plan(drop_banner=module.banner_in_footer)
    bindings = _module_bindings(module)
    for name, handler in spec.handlers.items():
        top = _handler_top(module, name, handler, bindings.get(name, []))
        if top is None:
            plan.append.append(handler)
        elif top.orphan:
            plan.restore[name] = top.index
            plan.update[top.index] = handler
            plan.append.append(handler)
            plan.warnings.append(
                f"handler {name!r}: tool {handler.tool!r} is back in the schemas; its handler "
                "was moved out of the orphaned section"
            )
        elif _needs_update(top, handler, spec.signatures[name]):
            plan.update[top.index] = handler
    for top in module.tops:
        fn = top.function
        if top.orphan or top.marker is None or fn is None or fn.name in spec.handlers:
            continue
        plan.orphan.append(top.index)
        plan.warnings.append(
            f"handler {fn.name!r}: tool {top.marker!r} is no longer in the schemas; its handler "
            "was moved to the orphaned section at the end of the module (delete it when no "
            "longer needed)"
        )
    for index, handler in plan.update.items():
        _check_signature_edit(module.tops[index], handler, spec.signatures[handler.function])
        plan.warnings.extend(
            _parameter_warnings(module.tops[index], spec.signatures[handler.function])
        )
    _plan_imports(module, spec, plan)
    return plan


# -- matching a handler by name


@dataclass(frozen=True)
class _Binding:
    kind: str  # "function", "class", "an assignment", ...
    line: int
    top: int  # index of the top-level statement it is in
    plain: bool  # a top-level def statement itself


def _handler_top(
    module: _Module, name: str, handler: HandlerSpec, bindings: list[_Binding]
) -> _Top | None:
    """The marked top-level function `name`, None when the name is free, else conflict."""
    if not bindings:
        return None
    if len(bindings) > 1:
        lines = ", ".join(str(b.line) for b in bindings)
        raise MergeConflict(
            name,
            f"the name is bound {len(bindings)} times at module level (lines {lines}); the "
            "generator needs it to be exactly one top-level function",
        )
    binding = bindings[0]
    if not binding.plain:
        raise MergeConflict(
            name,
            f"the name is taken by {binding.kind} at line {binding.line}, not a plain top-level "
            "function; rename it so the generator can use the name for this tool's handler",
        )
    top = module.tops[binding.top]
    if top.marker is None:
        raise MergeConflict(
            name,
            f"a function of this name at line {binding.line} is not marked as a generated "
            f"handler; rename it, or put the line `{marker_comment(handler.tool)}` directly "
            "above it to let the generator manage its signature",
        )
    return top


def _module_bindings(module: _Module) -> dict[str, list[_Binding]]:
    found: dict[str, list[_Binding]] = {}
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
        self.found: list[tuple[str, _Binding]] = []
        self.depth = 0

    def add(self, name: str, kind: str, line: int, plain: bool = False) -> None:
        self.found.append((name, _Binding(kind, line, self.top, plain)))

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


# -- signatures


def _needs_update(top: _Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> bool:
    return top.marker != handler.tool or not _same_signature(top, wanted)


def _same_signature(top: _Top, wanted: ast.FunctionDef) -> bool:
    fn = top.function
    assert fn is not None
    return _dump(fn.args) == _dump(wanted.args) and _dump(fn.returns) == _dump(wanted.returns)


def _dump(node: ast.AST | None) -> str:
    return "" if node is None else ast.dump(node)


def _check_signature_edit(top: _Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> None:
    if _same_signature(top, wanted):
        return  # only the marker changes
    node = top.node
    assert isinstance(node, cst.FunctionDef)
    parts: list[cst.CSTNode] = [
        node.whitespace_before_params,
        node.params,
        node.whitespace_before_colon,
    ]
    if node.returns is not None:
        parts.append(node.returns)
    if any(_has_comment(part) for part in parts):
        raise MergeConflict(
            handler.function,
            f"its signature (line {top.line}) must change but holds comments, which rewriting it "
            "would lose; move them into the body",
        )


class _CommentFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Comment(self, node: cst.Comment) -> None:
        self.found = True


def _has_comment(node: cst.CSTNode) -> bool:
    finder = _CommentFinder()
    node.visit(finder)
    return finder.found


def _parameter_warnings(top: _Top, wanted: ast.FunctionDef) -> Iterator[str]:
    """A parameter that left the signature but that the body still reads."""
    fn = top.function
    assert fn is not None
    gone = _parameter_names(fn.args) - _parameter_names(wanted.args)
    if not gone:
        return
    body = ast.Module(body=fn.body, type_ignores=[])
    names = list(ast.walk(body))
    stored = {n.id for n in names if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    read = {n.id for n in names if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for name in sorted((gone & read) - stored):
        yield (
            f"handler {fn.name!r}: parameter {name!r} left the signature but the body still uses it"
        )


def _parameter_names(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


# -- generated imports


def _plan_imports(module: _Module, spec: _Spec, plan: _Plan) -> None:
    old = [t for s in _managed_statements(module) for t in _import_triples(s)]
    restored = set(plan.restore.values())
    orphans = {
        top.index
        for top in module.tops
        if top.orphan and top.function is not None and top.index not in restored
    }
    orphans |= set(plan.orphan)
    live = _live_reads(module, orphans, set(plan.update) | _handler_indices(module, spec))
    wanted = list(spec.imports)
    bound = {_bound_name(t) for t in wanted}
    for triple in old:
        if (
            triple not in wanted
            and _bound_name(triple) not in bound
            and (triple[1] == "*" or _bound_name(triple) in live)
        ):
            wanted.append(triple)
            bound.add(_bound_name(triple))
    if set(old) == set(wanted):
        return
    dropped = {_bound_name(t) for t in old} - bound
    _check_orphan_reads(module, sorted(orphans), dropped, plan)
    _check_import_comments(module)
    plan.imports = (
        spec.source.managed_imports if wanted == list(spec.imports) else _render_imports(wanted)
    )


def _managed_statements(module: _Module) -> Iterator[ast.stmt]:
    return (s for top in module.tops for s in top.stmts if _is_managed_import(s))


def _render_imports(triples: Sequence[Triple]) -> str:
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


def _handler_indices(module: _Module, spec: _Spec) -> set[int]:
    return {
        top.index
        for top in module.tops
        if not top.orphan
        and top.marker is not None
        and top.function is not None
        and top.function.name in spec.handlers
    }


def _live_reads(module: _Module, orphans: set[int], handlers: set[int]) -> set[str]:
    """Names read by user code that stays live: not orphans, not generated signatures."""
    names: set[str] = set()
    for top in module.tops:
        if top.index in orphans:
            continue
        for statement in top.stmts:
            own = top.index in handlers and statement is top.function
            names.update(name for name, _, _ in _reads(statement, skip_signature=own))
    return names


def _check_orphan_reads(
    module: _Module, orphans: list[int], dropped: set[str], plan: _Plan
) -> None:
    for index in orphans:
        top = module.tops[index]
        reads = [r for s in top.stmts for r in _reads(s) if r[0] in dropped]
        if not reads:
            continue
        label = top.function.name if top.function else f"statement at line {top.line}"
        eager = sorted({name for name, when, _ in reads if _at_import(when, module)})
        if eager:
            raise MergeConflict(
                label,
                f"this orphaned code reads {', '.join(eager)} when the module is imported (a "
                "decorator, a default value or an annotation without `from __future__ import "
                "annotations`), and the generator no longer imports it, so the module would not "
                "load; delete the orphaned handler or stop using that name there",
            )
        names = ", ".join(sorted({name for name, _, _ in reads}))
        plan.warnings.append(
            f"orphaned handler {label!r} still refers to {names}, which the generator no longer "
            "imports; mypy will report it until you delete or edit the handler"
        )


def _at_import(when: str, module: _Module) -> bool:
    return when == "import" or (when == "annotation" and not module.future_annotations)


def _check_import_comments(module: _Module) -> None:
    for top in module.tops:
        if not any(_is_managed_import(s) for s in top.stmts):
            continue
        node = top.node
        assert isinstance(node, cst.SimpleStatementLine)
        if len(top.stmts) > 1 or _has_comment(node.with_changes(leading_lines=())):
            raise MergeConflict(
                None,
                f"the generated import at line {top.line} must change but shares its line with "
                "comments or other statements, which rewriting it would lose; give it a line "
                "of its own",
            )


def _reads(statement: ast.stmt, skip_signature: bool = False) -> Iterator[tuple[str, str, int]]:
    """(name, when, line) for each name the statement reads; when is "import" (evaluated
    as the module loads), "annotation", or "call" (only once a function runs)."""
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
        later = "annotation" if self.when == "import" else self.when
        self.within(later, [*annotations, node.returns])
        self.within("call", node.body)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.within(self.when, [*node.args.defaults, *node.args.kw_defaults])
        self.within("call", [node.body])


# --------------------------------------------------------------------------- applying


def merge(existing: str, spec: HandlerModuleSpec) -> MergeResult:
    """Bring ``existing`` (the user's handler module) in line with ``spec``.

    Returns the new text (``existing`` itself when nothing changes, so a second build is a
    no-op) and warnings for the user. Raises :class:`MergeConflict` when the change cannot
    be made without touching user code, and ``ValueError`` for a malformed spec.
    """
    parsed = _Spec.of(spec)
    module = _parse(existing)
    plan = _plan(module, parsed)
    if plan.empty():
        return MergeResult(existing, plan.warnings)
    return MergeResult(_apply(module, parsed, plan), plan.warnings)


# A section is rebuilt from entries: a statement that stays, or the lines a statement that
# leaves leaves behind (comments separated from it by a blank line belong to what follows).
_Entry = cst.BaseStatement | list[cst.EmptyLine]


def _apply(module: _Module, spec: _Spec, plan: _Plan) -> str:
    nodes = [top.node for top in module.tops]
    for index, handler in plan.update.items():
        nodes[index] = _with_spec(module.tops[index], handler, spec.signatures[handler.function])
    main_tail: list[cst.EmptyLine] = []
    if module.orphan_start < len(nodes):
        main_tail, nodes[module.orphan_start] = _split_banner(nodes[module.orphan_start])
    entries = _entries(module, plan, nodes)

    main, tail = _close_gaps(entries[: module.orphan_start])
    if plan.imports is not None and not any(True for _ in _managed_statements(module)):
        _insert_imports(main, _import_lines(plan.imports))
    at = len(main) - 1 if main and _is_main_guard(main[-1]) else len(main)
    main[at:at] = [_moved(_appended(handler, plan, nodes)) for handler in plan.append]
    main_tail = [*tail, *main_tail]

    orphans, orphan_tail = _close_gaps(entries[module.orphan_start :])
    orphans += [_moved(nodes[index]) for index in plan.orphan]

    footer = list(module.cst.footer)
    if plan.drop_banner:
        footer = _strip_trailing_blanks(
            [line for line in footer if _comment(line) != ORPHAN_BANNER]
        )
    if orphans:
        banner = [*main_tail, _blank(), _blank(), _comment_line(ORPHAN_BANNER), _blank(), _blank()]
        orphans[0] = _with_leading(orphans[0], [*banner, *_strip_blanks(_leading(orphans[0]))])
        footer = [*orphan_tail, *footer]
    else:
        footer = [*main_tail, *orphan_tail, *footer]
    body = [*main, *orphans]
    if body and not module.cst.header and (not nodes or body[0] is not nodes[0]):
        body[0] = _with_leading(body[0], _strip_blanks(_leading(body[0])))  # new first line
    return module.cst.with_changes(body=body, footer=_collapse(footer)).code


def _entries(module: _Module, plan: _Plan, nodes: list[cst.BaseStatement]) -> list[list[_Entry]]:
    """Per top-level statement, what replaces it where it stands."""
    leaving = {*plan.orphan, *plan.restore.values()}
    managed = [top.index for top in module.tops if any(_is_managed_import(s) for s in top.stmts)]
    entries: list[list[_Entry]] = []
    for index, node in enumerate(nodes):
        if index in leaving:
            entries.append([_split_attached(_leading(node))[0]])
        elif plan.imports is not None and index in managed:
            entries.append(_replaced_import(node, plan.imports, first=index == managed[0]))
        else:
            entries.append([node])
    return entries


def _replaced_import(node: cst.BaseStatement, source: str, first: bool) -> list[_Entry]:
    if not first:
        return [list(_leading(node))]  # dropped: its comments stay for what follows
    lines: list[_Entry] = list(_import_lines(source))
    if not lines:
        return [list(_leading(node))]
    first_line = lines[0]
    assert isinstance(first_line, cst.SimpleStatementLine)
    lines[0] = first_line.with_changes(leading_lines=_leading(node))
    return lines


def _close_gaps(
    entries: Sequence[list[_Entry]],
) -> tuple[list[cst.BaseStatement], list[cst.EmptyLine]]:
    """The statements of a section, and comment lines left over at its end."""
    kept: list[cst.BaseStatement] = []
    carry: list[cst.EmptyLine] = []
    for entry in (e for group in entries for e in group):
        if isinstance(entry, list):
            carry += entry
            continue
        if _meaningful(carry):
            entry = _with_leading(entry, _collapse([*carry, *_leading(entry)]))
        carry = []
        kept.append(entry)
    return kept, _meaningful(carry)


def _appended(
    handler: HandlerSpec, plan: _Plan, nodes: list[cst.BaseStatement]
) -> cst.BaseStatement:
    index = plan.restore.get(handler.function)
    return _new_stub(handler) if index is None else nodes[index]


def _moved(node: cst.BaseStatement) -> cst.BaseStatement:
    """A statement in its new place: two blank lines, then the comments attached to it."""
    attached = _split_attached(_leading(node))[1]
    return _with_leading(node, [_blank(), _blank(), *attached])


def _insert_imports(main: list[cst.BaseStatement], lines: list[cst.SimpleStatementLine]) -> None:
    """New generated imports go after the module's docstring and leading imports."""
    position = 0
    for index, node in enumerate(main):
        if not isinstance(node, cst.SimpleStatementLine) or not all(
            isinstance(s, cst.Import | cst.ImportFrom) or (index == 0 and _is_docstring(s))
            for s in node.body
        ):
            break
        position = index + 1
    if lines and position:
        lines[0] = lines[0].with_changes(leading_lines=[_blank()])
    main[position:position] = lines


def _is_main_guard(node: cst.BaseStatement) -> bool:
    """`if __name__ == "__main__":`, which stays last: new handlers go above it."""
    if not isinstance(node, cst.If):
        return False
    test = "".join(cst.Module([]).code_for_node(node.test).split()).replace("'", '"')
    return test in ('__name__=="__main__"', '"__main__"==__name__')


def _is_docstring(statement: cst.BaseSmallStatement) -> bool:
    return isinstance(statement, cst.Expr) and isinstance(
        statement.value, cst.SimpleString | cst.ConcatenatedString
    )


# -- nodes from generated source (formatted by black, like a fresh module)


def _with_spec(top: _Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> cst.BaseStatement:
    node = top.node
    assert isinstance(node, cst.FunctionDef)
    if not _same_signature(top, wanted):
        header = _header(handler, is_async=node.asynchronous is not None)
        node = node.with_changes(
            whitespace_after_name=header.whitespace_after_name,
            whitespace_before_params=header.whitespace_before_params,
            params=header.params,
            returns=header.returns,
            whitespace_before_colon=header.whitespace_before_colon,
        )
    if top.marker != handler.tool:
        node = _with_marker(node, marker_comment(handler.tool))
    return node


@lru_cache(maxsize=1024)
def _header(handler: HandlerSpec, is_async: bool) -> cst.FunctionDef:
    keyword = "async def" if is_async else "def"
    source = f"{keyword} {handler.function}({handler.parameters}) -> {handler.returns}:\n    pass\n"
    node = cst.parse_module(format_python(source)).body[0]
    assert isinstance(node, cst.FunctionDef)
    return node


@lru_cache(maxsize=1024)
def _new_stub(handler: HandlerSpec) -> cst.FunctionDef:
    # A statement first, so that the marker comment is the def's leading line, not the
    # module's header.
    source = "_ = 0\n\n\n" + format_python(render_stub(handler))
    node = cst.parse_module(source).body[1]
    assert isinstance(node, cst.FunctionDef)
    return node


@lru_cache(maxsize=256)
def _import_lines_cached(source: str) -> tuple[cst.SimpleStatementLine, ...]:
    lines = cst.parse_module(format_python(source) if source.strip() else "").body
    assert all(isinstance(line, cst.SimpleStatementLine) for line in lines)
    return tuple(line for line in lines if isinstance(line, cst.SimpleStatementLine))


def _import_lines(source: str) -> list[cst.SimpleStatementLine]:
    return list(_import_lines_cached(source))


def _with_marker(node: cst.FunctionDef, marker: str) -> cst.FunctionDef:
    def swap(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
        return [_comment_line(marker) if _is_marker(line) else line for line in lines]

    return node.with_changes(
        leading_lines=swap(node.leading_lines),
        lines_after_decorators=swap(node.lines_after_decorators),
        decorators=[d.with_changes(leading_lines=swap(d.leading_lines)) for d in node.decorators],
    )


def _is_marker(line: cst.EmptyLine) -> bool:
    comment = _comment(line)
    return comment is not None and comment.startswith(MARKER_PREFIX)


# -- empty lines and comments


def _blank() -> cst.EmptyLine:
    return cst.EmptyLine()


def _comment_line(text: str) -> cst.EmptyLine:
    return cst.EmptyLine(comment=cst.Comment(text))


def _with_leading(node: cst.BaseStatement, lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    return node.with_changes(leading_lines=list(lines))


def _split_attached(
    lines: Sequence[cst.EmptyLine],
) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """(detached, attached): attached are the comment lines right above, no blank between."""
    cut = len(lines)
    while cut and lines[cut - 1].comment is not None:
        cut -= 1
    return list(lines[:cut]), list(lines[cut:])


def _split_banner(node: cst.BaseStatement) -> tuple[list[cst.EmptyLine], cst.BaseStatement]:
    """(lines before the banner, the statement without banner and the blanks after it)."""
    lines = list(_leading(node))
    at = next(i for i, line in enumerate(lines) if _comment(line) == ORPHAN_BANNER)
    return _meaningful(lines[:at]), _with_leading(node, _strip_blanks(lines[at + 1 :]))


def _strip_blanks(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    start = 0
    while start < len(lines) and lines[start].comment is None:
        start += 1
    return list(lines[start:])


def _strip_trailing_blanks(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    end = len(lines)
    while end and lines[end - 1].comment is None:
        end -= 1
    return list(lines[:end])


def _meaningful(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """Lines worth keeping where they are: only if they hold a comment."""
    return list(lines) if any(line.comment is not None for line in lines) else []


def _collapse(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """At most two blank lines in a row, as black keeps them at the top level."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if run <= 2:
            out.append(line)
    return out
