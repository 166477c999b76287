"""Every change a merge makes, decided before anything is edited: signatures to update,
stubs to add, handlers to orphan or restore, the generated import, and the conflicts that
stop the merge."""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from dataclasses import dataclass, field

import libcst as cst

from mcp_schemagen.compile.ir import CONTENT_TYPES
from mcp_schemagen.handlers.imports import (
    ManagedImports,
    found_imports,
    is_managed,
    is_managed_block,
    split,
)
from mcp_schemagen.handlers.lines import has_comment
from mcp_schemagen.handlers.module import HandlerModule, Top, pair
from mcp_schemagen.handlers.parameter_use import check_parameters_still_read, parameter_names
from mcp_schemagen.handlers.renames import renamed_handlers, renamed_warning
from mcp_schemagen.handlers.run_time import (
    block_test,
    read_at_run_time,
    unused_type_checking_import,
)
from mcp_schemagen.handlers.scope import (
    Binding,
    at_import,
    live_reads,
    module_bindings,
    names_read,
)
from mcp_schemagen.handlers.spec import (
    RUNTIME_CONTENT,
    HandlerSpec,
    MergeConflict,
    ParsedSpec,
    Triple,
    bound_name,
    is_managed_import,
)
from mcp_schemagen.handlers.stand_ins import STAND_IN_COMMENT, needs_any_import, stand_ins
from mcp_schemagen.handlers.stubs import marker_comment, stub_reads


@dataclass
class Plan:
    """Every change a merge makes, decided before anything is edited."""

    update: dict[int, HandlerSpec] = field(default_factory=dict)  # signature and/or marker
    append: list[HandlerSpec] = field(default_factory=list)  # restored or new, spec order
    restore: dict[str, int] = field(default_factory=dict)  # function -> orphan index
    orphan: list[int] = field(default_factory=list)  # main-section handlers to move
    imports: ManagedImports | None = None  # the new generated imports, if they change
    type_checking_import: bool = False  # add `from typing import TYPE_CHECKING` for them
    drop_type_checking_import: int | None = None  # top index of that import, once unused
    drop_banner: bool = False
    warnings: list[str] = field(default_factory=list)
    stand_ins: list[str] | None = None  # names defined as Any for orphans, if they change
    any_import: bool = False  # add `from typing import Any` for them

    def empty(self) -> bool:
        return not (
            self.update
            or self.append
            or self.orphan
            or self.imports is not None
            or self.drop_banner
            or self.stand_ins is not None
            or self.any_import
            or self.type_checking_import
            or self.drop_type_checking_import is not None
        )


def plan_merge(
    module: HandlerModule, spec: ParsedSpec, previous_digests: Mapping[str, str] | None = None
) -> Plan:
    """``previous_digests``: each tool's inputSchema digest as the previous build recorded
    it, the evidence that a tool was renamed (handlers.renames)."""
    plan = Plan(drop_banner=module.banner_in_footer)
    bindings = module_bindings(module)
    renamed = renamed_handlers(module, spec, previous_digests or {})
    renamed_to = {handler.function: index for index, handler in renamed.items()}
    for index, handler in renamed.items():
        plan.update[index] = handler
        plan.warnings.append(renamed_warning(module.tops[index], handler))
    for name, handler in spec.handlers.items():
        if name in renamed_to:
            continue
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
    by_tool = {handler.marker: handler for handler in spec.handlers.values()}
    for top in module.tops:
        fn = top.function
        if top.orphan or top.marker is None or fn is None or fn.name in spec.handlers:
            continue
        if top.index in renamed:
            continue
        if top.marker in by_tool:
            _renamed_handler(top, fn.name, by_tool[top.marker])
        plan.orphan.append(top.index)
        plan.warnings.append(
            f"handler {fn.name!r}: tool {top.marker!r} is no longer in the schemas; its handler "
            "was moved to the orphaned section at the end of the module (delete it when no "
            "longer needed)"
        )
    module_names = set(bindings)
    for index, handler in plan.update.items():
        _check_signature_edit(module.tops[index], handler, spec.signatures[handler.function])
        check_parameters_still_read(
            module.tops[index], handler, spec.signatures[handler.function], module_names
        )
    _plan_imports(module, spec, plan)
    return plan


def _handler_top(
    module: HandlerModule, name: str, handler: HandlerSpec, bindings: list[Binding]
) -> Top | None:
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
            f"handler; rename it, or put the line `{marker_comment(handler.marker)}` directly "
            "above it to let the generator manage its signature",
        )
    return top


def _renamed_handler(top: Top, name: str, handler: HandlerSpec) -> None:
    """A marked function whose tool is still there under another handler name: the user
    renamed it (or the generator's name for it changed). Orphaning it would be a false
    "no longer in the schemas" and a raising stub in its place."""
    raise MergeConflict(
        name,
        f"the marker above it (line {top.line}) names tool {handler.tool!r}, whose handler "
        f"must be called {handler.function!r} (the dispatch table calls "
        f"handlers.{handler.function}); rename the function to {handler.function!r}, or delete "
        f"the marker line to keep {name!r} as a function of your own (a new stub "
        f"{handler.function!r} is then added)",
    )


# -- signatures


def _needs_update(top: Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> bool:
    return top.marker != handler.marker or not same_signature(top, wanted)


def same_signature(top: Top, wanted: ast.FunctionDef) -> bool:
    """The generated part of the signature is as wanted (a user's ``**kwargs`` is theirs)."""
    fn = top.function
    assert fn is not None
    mine = fn.args
    if mine.kwarg is not None and wanted.args.kwarg is None:
        mine = copy.copy(mine)
        mine.kwarg = None
    return _dump(mine) == _dump(wanted.args) and _dump(fn.returns) == _dump(wanted.returns)


def user_kwarg(top: Top) -> ast.arg | None:
    """A ``**kwargs`` the user added: kept through every signature update, since the
    server passes it the arguments the schema allows beyond the handler's parameters."""
    fn = top.function
    return None if fn is None else fn.args.kwarg


def _dump(node: ast.AST | None) -> str:
    return "" if node is None else ast.dump(node)


def _check_signature_edit(top: Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> None:
    if same_signature(top, wanted):
        return  # only the marker changes
    kwarg = user_kwarg(top)
    if kwarg is not None and kwarg.arg in parameter_names(wanted.args):
        raise MergeConflict(
            handler.function,
            f"its **{kwarg.arg} (line {top.line}) has the name of a parameter the schema now "
            f"has; rename **{kwarg.arg}",
        )
    node = top.node
    assert isinstance(node, cst.FunctionDef)
    parts: list[cst.CSTNode] = [
        node.whitespace_before_params,
        node.params,
        node.whitespace_before_colon,
    ]
    if node.returns is not None:
        parts.append(node.returns)
    if any(has_comment(part) for part in parts):
        raise MergeConflict(
            handler.function,
            f"its signature (line {top.line}) must change but holds comments, which rewriting it "
            "would lose; move them into the body",
        )


# -- generated imports


def _plan_imports(module: HandlerModule, spec: ParsedSpec, plan: Plan) -> None:
    found = found_imports(s for top in module.tops for s in top.stmts)
    old = [_public(t) for t in (*found.real, *found.lazy)]
    restored = set(plan.restore.values())
    orphans = {
        top.index
        for top in module.tops
        if top.orphan and top.function is not None and top.index not in restored
    }
    orphans |= set(plan.orphan)
    handler_tops = set(plan.update) | _handler_indices(module, spec)
    live = live_reads(module, orphans, handler_tops)
    wanted = list(spec.imports)
    bound = {bound_name(t) for t in wanted}
    for triple in old:
        if (
            triple not in wanted
            and bound_name(triple) not in bound
            and (triple[1] == "*" or bound_name(triple) in live)
        ):
            wanted.append(triple)
            bound.add(bound_name(triple))
    new_stubs = [h for h in plan.append if h.function not in plan.restore]
    body_reads = stub_reads(new_stubs, spec.source.type_names)
    for name in sorted(body_reads - bound):
        wanted.append(("types", name, None))
        bound.add(name)
    _check_kept_names_exist(module, spec, wanted, orphans)
    imports = split(wanted, read_at_run_time(module, spec, handler_tops) | body_reads)
    needed: set[str] = set()
    if not found.same_as(imports):
        dropped = {bound_name(t) for t in old} - bound
        needed = _check_orphan_reads(module, sorted(orphans), dropped, plan)
        _check_import_comments(module)
        plan.imports = imports
    plan.type_checking_import = (
        bool(imports.lazy)
        and block_test(module) in (None, "TYPE_CHECKING")
        and "TYPE_CHECKING" not in module_bindings(module)
    )
    if found.lazy and not imports.lazy:  # the generated block leaves
        plan.drop_type_checking_import = unused_type_checking_import(module)
    _plan_stand_ins(module, spec, plan, needed, bound)


def _plan_stand_ins(
    module: HandlerModule, spec: ParsedSpec, plan: Plan, needed: set[str], bound: set[str]
) -> None:
    """Names orphaned code reads that no import binds any more get a stand-in (``Any``);
    one nothing reads, or that the generated import binds again, loses it."""
    existing = stand_ins(module)
    handler_tops = set(plan.update) | _handler_indices(module, spec)
    reads = live_reads(module, set(existing.values()), handler_tops)
    keep = {name for name in existing if name not in bound and name in reads}
    names = sorted(keep | needed)
    if names != sorted(existing):
        plan.stand_ins = names
    plan.any_import = bool(names) and needs_any_import(module)


def _public(triple: Triple) -> Triple:
    """An import from the private ``._runtime.content`` (older builds wrote it) as the same
    name from a public module: ``.types`` for the types it re-exports, else ``.api``."""
    module, name, asname = triple
    if module != RUNTIME_CONTENT:
        return triple
    return ("types" if name in CONTENT_TYPES else "api", name, asname)


def _handler_indices(module: HandlerModule, spec: ParsedSpec) -> set[int]:
    return {
        top.index
        for top in module.tops
        if not top.orphan
        and top.marker is not None
        and top.function is not None
        and top.function.name in spec.handlers
    }


def _check_orphan_reads(
    module: HandlerModule, orphans: list[int], dropped: set[str], plan: Plan
) -> set[str]:
    """The dropped names orphaned code reads (each gets a stand-in); a conflict when one
    is read as the module loads."""
    needed: set[str] = set()
    user_bound = _bound_by_user_code(module)
    for index in orphans:
        top = module.tops[index]
        reads = [r for s in top.stmts for r in names_read(s) if r[0] in dropped]
        if not reads:
            continue
        label = top.function.name if top.function else f"statement at line {top.line}"
        eager = sorted({name for name, when, _ in reads if at_import(when, module)})
        if eager:
            raise MergeConflict(
                label,
                f"this orphaned code reads {', '.join(eager)} when the module is imported (a "
                "decorator, a default value or an annotation without `from __future__ import "
                "annotations`), and the generator no longer imports it, so the module would not "
                "load; delete the orphaned handler or stop using that name there",
            )
        read = {name for name, _, _ in reads} - user_bound
        if not read:
            continue
        needed |= read
        names = ", ".join(sorted(read))
        plan.warnings.append(
            f"orphaned handler {label!r} still refers to {names}, which the generator no longer "
            "imports (the tool took its types along); each is defined as Any after the imports, "
            f"marked `{STAND_IN_COMMENT}`, until you delete the handler"
        )
    return needed


def _bound_by_user_code(module: HandlerModule) -> set[str]:
    """Names the module binds itself (not by the generated import, nor a stand-in)."""
    generated = set(stand_ins(module).values()) | {
        top.index for top in module.tops if any(is_managed(s) for s in top.stmts)
    }
    return {
        name
        for name, bindings in module_bindings(module).items()
        if any(b.top not in generated for b in bindings)
    }


def _check_kept_names_exist(
    module: HandlerModule, spec: ParsedSpec, wanted: list[Triple], orphans: set[int]
) -> None:
    """A generated type the user's live code still names, but that `.types` no longer
    defines (its tool was removed or renamed): importing it would break the module."""
    defined = spec.source.type_names
    if defined is None:
        return
    missing = {bound_name(t): t[1] for t in wanted if t[0] == "types" and t[1] != "*"}
    missing = {bound: name for bound, name in missing.items() if name not in defined}
    if not missing:
        return
    lines: dict[str, set[int]] = {}
    for top in module.tops:
        if top.index in orphans:
            continue
        for statement in top.stmts:
            for name, _, line in names_read(statement):
                if name in missing and not is_managed(statement):
                    lines.setdefault(name, set()).add(line)
    shown = "; ".join(
        f"{name} (line{'s' if len(at) > 1 else ''} {', '.join(map(str, sorted(at)))})"
        for name, at in sorted(lines.items())
    )
    raise MergeConflict(
        None,
        f"your code uses {shown}, which the generated types no longer define (the tool it "
        "came from was removed or renamed), so the module would not import; define the "
        "type in the module yourself or stop using it, then build again",
    )


def _check_import_comments(module: HandlerModule) -> None:
    for top in module.tops:
        if not any(is_managed(s) for s in top.stmts):
            continue
        node = top.node
        if isinstance(node, cst.If):
            _check_block_comments(top, node)
            continue
        assert isinstance(node, cst.SimpleStatementLine)
        if len(top.stmts) > 1 or has_comment(node.with_changes(leading_lines=())):
            raise MergeConflict(
                None,
                f"the generated import at line {top.line} must change but shares its line with "
                "comments or other statements, which rewriting it would lose; give it a line "
                "of its own",
            )


def _check_block_comments(top: Top, node: cst.If) -> None:
    """In the ``if TYPE_CHECKING:`` block, a generated import is rewritten whole."""
    block = top.stmts[0]
    assert is_managed_block(block) and isinstance(block, ast.If)
    if not isinstance(node.body, cst.IndentedBlock):
        raise MergeConflict(
            None,
            f"the generated import at line {top.line} must change but shares the line of its "
            "`if TYPE_CHECKING:`; put it on a line of its own below the `if`",
        )
    for inner, statements in pair(node.body.body, block.body):
        if not any(is_managed_import(s) for s in statements):
            continue
        if len(statements) > 1 or has_comment(inner):
            raise MergeConflict(
                None,
                f"the generated import at line {statements[0].lineno} must change but carries "
                "comments or shares its line with other statements, which rewriting it would "
                "lose; give it a line of its own and move the comments above the block",
            )
