"""What the generator wants of the handler module, made from the compiled tools."""

from __future__ import annotations

from collections.abc import Sequence

from mcp_schemagen.config import Config
from mcp_schemagen.handlers.spec import HandlerModuleSpec, HandlerSpec
from mcp_schemagen.ir import Tool
from mcp_schemagen.naming import docstring_literal
from mcp_schemagen.render import CONTENT_TYPES


def handler_module_spec(config: Config, tools: Sequence[Tool]) -> HandlerModuleSpec:
    """One handler per tool, and the generated import of exactly the types they name."""
    used = sorted({name for tool in tools for name in tool.type_references()})
    imports = f"from .types import {', '.join(used)}" if used else ""
    docstring = docstring_literal(
        f"Tool handlers of {config.server_name}: the one module of this package you edit.\n\n"
        "mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps\n"
        "them, updating only each handler's parameters and return type (and the import from\n"
        "`.types`) when the tool schemas change. A handler may be `async def`. What handler\n"
        "code may use (content, results, errors, the context) is in `.api`.",
        indent="",
    )
    handlers = [
        HandlerSpec(
            function=tool.function,
            tool=tool.name,
            parameters=tool.signature_parameters(),
            returns=tool.returns,
            docstring=docstring_literal(tool.description) if tool.description else None,
        )
        for tool in tools
    ]
    type_names = frozenset(
        [*CONTENT_TYPES, *(export.public for tool in tools for export in tool.exports)]
    )
    return HandlerModuleSpec(
        docstring=docstring, managed_imports=imports, handlers=handlers, type_names=type_names
    )
