"""IR -> the text of every generated file (jinja2 prints; names and escaping are decided
in Python beforehand), black run once over each Python module."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from codegen.config import Config
from codegen.formatting import format_python
from codegen.ir import Tool
from codegen.merge import HandlerModuleSpec, HandlerSpec
from codegen.naming import docstring_literal, string_literal
from codegen.provenance import header
from codegen.resources import data_dir
from codegen.runtime_files import runtime_sources
from codegen.write import OutputFile


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(data_dir("templates") / "package"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Python source, escaped by codegen.naming before it gets here
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _template(name: str, **values: Any) -> str:
    return _environment().get_template(name).render(**values)


def python_value(value: Any) -> str:
    """A Python expression equal to a JSON value (key order kept). repr escapes every
    character that is not printable, so schema text cannot break out of its literal."""
    return repr(value)


def _dispatch_data(tool: Tool) -> dict[str, Any]:
    definition = tool.source.definition
    forms: list[dict[str, Any]] = []
    published: dict[str, int] = {}
    for revision, form in tool.published.items():
        if form not in forms:
            forms.append(form)
        published[revision] = forms.index(form)
    row: dict[str, Any] = {"forms": forms, "published": published}
    newest = forms[published[max(published)]]
    if newest.get("outputSchema") != definition.get("outputSchema"):
        # Only when the newest revision cannot publish it (a non-object schema before
        # 2026-07-28): otherwise the server reads it from that form, stored once.
        row["output_schema"] = definition.get("outputSchema")
    return row | {
        "arguments": {p.json_name: p.python_name for p in tool.parameters},
        "defaults": {
            p.json_name: p.schema_default for p in tool.parameters if p.has_schema_default
        },
        "whole_arguments": tool.whole_arguments,
    }


def raw_json_literal_body(value: Any) -> str:
    """JSON text safe inside ``r\"\"\"...\"\"\"``: a raw string keeps every JSON escape for the
    JSON parser, and JSON text never holds three unescaped ``"`` in a row (inside a string
    each is ``\\"``; between tokens stand ``,`` ``:`` or white space). ASCII only, and ``'``
    as the JSON escape \\u0027, so the text is safe between either kind of triple quotes."""
    return json.dumps(value, indent=1, ensure_ascii=True).replace("'", "\\u0027")


def handler_module_spec(config: Config, tools: Sequence[Tool]) -> HandlerModuleSpec:
    used = sorted({name for tool in tools for name in _names_in_signature(tool)})
    imports = f"from .types import {', '.join(used)}" if used else ""
    docstring = docstring_literal(
        f"Tool handlers of {config.server_name}: the one module of this package you edit.\n\n"
        "mcp-codegen wrote a stub for each tool. Fill in the bodies; `mcp-codegen build` keeps\n"
        "them, updating only each handler's parameters and return type (and the import from\n"
        "`.types`) when the tool schemas change. A handler may be `async def`.",
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
    return HandlerModuleSpec(docstring=docstring, managed_imports=imports, handlers=handlers)


def _names_in_signature(tool: Tool) -> set[str]:
    public = {export.public for export in tool.exports}
    text = tool.signature_parameters() + " " + tool.returns
    found = {name for name in public if name in _identifiers(text)}
    if tool.output_type is None:
        found.add("ContentBlock")
    return found


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def render_package(
    config: Config, tools: Sequence[Tool], inputs: dict[str, str], cache_dir: Path | None = None
) -> list[OutputFile]:
    """Every generated module of the package except the protocol models and handlers.

    Each header lists the inputs its module depends on, so editing one tool file changes
    the headers of that tool's modules and of the shared ones, not of every module."""
    top = header(inputs.items())
    settings = header([("pyproject.toml", inputs["pyproject.toml"])])
    package = config.package_dir
    files = {
        "__init__.py": _template(
            "__init__.py.jinja",
            header=settings,
            docstring=docstring_literal(
                f"{config.server_name}: an MCP server generated by mcp-codegen.\n\n"
                f"Serve it with `python -m {config.package}`; write the tools in `handlers.py`.",
                indent="",
            ),
        ),
        "__main__.py": _template("__main__.py.jinja", header=settings, package=config.package),
        "_dispatch.py": _template(
            "_dispatch.py.jinja",
            header=top,
            data=raw_json_literal_body({t.name: _dispatch_data(t) for t in tools}),
            tools=[{"name_literal": string_literal(t.name), "function": t.function} for t in tools],
            server_name=string_literal(config.server_name),
            server_version=string_literal(config.server_version),
            revisions=python_value(config.revisions),
            page_size=config.page_size,
        ),
        "types.py": _template(
            "types.py.jinja",
            header=top,
            exports=sorted((e for t in tools for e in t.exports), key=lambda e: e.public),
        ),
        "_types/__init__.py": header([])
        + '"""Types of each tool, one private module per tool and direction."""\n',
    }
    for tool in tools:
        own = header([(tool.source.file, inputs[tool.source.file])])
        files[f"_types/{tool.input_module}.py"] = own + tool.input_types.source
        if tool.output_module is not None and tool.output_types is not None:
            files[f"_types/{tool.output_module}.py"] = own + tool.output_types.source
    outputs = [
        OutputFile(package / name, format_python(text, cache_dir))
        for name, text in sorted(files.items())
    ]
    # Copied as they are: the runtime sources are black-formatted already (a test keeps
    # them so), and a comment header does not change that.
    runtime_header = header([], note="Runtime of the generated server, copied from mcp-codegen.")
    for source in runtime_sources():
        text = runtime_header + source.read_text(encoding="utf-8")
        outputs.append(OutputFile(package / "_runtime" / source.name, text))
    return outputs
