"""What the generator wants of the handler module, made from the Project."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from mcp_schemagen.compile.completions import COMPLETION_PARAMETERS
from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.compile.project import Project
from mcp_schemagen.compile.prompts import CompiledPrompt
from mcp_schemagen.compile.resources import CompiledResource
from mcp_schemagen.handlers.spec import HandlerModuleSpec, HandlerSpec
from mcp_schemagen.naming import docstring_literal
from mcp_schemagen.render.upstream import stub_body


def input_schema_digest(definition: Mapping[str, Any], field: str = "inputSchema") -> str:
    """The digest of what a handler takes (a tool's inputSchema, a prompt's arguments),
    key order aside, as `breaking` compares them when it asks "renamed?"."""
    text = json.dumps(definition.get(field), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def handler_module_spec(project: Project) -> HandlerModuleSpec:
    """One handler per tool, per prompt, per resource reader and per completion handler
    (in that order, each in file order), and the generated import of exactly the types they
    name."""
    config, prompts, reading = project.server, project.prompts, project.readers
    used = project.handler_imports
    imports = f"from .types import {', '.join(used)}" if used else ""
    kinds = (
        ("Tool and prompt", "each tool and prompt", "tool or prompt")
        if prompts
        else ("Tool", "each tool", "tool")
    )
    docstring = docstring_literal(
        f"{kinds[0]} handlers of {config.server_name}: the one module of this package you edit.\n\n"
        f"mcp-codegen wrote a stub for {kinds[1]}. Fill in the bodies; `mcp-codegen build` keeps\n"
        "them, updating only each handler's parameters and return type (and the import from\n"
        f"`.types`) when the {kinds[2]} schemas change. A handler may be `async def`. What handler\n"
        "code may use (content, results, errors, the context) is in `.api`.\n\n"
        "Types only annotations name are imported under `if TYPE_CHECKING:`, so the server\n"
        "starts without loading them; a build moves a type your code uses at run time\n"
        "(`Output(...)`, `isinstance`) to a plain import.",
        indent="",
    )
    if reading:
        docstring = docstring_literal(
            f"Tool, prompt and resource handlers of {config.server_name}: the one module you edit.\n\n"
            "mcp-codegen wrote a stub for each tool, prompt and resource reader. Fill in the\n"
            "bodies; `mcp-codegen build` keeps them, updating only each handler's parameters and\n"
            "return type (and the import from `.types`) when the schemas change. A handler may\n"
            "be `async def`. What handler code may use (content, results, errors, the context)\n"
            "is in `.api`.\n\n"
            "Types only annotations name are imported under `if TYPE_CHECKING:`, so the server\n"
            "starts without loading them; a build moves a type your code uses at run time\n"
            "(`Output(...)`, `isinstance`) to a plain import.",
            indent="",
        )
    handlers = [
        HandlerSpec(
            function=tool.function,
            tool=tool.name,
            parameters=tool.signature_parameters(),
            returns=tool.returns,
            docstring=_handler_docstring(tool),
            schema_digest=input_schema_digest(tool.definition),
            body=stub_body(tool),
        )
        for tool in project.tools
    ]
    handlers += [
        HandlerSpec(
            function=prompt.function,
            tool=prompt.name,
            parameters=prompt.signature_parameters(),
            returns=prompt.returns,
            docstring=_prompt_docstring(prompt),
            kind="prompt",
            schema_digest=input_schema_digest(prompt.definition, "arguments"),
        )
        for prompt in prompts
    ]
    handlers += [
        HandlerSpec(
            function=resource.function,
            tool=resource.key,
            parameters=resource.signature_parameters(),
            returns=resource.returns,
            docstring=_prompt_docstring(resource),
            kind="resource",
        )
        for resource in reading
        if resource.function is not None
    ]
    handlers += [
        HandlerSpec(
            function=completer.function,
            tool=completer.key,
            parameters=COMPLETION_PARAMETERS,
            returns=completer.returns,
            docstring=completer.docstring(),
            kind="completion",
        )
        for completer in project.completers
    ]
    type_names = frozenset(project.type_names)
    return HandlerModuleSpec(
        docstring=docstring, managed_imports=imports, handlers=handlers, type_names=type_names
    )


def _handler_docstring(tool: CompiledTool) -> str | None:
    """The tool's description, then an Args section with each parameter's description
    (Google style, which editors show on hover)."""
    parts = [tool.description.strip()] if tool.description and tool.description.strip() else []
    entries = []
    for parameter in tool.parameters:
        text = parameter.description
        lines = [line.strip() for line in text.strip().splitlines()] if text else []
        if parameter.has_schema_default and isinstance(parameter.schema_default, list | dict):
            lines += [
                f"Default {_json(parameter.schema_default)}: the server passes a fresh copy",
                "when the argument is omitted (None only in a direct call).",
            ]
        if lines:
            first, *more = lines
            entries.append(
                f"    {parameter.python_name}: {first}" + "".join(f"\n        {m}" for m in more)
            )
    if entries:
        parts.append("Args:\n" + "\n".join(entries))
    return docstring_literal("\n\n".join(parts)) if parts else None


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _prompt_docstring(prompt: CompiledPrompt | CompiledResource) -> str | None:
    """The prompt's (or resource's) description, then an Args section from its arguments'
    (or template variables') descriptions."""
    parts = (
        [prompt.description.strip()] if prompt.description and prompt.description.strip() else []
    )
    entries = []
    for parameter in prompt.parameters:
        text = parameter.description
        if text is not None and text.strip():
            first, *more = [line.strip() for line in text.strip().splitlines()]
            entries.append(
                f"    {parameter.python_name}: {first}" + "".join(f"\n        {m}" for m in more)
            )
    if entries:
        parts.append("Args:\n" + "\n".join(entries))
    return docstring_literal("\n\n".join(parts)) if parts else None
