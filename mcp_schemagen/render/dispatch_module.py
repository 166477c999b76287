"""PACKAGE/_dispatch.py from the Project: the dispatch data of every tool, prompt and
resource as one JSON literal, the handlers each row names, and the Server's options."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcp_schemagen.compile.completions import CompiledCompleter
from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.compile.project import Project
from mcp_schemagen.compile.type_shield import beyond_64_bits
from mcp_schemagen.load.config import Config
from mcp_schemagen.naming import string_literal
from mcp_schemagen.render.provenance import header
from mcp_schemagen.render.templates import python_value, template
from mcp_schemagen.runtime.core.listing import DEFAULT_CACHE_SCOPE, DEFAULT_TTL_MS
from mcp_schemagen.runtime.registry import DispatchRow


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


def _completer_rows(completers: Sequence[CompiledCompleter], kind: str) -> list[dict[str, str]]:
    return [
        {"key_literal": string_literal(c.key), "function_literal": string_literal(c.function)}
        for c in completers
        if c.kind == kind
    ]


def _named(name: str, function: str) -> dict[str, str]:
    return {"name_literal": string_literal(name), "function_literal": string_literal(function)}


def dispatch_module(project: Project) -> dict[str, str]:
    config = project.server
    table = {t.name: _ordered_row(dispatch_row(t)) for t in project.tools}
    prompt_table = {p.name: dict(p.row()) for p in project.prompts}
    # A skill's files are static resources after the project's own (compile/skills.py).
    resource_table = [dict(r.row()) for r in project.resources]
    resource_table += [dict(row) for skill in project.skills for row in skill.files]
    skill_table = [skill.entry for skill in project.skills]
    text = template(
        "_dispatch.py.jinja",
        header=header(project.provenance.items()),
        data=raw_json_literal_body(table),
        exact_integers=beyond_64_bits(table)
        or beyond_64_bits(prompt_table)
        or beyond_64_bits(resource_table)
        or beyond_64_bits(skill_table),
        prompt_data=raw_json_literal_body(prompt_table),
        prompts=[_named(p.name, p.function) for p in project.prompts],
        resource_data=raw_json_literal_body(resource_table) if resource_table else "",
        resources=bool(resource_table),
        skill_data=raw_json_literal_body(skill_table) if skill_table else "",
        skills=bool(skill_table),
        readers=[
            {
                "key_literal": string_literal(r.key),
                "function_literal": string_literal(r.function or ""),
            }
            for r in project.readers
        ],
        prompt_completers=_completer_rows(project.completers, "prompt"),
        resource_completers=_completer_rows(project.completers, "resource"),
        tools=[_named(t.name, t.function) for t in project.tools],
        server_name=string_literal(config.server_name),
        server_version=string_literal(config.server_version),
        revisions=python_value(config.revisions),
        page_size=config.page_size,
        options=_server_options(config),
    )
    return {"_dispatch.py": text}
