"""The dispatch table: one row per tool, in the shape the generator writes and the server reads.

``DispatchRow`` is that shape. The generator builds rows of this type and prints them as
JSON into the package's ``_dispatch.py``; ``load_table`` reads them back into
``ToolEntry`` values at start-up. Both sides import this module, so the shape is typed
once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from .protocol import Revision, ordered


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

    Each revision's form of a tool is derived from its one stored definition when it is
    first asked for (``PublishedForms``), which keeps a large server's start-up and
    memory small.
    """
    chosen = {revision.name: revision for revision in ordered(revisions)}
    return tuple(
        ToolEntry(
            name=name,
            published=PublishedForms(row["definition"], chosen),
            input_schema=row["definition"]["inputSchema"],
            output_schema=row["definition"].get("outputSchema"),
            handler=handlers[name],
            arguments=row["arguments"],
            defaults=row["defaults"],
            whole_arguments=row["whole_arguments"],
        )
        for name, row in data.items()
    )


class PublishedForms(Mapping[str, Mapping[str, Any]]):
    """A tool as each revision's clients receive it in tools/list, by revision name:
    derived from its one stored definition by the same ``Revision.publish_tool`` the build
    checked it with, on the first request for that revision (a client speaks one, so a
    server need not derive the others at start-up). Revisions that publish the same form
    share one dict, and every form shares the definition's values (its inputSchema above
    all)."""

    __slots__ = ("_definition", "_forms", "_revisions")

    def __init__(self, definition: Mapping[str, Any], revisions: Mapping[str, Revision]) -> None:
        self._definition = definition
        self._revisions = revisions  # one mapping, shared by every tool
        self._forms: dict[str, dict[str, Any]] = {}

    def __getitem__(self, name: str) -> dict[str, Any]:
        form = self._forms.get(name)
        if form is None:
            form, _ = self._revisions[name].publish_tool(self._definition)
            form = next((f for f in self._forms.values() if f == form), form)
            self._forms[name] = form
        return form

    def __contains__(self, name: object) -> bool:
        return name in self._revisions  # without deriving the form

    @property
    def definition(self) -> Mapping[str, Any]:
        """The tool as its author wrote it (what no revision publishes included)."""
        return self._definition

    def __iter__(self) -> Iterator[str]:
        return iter(self._revisions)

    def __len__(self) -> int:
        return len(self._revisions)
