"""Checked tool sources -> the IR the templates print: names, parameters, types."""

from __future__ import annotations

import ast
import builtins
import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join, warning
from mcp_schemagen.ir import CONTENT_TYPES, Parameter, Tool, TypeExport
from mcp_schemagen.naming import pascal_case, python_identifier
from mcp_schemagen.publish import all_published
from mcp_schemagen.tools import ToolSource
from mcp_schemagen.typegen import TypedModule, typed_module

_SIMPLE_NAMES = frozenset({"str", "int", "float", "bool", "None", "list", "dict"})
_SCALARS = (str, int, float, bool, type(None))
# Names a handler may not take: what the handler module imports from the generated
# package, and every builtin, since annotations (`list[ContentBlock]`), `typing.get_type_hints`
# and the user's own bodies (`max(...)`) read builtins through the module's namespace.
RESERVED_FUNCTION_NAMES = frozenset(
    {"annotations", *CONTENT_TYPES, *(n for n in dir(builtins) if not n.startswith("_"))}
)
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


def _allows_none(annotation: str) -> bool:
    """Whether ``None`` is one of the annotation's top-level union members."""
    node = ast.parse(annotation, mode="eval").body
    members: list[ast.expr] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members.append(node.right)
        node = node.left
    members.append(node)
    return any(isinstance(m, ast.Constant) and m.value is None for m in members)


def _with_public_names(annotation: str, public: dict[str, str]) -> tuple[str, frozenset[str]]:
    """The annotation with each class of the tool's module by its public name, and those
    names; ("", ...) when it holds anything else than such classes and simple builtins
    (a Literal, say), which then gets an alias of its own."""
    tree = ast.parse(annotation, mode="eval")
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value is not None:
            return "", frozenset()
        if isinstance(node, ast.Name) and node.id not in _SIMPLE_NAMES:
            if node.id not in public:
                return "", frozenset()
            node.id = public[node.id]
            used.add(node.id)
    return ast.unparse(tree), frozenset(used)


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
        substituted, named = _with_public_names(annotation, public)
        if named:
            # Classes of the module by their public names (`Place | PlanTripDestination`),
            # rather than an alias: no second name for the same type.
            annotation, references = substituted, named
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
            if default is None and not _allows_none(annotation):
                # `"default": null` on a property whose schema rejects null (common in
                # real servers): the dispatcher passes None when the argument is
                # omitted, so the parameter must admit it.
                annotation = f"{annotation} | None"
        elif has_default:
            default_source = None  # mutable default: the dispatcher passes a fresh copy
        else:
            annotation = annotation if _allows_none(annotation) else f"{annotation} | None"
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


@dataclass
class _SharedDefinitions:
    """`$defs` entries defined alike wherever their name is defined, in more than one
    schema: one type, exported once, rather than one copy under each tool's prefix."""

    owners: dict[str, tuple[str, ...]]  # definition name -> the tools defining it
    public: dict[str, str] = field(default_factory=dict)  # its public name, once exported

    @staticmethod
    def of(sources: Sequence[ToolSource]) -> _SharedDefinitions:
        texts: dict[str, set[str]] = {}
        owners: dict[str, list[str]] = {}
        refs: dict[str, set[str]] = {}
        for source in sources:
            for key in ("inputSchema", "outputSchema"):
                schema = source.definition.get(key)
                for keyword in ("$defs", "definitions"):
                    table = schema.get(keyword) if isinstance(schema, dict) else None
                    for name, definition in (table or {}).items():
                        text = json.dumps(definition, sort_keys=True)
                        texts.setdefault(name, set()).add(text)
                        owners.setdefault(name, []).append(str(source.definition["name"]))
                        refs.setdefault(name, set()).update(_REF.findall(text))
        shared = {n for n, o in owners.items() if len(texts[n]) == 1 and len(o) > 1}
        # A definition is the same type everywhere only if what it refers to is too.
        while unshared := {
            n for n in shared if any(r.rsplit("/", 1)[-1] not in shared for r in refs[n])
        }:
            shared -= unshared
        return _SharedDefinitions({n: tuple(dict.fromkeys(owners[n])) for n in shared})


# Every "$ref" value of a definition's JSON text; anything but "#/$defs/NAME" or
# "#/definitions/NAME" keeps the definition per tool.
_REF = re.compile(r'"\$ref": "((?:#/\$defs/|#/definitions/)?[^"]*)"')


def _definition_names(schema: Any) -> frozenset[str]:
    if not isinstance(schema, dict):
        return frozenset()
    tables = [schema.get(k) for k in ("$defs", "definitions")]
    return frozenset(name for table in tables if isinstance(table, dict) for name in table)


_NUMBERED = re.compile(r"(.*\D)(\d+)")


def _member_names(types: TypedModule) -> dict[str, str]:
    """Better names for classes datamodel-code-generator numbered apart (the anonymous
    members of one union: `Destination`, `Destination1`, ...): each after the keys it
    requires, or has (`DestinationLatLon`), when that tells every member apart."""
    classes = {
        node.name: node for node in ast.parse(types.source).body if isinstance(node, ast.ClassDef)
    }
    families: dict[str, list[str]] = {}
    for name in classes:
        numbered = _NUMBERED.fullmatch(name)
        if numbered and numbered.group(1) in classes:
            families.setdefault(numbered.group(1), [numbered.group(1)]).append(name)
    renamed: dict[str, str] = {}
    for base, members in families.items():
        wanted = {member: base + _keys_name(classes[member]) for member in members}
        if len(set(wanted.values())) == len(members) and base not in wanted.values():
            renamed.update(wanted)
    return renamed


def _keys_name(node: ast.ClassDef) -> str:
    fields = [
        (item.target.id, not _is_not_required(item.annotation))
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    ]
    keys = [name for name, required in fields if required] or [name for name, _ in fields]
    return "".join(pascal_case(key) for key in keys[:3]) if keys else ""


def _is_not_required(annotation: ast.expr) -> bool:
    return (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id == "NotRequired"
    )


def _exports(
    module: str,
    types: TypedModule,
    prefix: str,
    names: _Names,
    already: set[str],
    shared: _SharedDefinitions,
    schema: Any,
) -> tuple[list[TypeExport], dict[str, str]]:
    """The module's exports, and the public name of each class it defines."""
    exports = []
    public_names: dict[str, str] = {}
    own_shared = shared.owners.keys() & _definition_names(schema)
    member_names = _member_names(types)
    for local in sorted(types.names):
        if local in own_shared and local in shared.public:
            public_names[local] = shared.public[local]
            continue  # exported with the first module that defines it
        if local in already:
            public = local
        elif local in own_shared and len(shared.owners[local]) > 1 and local not in names.used:
            public = names.claim(local)  # one type of several tools: no tool's prefix
        elif local in member_names:
            public = names.claim(prefix + member_names[local])
        elif local.startswith(prefix) and local not in names.used:
            public = names.claim(local)
        else:
            public = names.claim(prefix + local)  # `Tag` of tool "tag": TagTag, not Tag2
        if local in own_shared:
            shared.public[local] = public
        public_names[local] = public
        exports.append(TypeExport(public, module, local))
    return exports, public_names


def _function_name(source: ToolSource) -> str:
    function = python_identifier(str(source.definition["name"]))
    return function + "_" if function in RESERVED_FUNCTION_NAMES else function


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
    for source in sources:
        name = str(source.definition["name"])
        function = _function_name(source)
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
    shared = _SharedDefinitions.of(sources)
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
        exports, public = _exports(
            input_module, input_types, prefix, names, {input_name}, shared, input_schema
        )
        if _keyword_parameters_fit(input_schema):
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
            output_pointer = pointer_join(source.pointer, "outputSchema")
            problems.extend(generator_diagnostics(output_types, source.file, output_pointer))
        if output_types is not None:
            output_exports, _ = _exports(
                output_module,
                output_types,
                prefix,
                names,
                {output_name},
                shared,
                definition["outputSchema"],
            )
            exports += output_exports
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
    tools = _clear_of_imported_types(tools)
    return tools, problems + _collisions(tools)


def _clear_of_imported_types(tools: list[Tool]) -> list[Tool]:
    """A handler named like a type the handler module imports (tool "Place" beside a
    shared `Place`) would shadow it: such a handler gets a trailing `_`, like a builtin."""
    imported = {name for tool in tools for name in tool.type_references()}
    taken = {tool.function for tool in tools} | imported
    cleared = []
    for tool in tools:
        if tool.function in imported:
            function = tool.function + "_"
            while function in taken:
                function += "_"
            taken.add(function)
            tool = dataclasses.replace(tool, function=function)
        cleared.append(tool)
    return cleared
