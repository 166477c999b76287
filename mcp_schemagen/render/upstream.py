"""PACKAGE/_http.py and PACKAGE/_upstream.py, for a project with tools that carry an
``x-mcp-codegen-http`` (written by ``mcp-codegen import openapi``): the shared HTTP
machinery, and one typed async function per such tool that its handler stub calls."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.load.http_call import HTTP_KEY
from mcp_schemagen.naming import docstring_literal, string_literal

UPSTREAM_MODULE = "_upstream"
# The name `.types` gives the _upstream module (loaded on first use), so that a stub is the
# one line `return await upstream.op(...)` and imports it as it imports the types.
UPSTREAM_NAME = "upstream"


def http_tools(tools: Sequence[CompiledTool]) -> list[CompiledTool]:
    return [tool for tool in tools if isinstance(tool.definition.get(HTTP_KEY), dict)]


def _operation(tool: CompiledTool) -> dict[str, Any]:
    http = dict(tool.definition[HTTP_KEY])
    http.pop("from", None)  # where it came from: for people, not for the call
    http["output"] = "outputSchema" in tool.definition
    return http


def _arguments(tool: CompiledTool) -> str:
    if tool.whole_arguments is not None:
        return f"dict({tool.whole_arguments})"
    pairs = ", ".join(f"{string_literal(p.json_name)}: {p.python_name}" for p in tool.parameters)
    return "{" + pairs + "}" if pairs else "{}"


def upstream_modules(
    template: Callable[..., str],
    *,
    header: str,
    machinery_header: str,
    tools: Sequence[CompiledTool],
) -> dict[str, str]:
    """The two modules (relative path -> text before formatting), or none without such tools."""
    calling = http_tools(tools)
    if not calling:
        return {}
    table = {tool.name: _operation(tool) for tool in calling}
    data = json.dumps(table, indent=1, ensure_ascii=True).replace("'", "\\u0027")
    names = sorted({name for tool in calling for name in tool.type_references()})
    calls = [
        {
            "function": tool.function,
            "parameters": tool.signature_parameters(),
            "returns": tool.returns,
            "returns_literal": string_literal(tool.returns),
            "docstring": docstring_literal(
                f"{tool.definition[HTTP_KEY]['method']} {tool.definition[HTTP_KEY]['path']}"
                f" of {tool.definition[HTTP_KEY]['api']}."
            ),
            "arguments": _arguments(tool),
            "key": string_literal(tool.name),
        }
        for tool in calling
    ]
    return {
        "_http.py": template("_http.py.jinja", header=machinery_header),
        f"{UPSTREAM_MODULE}.py": template(
            "_upstream.py.jinja", header=header, names=names, data=data, calls=calls
        ),
    }


def stub_body(tool: CompiledTool) -> str | None:
    """The body of a new handler stub for a tool with an HTTP call: the call, returned."""
    if not isinstance(tool.definition.get(HTTP_KEY), dict):
        return None
    if tool.whole_arguments is not None:
        passed = tool.whole_arguments
    else:
        passed = ", ".join(f"{p.python_name}={p.python_name}" for p in tool.parameters)
    return f"return await {UPSTREAM_NAME}.{tool.function}({passed})"
