"""Every public name a build hands out, unique by construction: handler names first (never
a builtin or an imported type), then each tool's root type names, then nested types, with
`$defs` shared alike by several tools exported once."""

from __future__ import annotations

import builtins
import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp_schemagen.compile.ir import CONTENT_TYPES, CompiledTool, TypeExport
from mcp_schemagen.compile.typed_module import TypedClass, TypedModule
from mcp_schemagen.diagnostics import Diagnostic, error, pointer_join
from mcp_schemagen.naming import pascal_case, python_identifier
from mcp_schemagen.source import Source

# Names a handler may not take: what the handler module imports from the generated
# package, and every builtin, since annotations (`list[ContentBlock]`), `typing.get_type_hints`
# and the user's own bodies (`max(...)`) read builtins through the module's namespace.
# `upstream`: the generated calls of imported operations, as `.types` names them.
RESERVED_FUNCTION_NAMES = frozenset(
    {
        "annotations",
        "upstream",
        *CONTENT_TYPES,
        *(n for n in dir(builtins) if not n.startswith("_")),
    }
)


@dataclass
class Names:
    """Public names handed out so far; each new one is made unique deterministically."""

    used: set[str] = field(default_factory=set)

    def claim(self, wanted: str) -> str:
        candidate, counter = wanted, 2
        while candidate in self.used:
            candidate, counter = f"{wanted}{counter}", counter + 1
        self.used.add(candidate)
        return candidate


@dataclass
class SharedDefinitions:
    """`$defs` entries defined alike wherever their name is defined, in more than one
    schema: one type, exported once, rather than one copy under each tool's prefix."""

    owners: dict[str, tuple[str, ...]]  # definition name -> the tools defining it
    public: dict[str, str] = field(default_factory=dict)  # its public name, once exported

    @staticmethod
    def of(sources: Sequence[Source]) -> SharedDefinitions:
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
        return SharedDefinitions({n: tuple(dict.fromkeys(owners[n])) for n in shared})


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
    classes = {typed.name: typed for typed in types.classes}
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


def _keys_name(typed: TypedClass) -> str:
    fields = typed.keys
    keys = [name for name, required in fields if required] or [name for name, _ in fields]
    return "".join(pascal_case(key) for key in keys[:3]) if keys else ""


def public_exports(
    module: str,
    types: TypedModule,
    prefix: str,
    names: Names,
    already: set[str],
    shared: SharedDefinitions,
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


def _function_name(source: Source) -> str:
    function = python_identifier(str(source.definition["name"]))
    # A dunder name (`__class__`, `__doc__`, `__getattr__`...) means something to Python
    # as a module attribute; the trailing `_` makes it an ordinary name, like a builtin's.
    special = function.startswith("__") and function.endswith("__")
    return function + "_" if special or function in RESERVED_FUNCTION_NAMES else function


@dataclass(frozen=True)
class ToolNames:
    source: Source
    function: str
    prefix: str  # of every public type of the tool
    input_name: str
    output_name: str


def _claim_prefix(names: Names, prefixes: set[str], wanted: str) -> str:
    """A prefix no other tool has, whose Input and Output names are free (claimed with it).
    The prefix alone names nothing, so it may equal a handler name (tool ``A``)."""
    candidate, counter = wanted, 2
    while candidate in prefixes or {f"{candidate}Input", f"{candidate}Output"} & names.used:
        candidate, counter = f"{wanted}{counter}", counter + 1
    prefixes.add(candidate)
    names.used.update({f"{candidate}Input", f"{candidate}Output"})
    return candidate


def reserve_tool_names(
    sources: Sequence[Source], names: Names
) -> tuple[list[ToolNames], list[Diagnostic]]:
    """Every tool's handler name and root type names, decided before any nested type is
    named: handlers and types share the handler module's namespace, and a nested type
    (tool ``A``'s property ``b_input``) must never take a root name (tool ``a_b``'s
    ``ABInput``), so the root names are all reserved first."""
    problems: list[Diagnostic] = []
    functions: dict[str, Source] = {}
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
        named.append(ToolNames(source, function, prefix, f"{prefix}Input", f"{prefix}Output"))
    return named, problems


def collisions(tools: Sequence[CompiledTool]) -> list[Diagnostic]:
    """The last word on uniqueness: two things of one name in the handler module's
    namespace fail the build (the naming above is meant to make this unreachable)."""
    owners: dict[str, CompiledTool | None] = {name: None for name in CONTENT_TYPES}
    problems = []
    for tool in tools:
        for name in [tool.function, *{e.public for e in tool.exports}]:
            if name in owners:
                other = owners[name]
                whose = f"tool {other.name!r}" if other is not None else "the content types"
                problems.append(
                    error(
                        tool.file,
                        pointer_join(tool.pointer, "name"),
                        f"the generated name {name!r} of tool {tool.name!r} is also used by "
                        f"{whose}; rename one of the tools",
                    )
                )
            owners[name] = tool
    return problems


def clear_of_imported_types(tools: list[CompiledTool]) -> list[CompiledTool]:
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
