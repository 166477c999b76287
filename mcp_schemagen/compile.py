"""Checked tool sources -> the IR the templates print: names, parameters, types."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.ir import CONTENT_TYPES, Parameter, Tool, TypeExport
from mcp_schemagen.naming import pascal_case, python_identifier
from mcp_schemagen.publish import all_published
from mcp_schemagen.tools import ToolSource
from mcp_schemagen.typegen import TypedModule, typed_module

_SIMPLE_NAMES = frozenset({"str", "int", "float", "bool", "None", "list", "dict"})
_SCALARS = (str, int, float, bool, type(None))
# Names the handler module imports from the generated package; a handler may not shadow them.
RESERVED_FUNCTION_NAMES = frozenset({"annotations", *CONTENT_TYPES})
# Root keywords that make "one keyword parameter per property" lose meaning.
_COMPOSITE_ROOT = frozenset(
    {
        "oneOf",
        "anyOf",
        "allOf",
        "not",
        "if",
        "$ref",
        "$dynamicRef",
        "patternProperties",
        "dependentSchemas",
        "unevaluatedProperties",
        "propertyNames",
    }
)


@dataclass
class _Names:
    """Public names handed out so far; each new one is made unique deterministically."""

    used: set[str] = field(default_factory=set)

    def claim(self, wanted: str) -> str:
        candidate, counter = wanted, 2
        while candidate in self.used:
            candidate, counter = f"{wanted}{counter}", counter + 1
        self.used.add(candidate)
        return candidate


def _is_simple(annotation: str) -> bool:
    tree = ast.parse(annotation, mode="eval")
    return all(
        node.id in _SIMPLE_NAMES for node in ast.walk(tree) if isinstance(node, ast.Name)
    ) and not any(
        isinstance(node, ast.Constant) and node.value is not None for node in ast.walk(tree)
    )


def _python_literal(value: Any) -> str:
    return repr(value)  # only scalars reach here; repr escapes what is not printable


def _keyword_parameters_fit(schema: Any) -> bool:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return False
    if any(key in schema for key in _COMPOSITE_ROOT):
        return False
    return not isinstance(schema.get("additionalProperties"), dict)


def _parameters(
    tool_file: str,
    pointer: str,
    schema: dict[str, Any],
    types: TypedModule,
    public: dict[str, str],
    prefix: str,
    names: _Names,
) -> tuple[list[Parameter], list[tuple[str, str]], list[Diagnostic]]:
    """Keyword parameters, one per property. A property typed by one named class of the
    tool's module uses that class's public name; any other non-builtin type gets a
    public alias (returned, to be added to the module), so signatures stay short."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    seen: dict[str, str] = {}
    problems: list[Diagnostic] = []
    aliases: list[tuple[str, str]] = []
    parameters: list[Parameter] = []
    for json_name, subschema in properties.items():
        python_name = python_identifier(json_name)
        where = pointer_join(pointer, "inputSchema", "properties", json_name)
        if python_name in seen:
            problems.append(
                error(
                    tool_file,
                    where,
                    f"property {json_name!r} and property {seen[python_name]!r} both become the "
                    f"Python parameter {python_name!r}; rename one of them",
                )
            )
            continue
        seen[python_name] = json_name
        annotation = types.fields.get(json_name, "Any")
        references: frozenset[str] = frozenset()
        if annotation in public:
            annotation = public[annotation]
            references = frozenset({annotation})
        elif not _is_simple(annotation):
            alias = names.claim(prefix + pascal_case(json_name))
            aliases.append((alias, annotation))
            annotation = alias
            references = frozenset({alias})
        default = subschema.get("default") if isinstance(subschema, dict) else None
        has_default = isinstance(subschema, dict) and "default" in subschema
        if json_name in required:
            default_source = None
        elif has_default and isinstance(default, _SCALARS):
            default_source = _python_literal(default)
        elif has_default:
            default_source = None  # mutable default: the dispatcher passes a fresh copy
        else:
            annotation = annotation if annotation.endswith("None") else f"{annotation} | None"
            default_source = "None"
        parameters.append(
            Parameter(
                json_name, python_name, annotation, references, default_source, has_default, default
            )
        )
    # Parameters without a default first, in schema order; Python requires nothing here
    # (they are keyword-only) but it reads like the schema's "required".
    parameters.sort(key=lambda p: p.default_source is not None)
    return parameters, aliases, problems


_TYPING = frozenset({"Any", "Literal", "NotRequired", "Required", "TypeAlias", "TypedDict"})


def _typing_names(annotation: str) -> set[str]:
    """Names from ``typing`` an annotation uses: an alias must import what it names."""
    tree = ast.parse(annotation, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in _TYPING}


def _with_aliases(types: TypedModule, aliases: list[tuple[str, str]]) -> TypedModule:
    if not aliases:
        return types
    definitions = "\n".join(f"{alias}: TypeAlias = {annotation}" for alias, annotation in aliases)
    # The import joins the others at the top, after `from __future__` (which must be first).
    head, future, rest = types.source.partition("from __future__ import annotations\n")
    used = {"TypeAlias"} | {name for _, annotation in aliases for name in _typing_names(annotation)}
    for name in sorted(used):
        if not re.search(rf"^from typing import .*\b{name}\b", rest, re.MULTILINE):
            rest = f"from typing import {name}\n" + rest
    source = f"{head}{future}{rest}\n\n{definitions}\n"
    return TypedModule(
        source,
        types.root,
        types.fields,
        types.names | {alias for alias, _ in aliases},
    )


def _exports(
    module: str, types: TypedModule, prefix: str, names: _Names, already: set[str]
) -> list[TypeExport]:
    exports = []
    for local in sorted(types.names):
        if local in already:
            public = local
        else:
            public = names.claim(local if local.startswith(prefix) else prefix + local)
        exports.append(TypeExport(public, module, local))
    return exports


@dataclass(frozen=True)
class _ToolNames:
    source: ToolSource
    function: str
    prefix: str  # of every public type of the tool
    input_name: str
    output_name: str


def _claim_prefix(names: _Names, prefixes: set[str], wanted: str) -> str:
    """A prefix no other tool has, whose Input and Output names are free (claimed with it).
    The prefix alone names nothing, so it may equal a handler name (tool ``A``)."""
    candidate, counter = wanted, 2
    while candidate in prefixes or {f"{candidate}Input", f"{candidate}Output"} & names.used:
        candidate, counter = f"{wanted}{counter}", counter + 1
    prefixes.add(candidate)
    names.used.update({f"{candidate}Input", f"{candidate}Output"})
    return candidate


def _tool_names(
    sources: Sequence[ToolSource], names: _Names
) -> tuple[list[_ToolNames], list[Diagnostic]]:
    """Every tool's handler name and root type names, decided before any nested type is
    named: handlers and types share the handler module's namespace, and a nested type
    (tool ``A``'s property ``b_input``) must never take a root name (tool ``a_b``'s
    ``ABInput``), so the root names are all reserved first."""
    problems: list[Diagnostic] = []
    functions: dict[str, ToolSource] = {}
    for source in sorted(sources, key=lambda s: str(s.definition["name"])):
        name = str(source.definition["name"])
        function = python_identifier(name)
        if function in RESERVED_FUNCTION_NAMES:
            function += "_"
        if function in functions:
            other = functions[function]
            problems.append(
                error(
                    source.file,
                    pointer_join(source.pointer, "name"),
                    f"tool {name!r} and tool {other.definition['name']!r} "
                    f"({other.file}#{other.pointer}) both need the handler name {function!r}; rename one",
                )
            )
            continue
        functions[function] = source
    names.used.update(functions)
    named = []
    prefixes: set[str] = set()
    for function, source in functions.items():
        prefix = _claim_prefix(names, prefixes, pascal_case(str(source.definition["name"])))
        named.append(_ToolNames(source, function, prefix, f"{prefix}Input", f"{prefix}Output"))
    return named, problems


def _collisions(tools: Sequence[Tool]) -> list[Diagnostic]:
    """The last word on uniqueness: two things of one name in the handler module's
    namespace fail the build (the naming above is meant to make this unreachable)."""
    owners: dict[str, Tool | None] = {name: None for name in CONTENT_TYPES}
    problems = []
    for tool in tools:
        for name in [tool.function, *{e.public for e in tool.exports}]:
            if name in owners:
                other = owners[name]
                whose = f"tool {other.name!r}" if other is not None else "the content types"
                problems.append(
                    error(
                        tool.source.file,
                        pointer_join(tool.source.pointer, "name"),
                        f"the generated name {name!r} of tool {tool.name!r} is also used by "
                        f"{whose}; rename one of the tools",
                    )
                )
            owners[name] = tool
    return problems


def compile_tools(
    sources: Sequence[ToolSource], revisions: tuple[str, ...], cache_dir: Path | None
) -> tuple[list[Tool], list[Diagnostic]]:
    tools: list[Tool] = []
    names = _Names(set(CONTENT_TYPES) | RESERVED_FUNCTION_NAMES)
    named, problems = _tool_names(sources, names)
    for tool_names in named:
        source, function, prefix = tool_names.source, tool_names.function, tool_names.prefix
        input_name, output_name = tool_names.input_name, tool_names.output_name
        definition = source.definition
        name = str(definition["name"])
        input_schema = definition.get("inputSchema", {})
        input_types = typed_module(input_schema, input_name, cache_dir)
        whole: str | None = None
        parameters: list[Parameter] = []
        input_module, output_module = f"{function}__input", f"{function}__output"
        exports = _exports(input_module, input_types, prefix, names, {input_name})
        if _keyword_parameters_fit(input_schema):
            public = {e.local: e.public for e in exports}
            parameters, aliases, found = _parameters(
                source.file, source.pointer, input_schema, input_types, public, prefix, names
            )
            problems.extend(found)
            input_types = _with_aliases(input_types, aliases)
            exports += [TypeExport(alias, input_module, alias) for alias, _ in aliases]
        else:
            whole = "arguments"
        output_types = None
        if "outputSchema" in definition:
            output_types = typed_module(definition["outputSchema"], output_name, cache_dir)
        if output_types is not None:
            exports += _exports(output_module, output_types, prefix, names, {output_name})
        published, _ = all_published(definition, revisions)
        description = definition.get("description")
        tools.append(
            Tool(
                name=name,
                source=source,
                function=function,
                class_prefix=prefix,
                input_module=input_module,
                output_module=output_module if output_types is not None else None,
                input_types=input_types,
                output_types=output_types,
                input_type=input_name,
                output_type=output_name if output_types is not None else None,
                parameters=tuple(parameters),
                whole_arguments=whole,
                exports=tuple(exports),
                published=published,
                description=description if isinstance(description, str) else None,
            )
        )
    return tools, problems + _collisions(tools)
