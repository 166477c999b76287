"""What type generation makes of one schema, as data: the definitions, the imports they
need, the root's fields, the classes, and the aliases compiling adds for parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from mcp_schemagen.compile.type_expr import TypeExpr


@dataclass(frozen=True, order=True)
class Import:
    """``from module import name`` (``import module`` when name is empty)."""

    module: str
    name: str = ""
    alias: str = ""


@dataclass(frozen=True)
class TypedClass:
    """A TypedDict class of the module: its name and keys, each with whether it is required."""

    name: str
    keys: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class TypedModule:
    """The types of one schema as data: a module defining ``root`` (a TypedDict, or a type
    alias), the imports its definitions need, for an object root each key's annotation,
    its classes, and the aliases compiling adds. ``source`` prints it; nothing parses it
    again."""

    root: str
    imports: frozenset[Import]
    body: str  # the definitions, as datamodel-code-generator printed them (strings restored)
    fields: dict[str, TypeExpr]
    classes: tuple[TypedClass, ...]
    names: frozenset[str]  # every top-level name the module defines
    # what datamodel-code-generator warned about, for the caller to report as its own
    generator_warnings: tuple[str, ...] = ()
    aliases: tuple[tuple[str, TypeExpr], ...] = ()  # public aliases of parameter types

    def with_aliases(self, aliases: Sequence[tuple[str, TypeExpr]]) -> TypedModule:
        """The module with ``NAME: TypeAlias = annotation`` added for each alias, and the
        imports from typing those annotations need."""
        if not aliases:
            return self
        needed = {"TypeAlias"} | {n for _, t in aliases for n in t.names() if n in _TYPING}
        return dataclasses.replace(
            self,
            imports=self.imports | {Import("typing", name) for name in needed},
            names=self.names | {alias for alias, _ in aliases},
            aliases=(*self.aliases, *aliases),
        )

    @property
    def source(self) -> str:
        froms: dict[str, list[Import]] = {}
        for record in sorted(self.imports):
            froms.setdefault(record.module, []).append(record)
        lines = []
        for module, records in froms.items():
            plain = [r for r in records if not r.name]
            named = [r.name + (f" as {r.alias}" if r.alias else "") for r in records if r.name]
            lines += [f"import {module}" + (f" as {r.alias}" if r.alias else "") for r in plain]
            if named:
                lines.append(f"from {module} import {', '.join(named)}")
        imports = "".join(line + "\n" for line in lines)
        aliases = "".join(f"\n\n{name}: TypeAlias = {t.text}\n" for name, t in self.aliases)
        return f"\nfrom __future__ import annotations\n\n{imports}\n\n{self.body}\n{aliases}"


# Names an alias may take from typing (what datamodel-code-generator's annotations use).
_TYPING = frozenset({"Any", "Literal", "NotRequired", "Required", "TypeAlias", "TypedDict"})
