"""A parameter the merge would remove from a handler's signature while its body still reads
it: a parameter added by hand, or a property the schema no longer has. Removing it would
leave a handler that raises NameError when called, so the build stops (exit 3) and says
what to do instead."""

from __future__ import annotations

import ast
import builtins

from mcp_schemagen.handlers.module import Top
from mcp_schemagen.handlers.spec import HandlerSpec, MergeConflict


def check_parameters_still_read(
    top: Top, handler: HandlerSpec, wanted: ast.FunctionDef, module_names: set[str]
) -> None:
    """A parameter the signature would lose (added by hand, or a property the schema no
    longer has) that the body still reads: the handler would raise NameError when called,
    so the build stops instead of removing it."""
    fn = top.function
    assert fn is not None
    kept = {fn.args.kwarg.arg} if fn.args.kwarg is not None else set()
    gone = parameter_names(fn.args) - parameter_names(wanted.args) - kept
    if not gone:
        return
    body = ast.Module(body=fn.body, type_ignores=[])
    names = list(ast.walk(body))
    stored = {n.id for n in names if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    read = {n.id for n in names if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    # A name the module binds too still resolves once the parameter is gone.
    still_read = sorted((gone & read) - stored - module_names - set(dir(builtins)))
    if not still_read:
        return
    listed = ", ".join(repr(name) for name in still_read)
    one = len(still_read) == 1
    it = "it" if one else "them"
    source, fix = _PARAMETER_SOURCES.get(handler.kind, _PARAMETER_SOURCES["tool"])
    raise MergeConflict(
        handler.function,
        f"{'parameter' if one else 'parameters'} {listed} (line {top.line})"
        f" {'is' if one else 'are'} not among the {source.format(handler.tool)}, so the"
        f" build would remove {it} from the signature, but the body still uses {it} (a"
        f" NameError when the handler is called); {fix} (the server then passes {it}), or"
        " remove the use from the body; then build again",
    )


# Where each kind of handler's parameters come from, and how a user adds one.
_PARAMETER_SOURCES = {
    "tool": (
        "properties of the inputSchema of tool {!r}",
        "add it to the inputSchema's properties",
    ),
    "prompt": ("arguments of prompt {!r}", "add it to the prompt's arguments"),
    "resource": ("variables of resource template {!r}", "add it as a variable of the template"),
    "completion": ("parameters of completion handler {!r}", "keep the generated parameters"),
}


def parameter_names(args: ast.arguments) -> set[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}
