"""Which function answers each tool: the function of the generated name that the handler
module defines itself, looked up in the module's namespace.

Never ``getattr(handlers, name)``: attribute lookup on a module also finds what its type
defines (a tool named ``__class__`` or ``__dict__`` would be answered by the module type
or its namespace), and a module-level ``__getattr__`` answers any name at all. A name
that does not lead to a function of the handler module stops the server at start-up
with what to do, rather than answering calls with something else.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import weakref
from collections.abc import Callable, Iterator, Mapping
from types import CodeType, ModuleType
from typing import Any


class HandlerNotFound(LookupError):
    """The handler module lacks the function the dispatch table names for a tool, prompt,
    resource reader or completion."""


def handler_functions(
    module: ModuleType, functions: Mapping[str, str], kind: str = "tool"
) -> dict[str, Callable[..., Any]]:
    """Key -> its handler, for ``functions`` (key -> generated function name); ``kind``
    ("tool", "prompt", "resource", "completion") names the marker the function carries."""
    namespace = vars(module)
    bind_type_names(module)
    found: dict[str, Callable[..., Any]] = {}
    for tool, function in functions.items():
        handler = namespace.get(function)
        if not _defined_in(handler, module):
            shown = "nothing" if handler is None else f"{type(handler).__name__} {handler!r}"
            raise HandlerNotFound(
                f"{kind} {tool!r}: {module.__name__} must define the handler function "
                f"{function!r} (marked `# mcp-codegen {kind}: ...` above it), but that name is "
                f"bound to {shown[:200]}; run `mcp-codegen build`, which writes a stub for it, "
                "or keep the name for the handler (a decorator must return the function, or "
                "wrap it with functools.wraps)"
            )
        assert handler is not None
        found[tool] = handler
    return found


def _defined_in(handler: object, module: ModuleType) -> bool:
    """A function (unwrapped through ``functools.wraps``) whose code the module holds."""
    if handler is None or not callable(handler):
        return False
    try:
        inner = inspect.unwrap(handler)
    except ValueError:  # a cycle of __wrapped__
        return False
    return inspect.isfunction(inner) and inner.__module__ == module.__name__


# Handler modules already looked at (handler_functions runs once per kind of handler).
_BOUND: weakref.WeakSet[ModuleType] = weakref.WeakSet()


def bind_type_names(module: ModuleType) -> None:
    """Bind the package's types that the module's functions read but that it imports only
    under ``if TYPE_CHECKING:``. The build imports a name for real once code reads it at
    run time; a body edited to build a type since the last build would otherwise fail its
    calls with a NameError until the next one. Only such names load their types."""
    namespace = vars(module)
    if "TYPE_CHECKING" not in namespace or module in _BOUND:
        return
    _BOUND.add(module)
    read: set[str] = set()
    for value in list(namespace.values()):
        for code in _codes_of(value, module.__name__):
            # Generated type names are capitalised; most other names in co_names are
            # attributes (append, get), which need no look at the types.
            read.update(name for name in code.co_names if name[:1].isupper())
    missing = read - namespace.keys() - vars(builtins).keys()
    if not missing or not module.__package__:
        return
    try:
        types = importlib.import_module(".types", module.__package__)
    except ImportError:
        return
    for name in sorted(missing & set(getattr(types, "__all__", ()))):
        namespace[name] = getattr(types, name)


def _codes_of(value: object, module: str) -> Iterator[CodeType]:
    """The code of a function or of a class's methods defined in ``module``, with the code
    nested in it (inner functions, lambdas, comprehensions)."""
    if inspect.isclass(value):
        if value.__module__ != module:
            return
        functions = list(vars(value).values())
    else:
        functions = [value]
    for function in functions:
        try:
            inner = inspect.unwrap(function) if callable(function) else function
        except ValueError:  # a cycle of __wrapped__
            continue
        if inspect.isfunction(inner) and inner.__module__ == module:
            yield from _nested(inner.__code__)


def _nested(code: CodeType) -> Iterator[CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _nested(constant)
