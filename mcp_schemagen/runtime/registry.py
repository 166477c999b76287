"""The dispatch table: one row per tool, in the shape the generator writes and the server reads.

``DispatchRow`` is that shape. The generator builds rows of this type and prints them as
JSON into the package's ``_dispatch.py``; ``load_table`` reads them back into
``ToolEntry`` values at start-up. Both sides import this module, so the shape is typed
once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from .protocol import newest


class DispatchRow(TypedDict):
    """One tool as stored in ``_dispatch.py``.

    ``forms`` holds each distinct published definition once; ``published`` maps each
    protocol revision to the index of its form. ``output_schema`` is present only when the
    newest revision's form cannot carry the tool's outputSchema (a non-object schema for a
    revision that requires an object root); otherwise it is read from that form.
    """

    forms: list[dict[str, Any]]
    published: dict[str, int]
    output_schema: NotRequired[dict[str, Any] | bool | None]
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
    data: Mapping[str, DispatchRow], handlers: Mapping[str, Callable[..., Any]]
) -> tuple[ToolEntry, ...]:
    """The dispatch table from the generated JSON: one row per tool, in ``data``'s order.

    Each tool's published definitions are stored once per distinct form and shared by the
    revisions that publish the same one, which keeps a large server's memory small.
    """
    table = []
    for name, row in data.items():
        forms = row["forms"]
        published = row["published"]
        if "output_schema" in row:
            output_schema = row["output_schema"]
        else:
            output_schema = forms[published[newest(published).name]].get("outputSchema")
        table.append(
            ToolEntry(
                name=name,
                published={revision: forms[index] for revision, index in published.items()},
                # Every revision publishes inputSchema unchanged: read it from any form.
                input_schema=forms[0]["inputSchema"],
                output_schema=output_schema,
                handler=handlers[name],
                arguments=row["arguments"],
                defaults=row["defaults"],
                whole_arguments=row["whole_arguments"],
            )
        )
    return tuple(table)
