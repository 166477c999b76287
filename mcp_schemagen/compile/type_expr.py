"""A type annotation as data. Type generation reads what datamodel-code-generator printed
once and hands on these trees, so the stages after it ask them questions (which names,
does it admit None) and rename in them, instead of parsing annotation text again."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["name", "none", "value", "union", "generic", "other"]


@dataclass(frozen=True)
class TypeExpr:
    """``name``: a class or builtin (``str``, ``Place``); ``none``: ``None``; ``value``: a
    literal value inside ``Literal[...]``; ``union``: ``A | B``, its members in ``args``;
    ``generic``: ``base[args]`` (``list[str]``, ``Literal["a"]``); ``other``: any other
    expression, kept as text with the names it uses."""

    kind: Kind
    text: str  # the annotation's Python source
    name: str = ""  # a name's own, or a generic's base
    args: tuple[TypeExpr, ...] = ()
    other_names: frozenset[str] = frozenset()

    @staticmethod
    def named(name: str) -> TypeExpr:
        return TypeExpr("name", name, name)

    def names(self) -> frozenset[str]:
        """Every name the annotation uses (a generic's base included)."""
        own = {self.name} if self.kind in ("name", "generic") else set()
        return frozenset(own).union(self.other_names, *(arg.names() for arg in self.args))

    def holds_values(self) -> bool:
        """Whether it holds a literal value (or an expression not understood, which is
        treated alike: it cannot be shortened to names)."""
        return self.kind in ("value", "other") or any(arg.holds_values() for arg in self.args)

    def allows_none(self) -> bool:
        """Whether ``None`` is one of its top-level union members."""
        members = self.args if self.kind == "union" else (self,)
        return any(member.kind == "none" for member in members)

    def or_none(self) -> TypeExpr:
        members = self.args if self.kind == "union" else (self,)
        return TypeExpr("union", f"{self.text} | None", args=(*members, TypeExpr("none", "None")))

    def renamed(self, names: Mapping[str, str]) -> TypeExpr:
        """The same annotation with each name in ``names`` replaced."""
        if self.kind == "name":
            return TypeExpr.named(names.get(self.name, self.name))
        if self.kind == "union":
            members = tuple(member.renamed(names) for member in self.args)
            return TypeExpr("union", " | ".join(m.text for m in members), args=members)
        if self.kind == "generic":
            base = names.get(self.name, self.name)
            args = tuple(arg.renamed(names) for arg in self.args)
            text = f"{base}[{', '.join(arg.text for arg in args)}]"
            return TypeExpr("generic", text, base, args)
        return self
