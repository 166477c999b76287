"""What older revisions' clients lose, said once per field and group of revisions.

A tool field an older revision does not define (outputSchema, title, icons, ...) is left
out for its clients. A project of 100 tools with an outputSchema each would otherwise
read 100 identical warnings on every build; instead each (field, revisions, consequence)
gets one line, located at its first tool, with the number of tools and another example.
A project silences the ones it knows about with ``accept-omitted`` in its config.
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp_schemagen.diagnostics import Diagnostic, pointer_join, warning
from mcp_schemagen.load.published import Published, known_tool_fields
from mcp_schemagen.source import Source

ACCEPT_KEY = "accept-omitted"

_Group = tuple[str, tuple[str, ...], str]  # field, revisions, consequence


def omission_warnings(
    tools: Iterable[tuple[Source, Published]], accepted: Iterable[str] = ()
) -> list[Diagnostic]:
    """One warning per field and group of revisions that leave it out, unless accepted."""
    skip = frozenset(accepted)
    where: dict[_Group, list[tuple[str, str]]] = {}
    for source, published in tools:
        lost: dict[tuple[str, str], list[str]] = {}
        for omission in published.omissions:
            # An unknown field is an error of its own; an accepted one is the user's choice.
            if omission.field in known_tool_fields() and omission.field not in skip:
                lost.setdefault((omission.field, omission.consequence), []).append(
                    omission.revision
                )
        for (field, consequence), names in lost.items():
            location = (source.file, pointer_join(source.pointer, field))
            where.setdefault((field, tuple(names), consequence), []).append(location)
    return [_warning(group, sorted(places)) for group, places in where.items()]


def _warning(group: _Group, places: list[tuple[str, str]]) -> Diagnostic:
    field, names, consequence = group
    subject = (
        f"protocol revision {names[0]} does not define this; its clients"
        if len(names) == 1
        else f"protocol revisions {', '.join(names)} do not define this; their clients"
    )
    (file, pointer), *others = places
    count = ""
    if others:
        other_file, other_pointer = others[0]
        count = f" (so do {len(others)} other tools, e.g. {other_file}#{other_pointer})"
    silence = f'; to silence: {ACCEPT_KEY} = ["{field}"] in [tool.mcp-codegen]'
    return warning(file, pointer, f"{subject} receive {consequence}{count}{silence}")
