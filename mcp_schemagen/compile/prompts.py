"""Checked prompts -> their IR: the handler's name and keyword parameters, each typed by
its argument's schema (``str``, or a ``Literal`` alias for an enum), never colliding with
a tool's handler or a public type."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_schemagen.compile.ir import CompiledTool
from mcp_schemagen.compile.type_names import RESERVED_FUNCTION_NAMES, Names
from mcp_schemagen.naming import pascal_case, python_identifier, string_literal
from mcp_schemagen.runtime.prompts.table import SCHEMA_KEY, PromptRow
from mcp_schemagen.source import Source

# Re-exported by types.py beside the content types; no generated name may take them.
PROMPT_TYPES = ("PromptMessage", "PromptResult", "PromptReturn")


@dataclass(frozen=True)
class PromptParameter:
    json_name: str
    python_name: str
    annotation: str  # Python source: str, or a public Literal alias
    required: bool
    description: str | None

    def signature(self) -> str:
        return f"{self.python_name}: {self.annotation}" + (
            "" if self.required else " | None = None"
        )


@dataclass(frozen=True)
class LiteralAlias:
    """``Name = Literal["a", "b"]`` in types.py, for an argument whose schema is an enum."""

    name: str
    source: str  # the Literal expression


@dataclass(frozen=True)
class CompiledPrompt:
    name: str
    definition: dict[str, Any]
    file: str
    pointer: str
    function: str
    parameters: tuple[PromptParameter, ...]
    aliases: tuple[LiteralAlias, ...]
    description: str | None

    returns = "PromptReturn"

    def row(self) -> PromptRow:
        return {
            "definition": self.definition,
            "arguments": {p.json_name: p.python_name for p in self.parameters},
        }

    def type_references(self) -> frozenset[str]:
        return frozenset({"PromptReturn", *(a.name for a in self.aliases)})

    def signature_parameters(self) -> str:
        if not self.parameters:
            return ""
        return "*, " + ", ".join(p.signature() for p in self.parameters)


def compile_prompts(
    sources: Sequence[Source], tools: Iterable[CompiledTool]
) -> list[CompiledPrompt]:
    tools = list(tools)
    functions = Names(
        set(RESERVED_FUNCTION_NAMES)
        | set(PROMPT_TYPES)
        | {t.function for t in tools}
        | {e.public for t in tools for e in t.exports}
    )
    types = Names(
        {*PROMPT_TYPES, *RESERVED_FUNCTION_NAMES, *(e.public for t in tools for e in t.exports)}
        | {t.function for t in tools}
    )
    compiled = []
    for source in sources:
        definition = source.definition
        name = str(definition["name"])
        function = python_identifier(name)
        if function.startswith("__") and function.endswith("__"):
            function += "_"
        function = functions.claim(
            function if function not in functions.used else function + "_prompt"
        )
        types.used.add(function)
        prefix = pascal_case(name) + "Prompt"
        parameters, aliases = [], []
        for argument in definition.get("arguments", []):
            schema = argument.get(SCHEMA_KEY, {})
            annotation = "str"
            enum = schema.get("enum") if isinstance(schema, dict) else None
            if isinstance(enum, list) and enum:
                alias = types.claim(prefix + pascal_case(argument["name"]))
                members = ", ".join(string_literal(v) for v in enum)
                aliases.append(LiteralAlias(alias, f"Literal[{members}]"))
                annotation = alias
            description = argument.get("description")
            parameters.append(
                PromptParameter(
                    json_name=argument["name"],
                    python_name=python_identifier(argument["name"]),
                    annotation=annotation,
                    required=argument.get("required") is True,
                    description=description if isinstance(description, str) else None,
                )
            )
        parameters.sort(key=lambda p: not p.required)
        description = definition.get("description")
        compiled.append(
            CompiledPrompt(
                name=name,
                definition=definition,
                file=source.file,
                pointer=source.pointer,
                function=function,
                parameters=tuple(parameters),
                aliases=tuple(aliases),
                description=description if isinstance(description, str) else None,
            )
        )
    return compiled
