"""The dispatch table: one row per tool, in the shape the generator writes and the server reads.

``DispatchRow`` is that shape. The generator builds rows of this type and prints them as
JSON into the package's ``_dispatch.py``; ``load_table`` reads them back into
``ToolEntry`` values at start-up. Both sides import this module, so the shape is typed
once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from .protocol import ordered


class DispatchRow(TypedDict):
    """One tool as stored in ``_dispatch.py``.

    ``definition`` is the tool as its author wrote it, stored once; the form each protocol
    revision's clients receive is derived from it at start-up by the same
    ``Revision.publish_tool`` the build checked it with.
    """

    definition: dict[str, Any]
    arguments: dict[str, str]
    defaults: dict[str, Any]
    whole_arguments: str | None


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool, as the generator compiled it.

    ``published`` maps each protocol revision the server supports to the tool definition
    that revision's clients receive in tools/list (fields the revision does not define
    already removed). ``arguments`` maps each JSON argument name to the handler's Python
    keyword parameter; ``defaults`` holds the schema default of each argument that has one,
    filled in (as a fresh copy) when a call leaves it out. When the inputSchema is not a
    plain object of properties (a root oneOf, say), ``whole_arguments`` names the one
    parameter that receives the whole arguments object, and ``arguments`` is empty.
    """

    name: str
    published: Mapping[str, Mapping[str, Any]]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | bool | None
    handler: Callable[..., Any]
    arguments: Mapping[str, str]
    defaults: Mapping[str, Any]
    whole_arguments: str | None = None


def load_table(
    data: Mapping[str, DispatchRow],
    handlers: Mapping[str, Callable[..., Any]],
    revisions: Iterable[str],
) -> tuple[ToolEntry, ...]:
    """The dispatch table from the generated JSON: one row per tool, in ``data``'s order.

    Each revision's form of a tool is derived from its one stored definition; revisions
    that publish the same form share one dict, and every form shares the definition's
    values (its inputSchema above all), which keeps a large server's memory small.
    """
    chosen = ordered(revisions)
    table = []
    for name, row in data.items():
        definition = row["definition"]
        forms: list[dict[str, Any]] = []
        published: dict[str, dict[str, Any]] = {}
        for revision in chosen:
            form, _ = revision.publish_tool(definition)
            same = next((f for f in forms if f == form), None)
            if same is None:
                forms.append(form)
                same = form
            published[revision.name] = same
        table.append(
            ToolEntry(
                name=name,
                published=published,
                input_schema=definition["inputSchema"],
                output_schema=definition.get("outputSchema"),
                handler=handlers[name],
                arguments=row["arguments"],
                defaults=row["defaults"],
                whole_arguments=row["whole_arguments"],
            )
        )
    return tuple(table)
