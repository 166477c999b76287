"""The dispatch table's row: everything the server needs to know about one tool."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


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
    output_schema: Mapping[str, Any] | None
    handler: Callable[..., Any]
    arguments: Mapping[str, str]
    defaults: Mapping[str, Any]
    whole_arguments: str | None = None


def load_table(
    data: Mapping[str, Mapping[str, Any]], handlers: Mapping[str, Callable[..., Any]]
) -> tuple[ToolEntry, ...]:
    """The dispatch table from the generated JSON: one row per tool, in ``data``'s order.

    Each tool's published definitions are stored once per distinct form and shared by the
    revisions that publish the same one, which keeps a large server's memory small.
    """
    table = []
    for name, row in data.items():
        forms = row["forms"]
        table.append(
            ToolEntry(
                name=name,
                published={revision: forms[index] for revision, index in row["published"].items()},
                # Every revision publishes inputSchema unchanged: read it from any form.
                input_schema=forms[0]["inputSchema"],
                output_schema=row.get(
                    "output_schema",
                    forms[row["published"][max(row["published"])]].get("outputSchema"),
                ),
                handler=handlers[name],
                arguments=row["arguments"],
                defaults=row["defaults"],
                whole_arguments=row["whole_arguments"],
            )
        )
    return tuple(table)
