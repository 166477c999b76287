"""The merge's fast path after an edit, without libcst: only handlers' parameter lists
changed since the build that left the module as it is.

When the previous build's record says it left ``handlers.py`` byte for byte as it is now,
and the spec it wanted differs from this build's only in some handlers' parameters (and
inputSchema digests), the full merge would rewrite exactly those signatures and nothing
else. This module does that by locating each signature with :mod:`ast` and
:mod:`tokenize` and splicing ruff's layout of the new one in its place: the same bytes
(``tests/handlers/test_splice.py`` compares it with the full merge on a set of edits),
without loading libcst (a third of a second) or parsing the module twice.

Anything it cannot prove safe returns ``None`` and the full merge runs: a comment,
decorator or ``**kwargs`` in a changed signature, a removed parameter its body names, an
annotation or default added or removed that reads a name the module or the generated
import might bind, a renamed, added or removed handler, any other change of the spec,
CRLF text.
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_schemagen.handlers.spec import HandlerModuleSpec, HandlerSpec
from mcp_schemagen.render.formatting import format_modules

# HandlerSpec fields a spliced handler may change; any other difference takes the full merge.
_SPLICEABLE = frozenset({"parameters", "schema_digest"})
_BUILTINS = frozenset(dir(builtins))


def spliced(
    existing: str, previous: Mapping[str, Any], spec: HandlerModuleSpec, recorded: dict[str, Any]
) -> str | None:
    """The merge's text for ``existing`` (as the previous build left it, its spec as JSON
    ``previous``) under ``spec`` (``recorded`` is its JSON), or ``None`` when only the full
    merge can tell."""
    changed = _changed_handlers(previous, spec, recorded)
    if changed is None or "\r" in existing:
        return None
    try:
        tree = ast.parse(existing)
    except SyntaxError:
        return None
    binders = [(_bound_by(statement), statement) for statement in tree.body]
    # Every name the module binds anywhere (more than the merge's scopes: a superset is
    # safe here, it only sends more merges down the full path).
    bound = set().union(*(names for names, _ in binders))
    edits: list[tuple[int, int, HandlerSpec, bool]] = []
    for handler, before in changed:
        function = _only_function(binders, handler.function)
        if function is None or not _safe_change(function, before, handler, bound):
            return None
        if _same_signature(function, handler):
            continue
        span = _header_span(existing, function.lineno, function.col_offset, handler.function)
        if span is None:
            return None
        edits.append((*span, handler, isinstance(function, ast.AsyncFunctionDef)))
    if not edits:
        return existing
    sources = [_header_source(handler, is_async) for _, _, handler, is_async in edits]
    text = existing
    for (start, end, handler, _), formatted in sorted(
        zip(edits, format_modules(sources, sort=False), strict=True),
        key=lambda pair: -pair[0][0],
    ):
        new = _header_span(formatted, 1, 0, handler.function)
        if new is None:
            return None
        text = text[:start] + formatted[new[0] : new[1]] + text[end:]
    return text


def _changed_handlers(
    previous: Mapping[str, Any], spec: HandlerModuleSpec, recorded: dict[str, Any]
) -> list[tuple[HandlerSpec, dict[str, Any]]] | None:
    """The handlers whose parameters changed, each with its previous JSON; ``None`` when
    anything else of the spec differs (or the record is not shaped as expected)."""
    before = previous.get("handlers")
    after = recorded["handlers"]
    if not isinstance(before, list) or len(before) != len(after):
        return None
    if any(previous.get(key) != recorded[key] for key in recorded if key != "handlers"):
        return None
    changed = []
    for old, new, handler in zip(before, after, spec.handlers, strict=True):
        if not isinstance(old, dict) or old.keys() != new.keys():
            return None
        differ = {key for key in new if old[key] != new[key]}
        if not differ <= _SPLICEABLE:
            return None
        if "parameters" in differ:
            changed.append((handler, old))
    return changed


def _only_function(
    binders: list[tuple[set[str], ast.stmt]], name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The one top-level statement binding ``name``, if it is an undecorated function."""
    found = [statement for names, statement in binders if name in names]
    if len(found) != 1:
        return None
    function = found[0]
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return None if function.decorator_list else function


def _bound_by(statement: ast.stmt) -> set[str]:
    return {
        node.name
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        else node.id
        for node in ast.walk(statement)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        or (isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load))
    } | {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(statement)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def _signature(parameters: str, returns: str) -> ast.FunctionDef | None:
    try:
        node = ast.parse(f"def f({parameters}) -> {returns}:\n    pass\n").body[0]
    except SyntaxError:
        return None
    return node if isinstance(node, ast.FunctionDef) else None


def _safe_change(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    before: dict[str, Any],
    handler: HandlerSpec,
    bound: set[str],
) -> bool:
    """Whether the full merge would only rewrite this signature: no user ``**kwargs``, no
    removed parameter the body names, and every name only one of the old and new
    signatures reads is a builtin the module does not rebind (so the generated import and
    its run-time/TYPE_CHECKING split stay as they are)."""
    old = _signature(str(before.get("parameters")), str(before.get("returns")))
    new = _signature(handler.parameters, handler.returns)
    if old is None or new is None or function.args.kwarg is not None:
        return False
    removed = _parameter_names(old.args) - _parameter_names(new.args)
    if removed & _mentioned(function.body):
        return False  # the full merge decides whether the body still reads it (exit 3)
    either = _read_names(new) ^ _read_names(old)
    return either <= _BUILTINS and not either & bound


def _mentioned(body: list[ast.stmt]) -> set[str]:
    """Every identifier the body names, read or bound (a superset of what it reads)."""
    names: set[str] = set()
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names


def _parameter_names(arguments: ast.arguments) -> set[str]:
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return {a.arg for a in every}


def _read_names(node: ast.FunctionDef) -> set[str]:
    parts: list[ast.AST] = [node.args] + ([node.returns] if node.returns else [])
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}


def _same_signature(function: ast.FunctionDef | ast.AsyncFunctionDef, handler: HandlerSpec) -> bool:
    wanted = _signature(handler.parameters, handler.returns)
    assert wanted is not None  # checked by _safe_change
    mine, theirs = function.returns, wanted.returns
    same_returns = (mine is None) == (theirs is None) and (
        mine is None or theirs is None or ast.dump(mine) == ast.dump(theirs)
    )
    return ast.dump(function.args) == ast.dump(wanted.args) and same_returns


def _header_source(handler: HandlerSpec, is_async: bool) -> str:
    # As handlers.apply writes it, so that ruff lays it out the same way.
    keyword = "async def" if is_async else "def"
    return f"{keyword} {handler.function}({handler.parameters}) -> {handler.returns}:\n    pass\n"


def _header_span(text: str, line: int, column: int, name: str) -> tuple[int, int] | None:
    """Offsets in ``text`` from the end of the function's name to its header's colon (what
    libcst's edit replaces), for the ``def`` at ``line``/``column``; ``None`` when a
    comment lies there (the full merge refuses to drop it) or the tokens are unexpected."""
    starts = _line_starts(text)
    lines = io.StringIO(text[starts[line - 1] :]).readline
    name_end: int | None = None
    depth = 0
    try:
        for token in tokenize.generate_tokens(lines):
            row, col = token.start
            if row == 1 and col < column:
                continue
            if name_end is None:
                if token.type == tokenize.NAME and token.string == name:
                    name_end = _offset(starts, line, token.end)
                elif token.string not in ("def", "async"):
                    return None
                continue
            if token.type == tokenize.COMMENT:
                return None
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            elif token.type == tokenize.OP and token.string == ":" and depth == 0:
                return name_end, _offset(starts, line, token.start)
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def _line_starts(text: str) -> Sequence[int]:
    return [0, *(match.end() for match in re.finditer("\n", text))]


def _offset(starts: Sequence[int], first_line: int, position: tuple[int, int]) -> int:
    row, col = position
    return starts[first_line - 1 + row - 1] + col
