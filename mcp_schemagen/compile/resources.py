"""Checked resources -> their IR: a static resource's contents (read from its file at
build time) or its reader, a template's reader with the template's variables as typed
keyword parameters (``str``, or a ``Literal`` alias for an enum), never colliding with a
tool's or a prompt's handler or a public type."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.prompts import LiteralAlias, PromptParameter
from mcp_schemagen.compile.type_names import Names
from mcp_schemagen.load.resource_content import read_content
from mcp_schemagen.naming import pascal_case, python_identifier, string_literal
from mcp_schemagen.runtime.resources.table import FILE_KEY, SCHEMA_KEY, ResourceRow
from mcp_schemagen.runtime.resources.uri_template import UriTemplate
from mcp_schemagen.source import Source

# Re-exported by types.py when a reader exists; no generated name may take them.
RESOURCE_TYPES = ("ResourceResult", "ResourceReturn")


@dataclass(frozen=True)
class CompiledResource:
    key: str  # its uri or uriTemplate
    name: str
    definition: dict[str, Any]
    file: str
    pointer: str
    function: str | None  # its reader in handlers.py; None when a file gives the content
    parameters: tuple[PromptParameter, ...]  # a template's variables
    aliases: tuple[LiteralAlias, ...]
    description: str | None
    contents: list[dict[str, Any]] | None

    returns = "ResourceReturn"

    def row(self) -> ResourceRow:
        row: ResourceRow = {
            "definition": self.definition,
            "variables": {p.json_name: p.python_name for p in self.parameters},
        }
        if self.contents is not None:
            row["contents"] = self.contents
        return row

    def type_references(self) -> frozenset[str]:
        if self.function is None:
            return frozenset()
        return frozenset({self.returns, *(a.name for a in self.aliases)})

    def signature_parameters(self) -> str:
        if not self.parameters:
            return ""
        return "*, " + ", ".join(p.signature() for p in self.parameters)


def compile_resources(
    sources: Sequence[Source], root: Path, functions: Names, types: Names
) -> list[CompiledResource]:
    """``functions`` and ``types``: the names tools and prompts took already."""
    compiled = []
    for source in sources:
        definition = source.definition
        name = str(definition["name"])
        contents = None
        if FILE_KEY in definition:
            contents, problems = read_content(root, source)
            assert not problems, "checked before compiling"
        function = None
        parameters: list[PromptParameter] = []
        aliases: list[LiteralAlias] = []
        if contents is None:
            base = "read_" + python_identifier(name).lstrip("_")
            function = functions.claim(base if base not in functions.used else base + "_resource")
            types.used.add(function)
        if source.is_template:
            prefix = pascal_case(name) + "Resource"
            schemas = definition.get(SCHEMA_KEY, {})
            for variable in UriTemplate.parse(source.key).variables:
                schema = schemas.get(variable.name, {})
                annotation = "str"
                enum = schema.get("enum")
                if isinstance(enum, list) and enum:
                    alias = types.claim(prefix + pascal_case(variable.name))
                    members = ", ".join(string_literal(v) for v in enum)
                    aliases.append(LiteralAlias(alias, f"Literal[{members}]"))
                    annotation = alias
                description = schema.get("description")
                parameters.append(
                    PromptParameter(
                        json_name=variable.name,
                        python_name=python_identifier(variable.name),
                        annotation=annotation,
                        required=variable.required,
                        description=description if isinstance(description, str) else None,
                    )
                )
            parameters.sort(key=lambda p: not p.required)
        description = definition.get("description")
        compiled.append(
            CompiledResource(
                key=source.key,
                name=name,
                definition=definition,
                file=source.file,
                pointer=source.pointer,
                function=function,
                parameters=tuple(parameters),
                aliases=tuple(aliases),
                description=description if isinstance(description, str) else None,
                contents=contents,
            )
        )
    return compiled


def readers(resources: Iterable[CompiledResource]) -> list[CompiledResource]:
    """The resources served by a reader in handlers.py."""
    return [r for r in resources if r.function is not None]


def taken_names(tools: Iterable[Any], prompts: Iterable[Any]) -> tuple[Names, Names]:
    """The function and type names tools and prompts hold (CompiledTool, CompiledPrompt),
    and those types.py and the handler module import, which no reader may take."""
    from mcp_schemagen.compile.prompts import PROMPT_TYPES
    from mcp_schemagen.compile.type_names import RESERVED_FUNCTION_NAMES

    tools, prompts = list(tools), list(prompts)
    taken = (
        set(RESERVED_FUNCTION_NAMES)
        | set(PROMPT_TYPES)
        | set(RESOURCE_TYPES)
        | {t.function for t in tools}
        | {e.public for t in tools for e in t.exports}
        | {p.function for p in prompts}
        | {a.name for p in prompts for a in p.aliases}
    )
    return Names(set(taken)), Names(set(taken))
