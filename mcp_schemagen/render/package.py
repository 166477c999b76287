"""IR -> the text of every generated file (jinja2 prints; names and escaping are decided
in Python beforehand), formatted by one ruff run over all Python modules."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from mcp_schemagen.compile.completions import COMPLETION_TYPES, CompiledCompleter
from mcp_schemagen.compile.ir import CONTENT_TYPES, CompiledTool
from mcp_schemagen.compile.prompts import PROMPT_TYPES, CompiledPrompt
from mcp_schemagen.compile.resources import RESOURCE_TYPES, CompiledResource, readers
from mcp_schemagen.compile.typegen import beyond_64_bits
from mcp_schemagen.load.config import Config
from mcp_schemagen.naming import docstring_literal, string_literal
from mcp_schemagen.package_data import data_dir
from mcp_schemagen.render.client import client_modules
from mcp_schemagen.render.formatting import format_modules
from mcp_schemagen.render.output import OutputFile
from mcp_schemagen.render.provenance import header, sha256_text
from mcp_schemagen.render.runtime_copy import runtime_path, runtime_sources
from mcp_schemagen.render.upstream import upstream_modules
from mcp_schemagen.runtime.core.listing import DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS
from mcp_schemagen.runtime.registry import DispatchRow


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(data_dir("templates") / "package"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Python source, escaped by mcp_schemagen.naming before it gets here
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


def dispatch_row(tool: CompiledTool) -> DispatchRow:
    # The definition once (not each revision's form): the runtime derives the forms with
    # the same Revision.publish_tool the build checked them with (issue 9, point 22).
    return {
        "definition": tool.definition,
        "arguments": {p.json_name: p.python_name for p in tool.parameters},
        "defaults": {
            p.json_name: p.schema_default for p in tool.parameters if p.has_schema_default
        },
        "whole_arguments": tool.whole_arguments,
    }


def _ordered_row(row: DispatchRow) -> dict[str, Any]:
    # The JSON's keys in the TypedDict's order, however the row was built.
    plain: dict[str, Any] = dict(row)
    return {key: plain[key] for key in DispatchRow.__annotations__ if key in plain}


def raw_json_literal_body(value: Any) -> str:
    """JSON text safe inside ``r\"\"\"...\"\"\"``: a raw string keeps every JSON escape for the
    JSON parser, and JSON text never holds three unescaped ``"`` in a row (inside a string
    each is ``\\"``; between tokens stand ``,`` ``:`` or white space). ASCII only, and ``'``
    as the JSON escape \\u0027, so the text is safe between either kind of triple quotes."""
    return json.dumps(value, indent=1, ensure_ascii=True).replace("'", "\\u0027")


def _server_options(config: Config) -> list[str]:
    """``Server`` keyword arguments for the configuration keys a project set (the runtime's
    defaults are left out, so the dispatch module says only what the project chose)."""
    options = []
    if config.instructions is not None:
        options.append(f"instructions={string_literal(config.instructions)}")
    if config.ttl_ms != DEFAULT_TTL_MS:
        options.append(f"ttl_ms={config.ttl_ms}")
    if config.cache_scope != DEFAULT_CACHE_SCOPE:
        options.append(f"cache_scope={string_literal(config.cache_scope)}")
    if config.list_changed:
        options.append(f"list_changed={config.list_changed!r}")
    if config.resource_subscriptions:
        options.append("subscribe=True")
    return options


# (path relative to the package, text before formatting) -> the formatted text an earlier
# build made of exactly that text, or None.
Reuse = Callable[[str, str], str | None]


def _completer_rows(completers: Sequence[CompiledCompleter], kind: str) -> list[dict[str, str]]:
    return [
        {"key_literal": string_literal(c.key), "function_literal": string_literal(c.function)}
        for c in completers
        if c.kind == kind
    ]


def no_reuse(relative: str, unformatted: str) -> None:
    return None


@dataclass(frozen=True)
class RenderedPackage:
    files: list[OutputFile]
    # path relative to the package -> digest of the module's text before formatting, which
    # the build record keeps so that the next build formats only the modules that changed
    unformatted: dict[str, str]


def render_package(
    config: Config,
    tools: Sequence[CompiledTool],
    inputs: dict[str, str],
    reuse: Reuse = no_reuse,
    prompts: Sequence[CompiledPrompt] = (),
    resources: Sequence[CompiledResource] = (),
    completers: Sequence[CompiledCompleter] = (),
) -> RenderedPackage:
    """Every generated module of the package except the protocol models and handlers.

    Each header lists the inputs its module depends on, so editing one tool file changes
    the headers of that tool's modules and of the shared ones, not of every module."""
    top = header(inputs.items())
    table = {t.name: _ordered_row(dispatch_row(t)) for t in tools}
    prompt_table = {p.name: dict(p.row()) for p in prompts}
    resource_table = [dict(r.row()) for r in resources]
    aliases = [a for p in prompts for a in p.aliases] + [a for r in resources for a in r.aliases]
    has_readers = bool(readers(resources))
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
        "api.py": _template("api.py.jinja", header=header([])),
        "_authorization.py": _template(
            "_authorization.py.jinja",
            header=settings,
            package=config.package,
            defaults=python_value(dict(config.authorization)),
        ),
        "asgi.py": _template("asgi.py.jinja", header=settings, package=config.package),
        "_dispatch.py": _template(
            "_dispatch.py.jinja",
            header=top,
            data=raw_json_literal_body(table),
            exact_integers=beyond_64_bits(table)
            or beyond_64_bits(prompt_table)
            or beyond_64_bits(resource_table),
            prompt_data=raw_json_literal_body(prompt_table),
            prompts=[
                {
                    "name_literal": string_literal(p.name),
                    "function_literal": string_literal(p.function),
                }
                for p in prompts
            ],
            resource_data=raw_json_literal_body(resource_table) if resources else "",
            resources=bool(resources),
            readers=[
                {
                    "key_literal": string_literal(r.key),
                    "function_literal": string_literal(r.function or ""),
                }
                for r in readers(resources)
            ],
            prompt_completers=_completer_rows(completers, "prompt"),
            resource_completers=_completer_rows(completers, "resource"),
            tools=[
                {
                    "name_literal": string_literal(t.name),
                    "function_literal": string_literal(t.function),
                }
                for t in tools
            ],
            server_name=string_literal(config.server_name),
            server_version=string_literal(config.server_version),
            revisions=python_value(config.revisions),
            page_size=config.page_size,
            options=_server_options(config),
        ),
        "types.py": _template(
            "types.py.jinja",
            header=top,
            exports=[e for t in tools for e in t.exports],
            prompt_types=bool(prompts),
            resource_types=has_readers,
            completion_types=bool(completers),
            literal_aliases=aliases,
            all_names=[
                *(COMPLETION_TYPES if completers else ()),
                *CONTENT_TYPES,
                *(PROMPT_TYPES if prompts else ()),
                *(RESOURCE_TYPES if has_readers else ()),
                *(e.public for t in tools for e in t.exports),
                *(a.name for a in aliases),
            ],
        ),
        "_types/__init__.py": header([])
        + '"""Types of each tool, one private module per tool and direction."""\n',
    }
    # The typed client (README, "Typed client"): imports `mcp` (the `client` extra) and is
    # imported by nothing the server runs.
    files |= client_modules(
        _template,
        header=top,
        machinery_header=header([]),
        server_name=config.server_name,
        server_module=config.package,
        tools=tools,
        prompts=prompts,
        resources=resources,
    )
    files |= upstream_modules(_template, header=top, machinery_header=header([]), tools=tools)
    for tool in tools:
        own = header([(tool.file, inputs[tool.file])])
        files[f"_types/{tool.input_module}.py"] = own + tool.input_types.source
        if tool.output_module is not None and tool.output_types is not None:
            files[f"_types/{tool.output_module}.py"] = own + tool.output_types.source
    rendered = dict(sorted(files.items()))
    done = {name: reuse(name, text) for name, text in rendered.items()}
    # Only modules whose text changed since the build on disk are sorted and formatted again.
    pending = [name for name, text in done.items() if text is None]
    sources = [rendered[name] for name in pending]
    formatted = dict(zip(pending, format_modules(sources), strict=True))
    outputs = [OutputFile(package / name, done[name] or formatted[name]) for name in rendered]
    # Copied as they are: the runtime sources are formatted already (a test keeps them
    # so), and a comment header does not change that.
    runtime_header = header([], note="Runtime of the generated server, copied from mcp-codegen.")
    for source in runtime_sources():
        text = runtime_header + source.read_text(encoding="utf-8")
        outputs.append(OutputFile(package / "_runtime" / runtime_path(source), text))
    return RenderedPackage(outputs, {name: sha256_text(text) for name, text in rendered.items()})
