"""The definitions a project serves at one point of its history, by kind."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_schemagen.source import Source

# One tool, prompt, resource or resource template definition and where it is: the
# build's own Source (its kind names its row in kinds.KINDS).
Definition = Source


@dataclass(frozen=True)
class Snapshot:
    """What was read: the project at a git revision, as it is now, or a saved listing.
    ``kinds`` maps "tools", "prompts", "resources" and "resourceTemplates" (the fields of
    their list results) to their definitions in
    listing order; a kind that was not read (a saved tools/list has no prompts) is absent.
    ``published``: the definitions are as a server published them, not as authored."""

    label: str
    kinds: dict[str, list[Definition]]
    published: bool = False
    warnings: list[str] = field(default_factory=list)


def key_of(item: Definition, field: str = "name") -> str | None:
    """What pairs a definition with its other version: its name, or a static resource's
    uri (what callers read it by)."""
    value = item.definition.get(field)
    return value if isinstance(value, str) else None


def by_name(definitions: list[Definition], field: str = "name") -> dict[str, Definition]:
    """The first definition of each name (or other key ``field``; the build refuses
    duplicates)."""
    named: dict[str, Definition] = {}
    for item in definitions:
        key = key_of(item, field)
        if key is not None:
            named.setdefault(key, item)
    return named


# Each kind's singular noun and the method that lists it.
LISTINGS: dict[str, tuple[str, str]] = {
    "tools": ("tool", "tools/list"),
    "prompts": ("prompt", "prompts/list"),
    "resources": ("resource", "resources/list"),
    "resourceTemplates": ("resource template", "resources/templates/list"),
    "skills": ("skill", "skills/list"),
}
