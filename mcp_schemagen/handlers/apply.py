"""Applying a plan with libcst: every statement the plan does not name is kept byte for
byte; generated source (signatures, stubs, imports) is formatted by ruff first."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from functools import lru_cache

import libcst as cst

from mcp_schemagen.handlers.import_placement import (
    insert_imports,
    insert_typing_import,
    plain_typing_names,
)
from mcp_schemagen.handlers.imports import (
    ManagedImports,
    is_managed,
)
from mcp_schemagen.handlers.lines import (
    blank,
    collapse,
    comment_line,
    comment_of,
    leading,
    meaningful,
    split_attached,
    split_banner,
    strip_blanks,
    strip_trailing_blanks,
    with_leading,
)
from mcp_schemagen.handlers.module import HandlerModule, Top, pair
from mcp_schemagen.handlers.plan import Plan, same_signature, user_kwarg
from mcp_schemagen.handlers.run_time import managed_statements
from mcp_schemagen.handlers.spec import HandlerSpec, ParsedSpec, is_managed_import
from mcp_schemagen.handlers.stand_ins import stand_in_source, stand_ins
from mcp_schemagen.handlers.stubs import ORPHAN_BANNER, marker_comment, marker_prefix, render_stub
from mcp_schemagen.render.formatting import format_modules, format_unsorted

# A section is rebuilt from entries: a statement that stays, or the lines a statement that
# leaves leaves behind (comments separated from it by a blank line belong to what follows).
_Entry = cst.BaseStatement | list[cst.EmptyLine]


def apply_plan(module: HandlerModule, spec: ParsedSpec, plan: Plan) -> str:
    _format_ahead(module, spec, plan)
    nodes = [top.node for top in module.tops]
    for index, handler in plan.update.items():
        nodes[index] = _with_spec(module.tops[index], handler, spec.signatures[handler.function])
    main_tail: list[cst.EmptyLine] = []
    if module.orphan_start < len(nodes):
        main_tail, nodes[module.orphan_start] = split_banner(nodes[module.orphan_start])
    entries = _entries(module, plan, nodes)

    main, tail = _close_gaps(entries[: module.orphan_start])
    if plan.imports is not None:
        if not any(True for _ in managed_statements(module)):
            insert_imports(main, _managed_group(plan.imports))
        elif plan.imports.real and not _real_imports(module):
            # With the module's imports, above any code (the block may stand anywhere).
            insert_imports(main, _import_lines(plan.imports.real_source()), past_blocks=False)
    if plan.any_import:
        insert_typing_import(main, "Any", _import_lines)
    if plan.type_checking_import:
        insert_typing_import(main, "TYPE_CHECKING", _import_lines)
    if plan.stand_ins is not None:
        insert_imports(main, _stand_in_lines(tuple(plan.stand_ins)))
    at = len(main) - 1 if main and _is_main_guard(main[-1]) else len(main)
    main[at:at] = [_moved(_appended(handler, plan, nodes)) for handler in plan.append]
    main_tail = [*tail, *main_tail]

    orphans, orphan_tail = _close_gaps(entries[module.orphan_start :])
    orphans += [_moved(nodes[index]) for index in plan.orphan]

    footer = list(module.cst.footer)
    if plan.drop_banner:
        footer = strip_trailing_blanks(
            [line for line in footer if comment_of(line) != ORPHAN_BANNER]
        )
    if orphans:
        banner = [*main_tail, blank(), blank(), comment_line(ORPHAN_BANNER), blank(), blank()]
        orphans[0] = with_leading(orphans[0], [*banner, *strip_blanks(leading(orphans[0]))])
        footer = [*orphan_tail, *footer]
    else:
        footer = [*main_tail, *orphan_tail, *footer]
    body = [*main, *orphans]
    if body and not module.cst.header and (not nodes or body[0] is not nodes[0]):
        body[0] = with_leading(body[0], strip_blanks(leading(body[0])))  # new first line
    return module.cst.with_changes(body=body, footer=collapse(footer)).code


def _entries(
    module: HandlerModule, plan: Plan, nodes: list[cst.BaseStatement]
) -> list[list[_Entry]]:
    """Per top-level statement, what replaces it where it stands."""
    leaving = {*plan.orphan, *plan.restore.values()}
    if plan.stand_ins is not None:
        leaving |= set(stand_ins(module).values())  # written anew after the imports
    replaced = {} if plan.imports is None else _managed_entries(module, plan.imports)
    drop = plan.drop_type_checking_import
    if drop is not None:
        names = plain_typing_names(nodes[drop]) or []
        rest = [name for name in names if name != "TYPE_CHECKING"]
        if rest:  # the line keeps its other names
            (line,) = _import_lines(f"from typing import {', '.join(rest)}\n")
            replaced[drop] = [with_leading(line, leading(nodes[drop]))]
        else:
            leaving.add(drop)
    entries: list[list[_Entry]] = []
    for index, node in enumerate(nodes):
        if index in leaving:
            entries.append([split_attached(leading(node))[0]])
        elif index in replaced:
            entries.append(replaced[index])
        else:
            entries.append([node])
    return entries


def _managed_entries(module: HandlerModule, imports: ManagedImports) -> dict[int, list[_Entry]]:
    """What replaces each generated-import statement: the real import where the first
    one stood, the ``if TYPE_CHECKING:`` block where the first block stood (the user's
    statements in any block kept in it), each beside the other when only one existed."""
    real = _real_imports(module)
    blocks = [t for t in module.tops if isinstance(t.node, cst.If) and is_managed(t.stmts[0])]
    replaced: dict[int, list[_Entry]] = {t.index: [list(leading(t.node))] for t in real + blocks}
    block = _merged_block(blocks, imports)
    if real:
        group = _import_lines(imports.real_source())
        if not blocks and block is not None:
            group.append(with_leading(block, [blank()]))
        replaced[real[0].index] = _leading_from(real[0].node, group)
    if blocks:
        replaced[blocks[0].index] = _leading_from(blocks[0].node, [] if block is None else [block])
    return replaced


def _real_imports(module: HandlerModule) -> list[Top]:
    return [t for t in module.tops if any(is_managed_import(s) for s in t.stmts)]


def _leading_from(node: cst.BaseStatement, group: list[cst.BaseStatement]) -> list[_Entry]:
    if not group:
        return [list(leading(node))]  # dropped: its comments stay for what follows
    lines = list(leading(node))
    if isinstance(group[0], cst.If) and all(line.comment is not None for line in lines):
        lines.insert(0, blank())  # in place of an import right below another: set apart
    return [with_leading(group[0], lines), *group[1:]]


def _managed_group(imports: ManagedImports) -> list[cst.BaseStatement]:
    """The generated imports as new statements: the real import, then the block."""
    group = _import_lines(imports.real_source())
    block = _merged_block([], imports)
    if block is not None:
        group.append(with_leading(block, [blank()]) if group else block)
    return group


def _merged_block(blocks: list[Top], imports: ManagedImports) -> cst.If | None:
    """The ``if TYPE_CHECKING:`` block after the merge: the first existing block with the
    new lazy import in place of its generated one, and the user's statements of every
    block; a new block when there was none; None when it would be empty."""
    lazy = _lazy_lines(imports.lazy_source())
    if not blocks:
        return _lazy_block(imports.lazy_source()) if lazy else None
    body: list[cst.BaseStatement] = []
    placed = False
    for top in blocks:
        node, statement = top.node, top.stmts[0]
        assert isinstance(node, cst.If) and isinstance(node.body, cst.IndentedBlock)
        assert isinstance(statement, ast.If)
        for inner, statements in pair(node.body.body, statement.body):
            if not any(is_managed_import(s) for s in statements):
                body.append(inner)
            elif not placed:
                placed = True
                if lazy:
                    body += [with_leading(lazy[0], leading(inner)), *lazy[1:]]
    if not body:
        return None
    body[0] = with_leading(body[0], strip_blanks(leading(body[0])))
    first = blocks[0].node
    assert isinstance(first, cst.If) and isinstance(first.body, cst.IndentedBlock)
    return first.with_changes(body=first.body.with_changes(body=body))


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
        if meaningful(carry):
            entry = with_leading(entry, collapse([*carry, *leading(entry)]))
        carry = []
        kept.append(entry)
    return kept, meaningful(carry)


def _appended(
    handler: HandlerSpec, plan: Plan, nodes: list[cst.BaseStatement]
) -> cst.BaseStatement:
    index = plan.restore.get(handler.function)
    return _new_stub(handler) if index is None else nodes[index]


def _moved(node: cst.BaseStatement) -> cst.BaseStatement:
    """A statement in its new place: two blank lines, then the comments attached to it."""
    attached = split_attached(leading(node))[1]
    return with_leading(node, [blank(), blank(), *attached])


@lru_cache(maxsize=64)
def _stand_in_lines_cached(names: tuple[str, ...]) -> tuple[cst.SimpleStatementLine, ...]:
    lines = cst.parse_module(stand_in_source(names)).body
    return tuple(line for line in lines if isinstance(line, cst.SimpleStatementLine))


def _stand_in_lines(names: tuple[str, ...]) -> list[cst.SimpleStatementLine]:
    return list(_stand_in_lines_cached(names))


def _is_main_guard(node: cst.BaseStatement) -> bool:
    """`if __name__ == "__main__":`, which stays last: new handlers go above it."""
    if not isinstance(node, cst.If):
        return False
    test = "".join(cst.Module([]).code_for_node(node.test).split()).replace("'", '"')
    return test in ('__name__=="__main__"', '"__main__"==__name__')


# -- nodes from generated source (formatted by ruff, like a fresh module)


# Generated source -> ruff's layout of it. Filled for a whole merge at once (one ruff
# process for every changed signature, new stub and import block), and kept across merges.
_FORMATTED: dict[str, str] = {}


def _format_ahead(module: HandlerModule, spec: ParsedSpec, plan: Plan) -> None:
    sources = []
    for index, handler in plan.update.items():
        top = module.tops[index]
        if not same_signature(top, spec.signatures[handler.function]):
            sources.append(_header_source(handler, _is_async(top), _user_kwargs(top)))
    sources += [render_stub(h) for h in plan.append if h.function not in plan.restore]
    if plan.imports is not None:
        sources += [s for s in (plan.imports.real_source(), plan.imports.lazy_source()) if s]
    pending = [source for source in dict.fromkeys(sources) if source not in _FORMATTED]
    if len(_FORMATTED) + len(pending) > 4096:
        _FORMATTED.clear()
    _FORMATTED.update(zip(pending, format_modules(pending, sort=False), strict=True))


def _formatted(source: str) -> str:
    if source not in _FORMATTED:
        _FORMATTED[source] = format_unsorted(source)
    return _FORMATTED[source]


def _is_async(top: Top) -> bool:
    return isinstance(top.node, cst.FunctionDef) and top.node.asynchronous is not None


def _user_kwargs(top: Top) -> str:
    """The source of the user's ``**kwargs`` parameter, which a new signature keeps."""
    kwarg = user_kwarg(top)
    if kwarg is None:
        return ""
    return ast.unparse(
        ast.arguments(
            posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[], kwarg=kwarg
        )
    )


def _with_spec(top: Top, handler: HandlerSpec, wanted: ast.FunctionDef) -> cst.BaseStatement:
    node = top.node
    assert isinstance(node, cst.FunctionDef)
    if not same_signature(top, wanted):
        header = _header(handler, is_async=_is_async(top), extra=_user_kwargs(top))
        node = node.with_changes(
            whitespace_after_name=header.whitespace_after_name,
            whitespace_before_params=header.whitespace_before_params,
            params=header.params,
            returns=header.returns,
            whitespace_before_colon=header.whitespace_before_colon,
        )
    if top.marker != handler.marker:
        node = _with_marker(node, marker_comment(handler.marker))
    if node.name.value != handler.function:  # a renamed tool's handler (handlers.renames)
        node = node.with_changes(name=cst.Name(handler.function))
    return node


def _header_source(handler: HandlerSpec, is_async: bool, extra: str) -> str:
    keyword = "async def" if is_async else "def"
    parameters = ", ".join(p for p in (handler.parameters, extra) if p)
    return f"{keyword} {handler.function}({parameters}) -> {handler.returns}:\n    pass\n"


@lru_cache(maxsize=1024)
def _header(handler: HandlerSpec, is_async: bool, extra: str = "") -> cst.FunctionDef:
    """The generated signature; ``extra`` is the source of a user's ``**kwargs``, kept."""
    node = cst.parse_module(_formatted(_header_source(handler, is_async, extra))).body[0]
    assert isinstance(node, cst.FunctionDef)
    return node


@lru_cache(maxsize=1024)
def _new_stub(handler: HandlerSpec) -> cst.FunctionDef:
    # A statement first, so that the marker comment is the def's leading line, not the
    # module's header.
    source = "_ = 0\n\n\n" + _formatted(render_stub(handler))
    node = cst.parse_module(source).body[1]
    assert isinstance(node, cst.FunctionDef)
    return node


@lru_cache(maxsize=256)
def _import_lines_cached(source: str) -> tuple[cst.SimpleStatementLine, ...]:
    lines = cst.parse_module(_formatted(source) if source.strip() else "").body
    assert all(isinstance(line, cst.SimpleStatementLine) for line in lines)
    return tuple(line for line in lines if isinstance(line, cst.SimpleStatementLine))


def _import_lines(source: str) -> list[cst.BaseStatement]:
    return list(_import_lines_cached(source))


@lru_cache(maxsize=256)
def _lazy_block(source: str) -> cst.If:
    """The ``if TYPE_CHECKING:`` block of the source (not empty)."""
    (node,) = cst.parse_module(_formatted(source)).body
    assert isinstance(node, cst.If)
    return node


def _lazy_lines(source: str) -> list[cst.BaseStatement]:
    if not source:
        return []
    body = _lazy_block(source).body
    assert isinstance(body, cst.IndentedBlock)
    return list(body.body)


def _with_marker(node: cst.FunctionDef, marker: str) -> cst.FunctionDef:
    def swap(lines: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
        return [comment_line(marker) if _is_marker(line) else line for line in lines]

    return node.with_changes(
        leading_lines=swap(node.leading_lines),
        lines_after_decorators=swap(node.lines_after_decorators),
        decorators=[d.with_changes(leading_lines=swap(d.leading_lines)) for d in node.decorators],
    )


def _is_marker(line: cst.EmptyLine) -> bool:
    comment = comment_of(line)
    return comment is not None and marker_prefix(comment) is not None
