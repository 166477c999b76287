"""Checked tool sources -> the IR the templates print: names, parameters, types."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mcp_schemagen.compile.ir import CONTENT_TYPES, CompiledTool, Parameter, TypeExport
from mcp_schemagen.compile.type_expr import TypeExpr
from mcp_schemagen.compile.type_names import (
    RESERVED_FUNCTION_NAMES,
    Names,
    SharedDefinitions,
    ToolNames,
    clear_of_imported_types,
    collisions,
    public_exports,
    reserve_tool_names,
)
from mcp_schemagen.compile.type_prefill import prefill
from mcp_schemagen.compile.typed_module import TypedModule
from mcp_schemagen.compile.typegen import typed_module
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.naming import pascal_case, python_identifier
from mcp_schemagen.source import Source

_SIMPLE_NAMES = frozenset({"str", "int", "float", "bool", "None", "list", "dict"})
_SCALARS = (str, int, float, bool, type(None))
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


def _is_simple(annotation: TypeExpr) -> bool:
    return annotation.names() <= _SIMPLE_NAMES and not annotation.holds_values()


def _with_public_names(
    annotation: TypeExpr, public: dict[str, str]
) -> tuple[TypeExpr, frozenset[str]] | None:
    """The annotation with each class of the tool's module by its public name, and those
    names; None when it holds anything else than such classes and simple builtins (a
    Literal, say), which then gets an alias of its own."""
    own = annotation.names() - _SIMPLE_NAMES
    if annotation.holds_values() or not own <= public.keys():
        return None
    return annotation.renamed(public), frozenset(public[name] for name in own)


_SCHEMA_PATH = re.compile(r"\s*Schema path: #(/\S*?)\.?$")


def generator_diagnostics(types: TypedModule, file: str, pointer: str) -> list[Diagnostic]:
    """datamodel-code-generator's warnings, in our words and located in the tool file."""
    found = []
    for note in types.generator_warnings:
        where = pointer
        path = _SCHEMA_PATH.search(note)
        if path is not None:
            where, note = pointer + path.group(1), note[: path.start()]
        found.append(
            warning(
                file,
                where,
                "the generated Python types cannot express this schema exactly, so they may "
                f"accept or reject what the server's validation does not ({note.strip()})",
            )
        )
    return found


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
    names: Names,
) -> tuple[list[Parameter], list[tuple[str, TypeExpr]], list[Diagnostic]]:
    """Keyword parameters, one per property. A property typed by one named class of the
    tool's module uses that class's public name; any other non-builtin type gets a
    public alias (returned, to be added to the module), so signatures stay short."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    seen: dict[str, str] = {}
    problems: list[Diagnostic] = []
    aliases: list[tuple[str, TypeExpr]] = []
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
        annotation = types.fields.get(json_name, TypeExpr.named("Any"))
        references: frozenset[str] = frozenset()
        substituted = _with_public_names(annotation, public)
        if substituted is not None and substituted[1]:
            # Classes of the module by their public names (`Place | PlanTripDestination`),
            # rather than an alias: no second name for the same type.
            annotation, references = substituted
        elif not _is_simple(annotation):
            alias = names.claim(prefix + pascal_case(json_name))
            aliases.append((alias, annotation))
            annotation = TypeExpr.named(alias)
            references = frozenset({alias})
        default = subschema.get("default") if isinstance(subschema, dict) else None
        has_default = isinstance(subschema, dict) and "default" in subschema
        if json_name in required:
            default_source = None
        elif has_default and isinstance(default, _SCALARS):
            default_source = _python_literal(default)
            if default is None and not annotation.allows_none():
                # `"default": null` on a property whose schema rejects null (common in
                # real servers): the dispatcher passes None when the argument is
                # omitted, so the parameter must admit it.
                annotation = annotation.or_none()
        elif has_default:
            # An array or object default: the safe form `tags: list[str] | None = None`
            # (a list literal would be one object shared by every call); the dispatcher
            # passes a fresh copy of the schema's default when the argument is omitted,
            # so the handler sees None only when called directly.
            annotation = annotation if annotation.allows_none() else annotation.or_none()
            default_source = "None"
        else:
            annotation = annotation if annotation.allows_none() else annotation.or_none()
            default_source = "None"
        text = subschema.get("description") if isinstance(subschema, dict) else None
        parameters.append(
            Parameter(
                json_name,
                python_name,
                annotation.text,
                references,
                default_source,
                has_default,
                default,
                text if isinstance(text, str) else None,
            )
        )
    # Parameters without a default first, in schema order; Python requires nothing here
    # (they are keyword-only) but it reads like the schema's "required".
    parameters.sort(key=lambda p: p.default_source is not None)
    return parameters, aliases, problems


def type_jobs(sources: Sequence[Source]) -> list[tuple[Any, str]]:
    """Each schema of the tool definitions ``sources`` with the root name compile_tools
    gives its type (for type_prefill, which starts on them before they are checked)."""
    named, _ = reserve_tool_names(sources, Names(set(CONTENT_TYPES) | RESERVED_FUNCTION_NAMES))
    return _type_jobs(named)


def _type_jobs(named: Sequence[ToolNames]) -> list[tuple[Any, str]]:
    """Each schema the loop below types, with its root name, in the same order."""
    jobs = []
    for tool_names in named:
        definition = tool_names.source.definition
        jobs.append((definition.get("inputSchema", {}), tool_names.input_name))
        if "outputSchema" in definition:
            jobs.append((definition["outputSchema"], tool_names.output_name))
    return jobs


def compile_tools(
    sources: Sequence[Source], cache_dir: Path | None, *, types_started: bool = False
) -> tuple[list[CompiledTool], list[Diagnostic]]:
    """``types_started``: the caller ran type_prefill on these tools already (the build
    does, while it checks); else the types the cache lacks are shared out here."""
    tools: list[CompiledTool] = []
    names = Names(set(CONTENT_TYPES) | RESERVED_FUNCTION_NAMES)
    named, problems = reserve_tool_names(sources, names)
    shared = SharedDefinitions.of(sources)
    if not types_started:
        prefill(_type_jobs(named), cache_dir)
    # Tools keep the order of their files and, within a file, the order written: a
    # server's tools/list order is part of its contract (clients' prompt caches).
    for tool_names in named:
        source, function, prefix = tool_names.source, tool_names.function, tool_names.prefix
        input_name, output_name = tool_names.input_name, tool_names.output_name
        definition = source.definition
        name = str(definition["name"])
        input_schema = definition.get("inputSchema", {})
        input_types = typed_module(input_schema, input_name, cache_dir)
        input_pointer = pointer_join(source.pointer, "inputSchema")
        problems.extend(generator_diagnostics(input_types, source.file, input_pointer))
        whole: str | None = None
        parameters: list[Parameter] = []
        input_module, output_module = f"{function}__input", f"{function}__output"
        exports, public = public_exports(
            input_module, input_types, prefix, names, {input_name}, shared, input_schema
        )
        if _keyword_parameters_fit(input_schema):
            parameters, aliases, found = _parameters(
                source.file, source.pointer, input_schema, input_types, public, prefix, names
            )
            problems.extend(found)
            input_types = input_types.with_aliases(aliases)
            exports += [TypeExport(alias, input_module, alias) for alias, _ in aliases]
        else:
            whole = "arguments"
        output_types = None
        if "outputSchema" in definition:
            output_types = typed_module(definition["outputSchema"], output_name, cache_dir)
            output_pointer = pointer_join(source.pointer, "outputSchema")
            problems.extend(generator_diagnostics(output_types, source.file, output_pointer))
        if output_types is not None:
            output_exports, _ = public_exports(
                output_module,
                output_types,
                prefix,
                names,
                {output_name},
                shared,
                definition["outputSchema"],
            )
            exports += output_exports
        description = definition.get("description")
        tools.append(
            CompiledTool(
                name=name,
                definition=definition,
                file=source.file,
                pointer=source.pointer,
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
                description=description if isinstance(description, str) else None,
            )
        )
    tools = clear_of_imported_types(tools)
    return tools, problems + collisions(tools)
