"""Which function answers each tool: the function of the generated name that the handler
module defines itself, looked up in the module's namespace.

Never ``getattr(handlers, name)``: attribute lookup on a module also finds what its type
defines (a tool named ``__class__`` or ``__dict__`` would be answered by the module type
or its namespace), and a module-level ``__getattr__`` answers any name at all. A name
that does not lead to a function of the handler module stops the server at start-up
with what to do, rather than answering calls with something else.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import ModuleType
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
