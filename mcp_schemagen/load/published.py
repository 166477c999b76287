"""A tool definition as each protocol revision's clients receive it, and what they lose.

The author writes one definition against the newest revision; older clients get the same
tool with the fields their revision does not define left out (the runtime's revision
table decides, so generator and server agree), and a build warning says what they lose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_schemagen.runtime.protocol import BY_NAME, REVISIONS


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
    "execution": "the tool without execution: they call it as a plain call, never as a task",
    "_meta": "the tool without _meta",
}
# A revision whose tools/call result is a bare JSON value (2024-10-07's toolResult).
_BARE_RESULT = (
    "the tool without outputSchema; structured results reach them as the toolResult value "
    "itself, with no schema to check it against"
)
_OBJECT_ROOT = (
    "the tool without outputSchema, because this revision requires an object at its root; "
    "structured results reach them as text only"
)


@dataclass(frozen=True)
class Published:
    """A tool as each targeted revision's clients receive it, and what each form leaves
    out: worked out once per tool and build, read by the checks of each form and by the
    omission warnings. (A generated server derives the same forms at start-up with the
    same ``publish_tool``, from the one definition its dispatch data stores.)"""

    forms: dict[str, dict[str, Any]]
    omissions: tuple[Omission, ...]


def publish(definition: dict[str, Any], revisions: tuple[str, ...]) -> Published:
    """Each named revision's form of the tool, and what each form leaves out."""
    forms: dict[str, dict[str, Any]] = {}
    omissions: list[Omission] = []
    for name in revisions:
        forms[name], lost = BY_NAME[name].publish_tool(definition)
        bare = "toolResult" in BY_NAME[name].call_result_fields
        for field, reason in lost:
            if field == "execution" and BY_NAME[name].stateless:
                continue  # the tasks extension decides per request (runtime/tasks/)
            if reason == "object-root":
                consequence = _OBJECT_ROOT
            elif field == "outputSchema" and bare:
                consequence = _BARE_RESULT
            else:
                consequence = _CONSEQUENCES.get(field, f"the tool without {field}")
            omissions.append(Omission(name, field, consequence))
    return Published(forms, tuple(omissions))


def known_tool_fields() -> frozenset[str]:
    return frozenset().union(*(r.tool_fields for r in REVISIONS))
