"""A tool definition as each protocol revision's clients receive it.

The author writes one definition against the newest revision; older clients get the same
tool with the fields their revision does not define left out, and a build warning says
what they lose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codegen.revisions import REVISIONS, Revision


@dataclass(frozen=True)
class Omission:
    """A field an older revision's clients will not receive, and what that means for them."""

    revision: str
    field: str
    consequence: str


_CONSEQUENCES = {
    "outputSchema": "the tool without outputSchema; structured results reach them as text only",
    "annotations": "the tool without annotations (no read-only/destructive hints)",
    "title": "the tool without title (clients show the name)",
    "icons": "the tool without icons",
    "execution": "the tool without execution (task support is not advertised)",
    "_meta": "the tool without _meta",
}


def _object_rooted(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


def published_definition(
    definition: dict[str, Any], revision: Revision
) -> tuple[dict[str, Any], list[Omission]]:
    """The definition for ``revision``'s clients (key order kept) and what was left out."""
    published: dict[str, Any] = {}
    omitted: list[Omission] = []
    for key, value in definition.items():
        if key not in revision.tool_fields:
            omitted.append(
                Omission(revision.name, key, _CONSEQUENCES.get(key, f"the tool without {key}"))
            )
            continue
        if key == "outputSchema" and not revision.structured_any_json and not _object_rooted(value):
            omitted.append(
                Omission(
                    revision.name,
                    key,
                    "the tool without outputSchema, because this revision requires an object "
                    "at its root; structured results reach them as text only",
                )
            )
            continue
        if key == "annotations" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k in revision.tool_annotations}
        published[key] = value
    return published, omitted


def all_published(
    definition: dict[str, Any], revisions: tuple[str, ...]
) -> tuple[dict[str, dict[str, Any]], list[Omission]]:
    forms: dict[str, dict[str, Any]] = {}
    omissions: list[Omission] = []
    for name in revisions:
        forms[name], lost = published_definition(definition, REVISIONS[name])
        omissions.extend(lost)
    return forms, omissions


def known_tool_fields() -> frozenset[str]:
    return frozenset().union(*(r.tool_fields for r in REVISIONS.values()))
