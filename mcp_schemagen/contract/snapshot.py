"""The definitions a project serves at one point of its history, by kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Definition:
    """One tool or prompt (or, once they exist, resource) definition and where it is."""

    file: str
    pointer: str
    definition: dict[str, Any]

    @property
    def name(self) -> str | None:
        name = self.definition.get("name")
        return name if isinstance(name, str) else None


@dataclass(frozen=True)
class Snapshot:
    """What was read: the project at a git revision, as it is now, or a saved listing.
    ``kinds`` maps "tools", "prompts" (and later "resources") to their definitions in
    listing order; a kind that was not read (a saved tools/list has no prompts) is absent.
    ``published``: the definitions are as a server published them, not as authored."""

    label: str
    kinds: dict[str, list[Definition]]
    published: bool = False
    warnings: list[str] = field(default_factory=list)


def by_name(definitions: list[Definition]) -> dict[str, Definition]:
    """The first definition of each name (the build refuses duplicates)."""
    named: dict[str, Definition] = {}
    for item in definitions:
        if item.name is not None:
            named.setdefault(item.name, item)
    return named
