"""The resource table: one row per static resource or resource template, as the generator
writes it and the server reads it.

``definition`` is the resource as its author wrote it, stored once; each revision's form
is derived at start-up (revisions.publish_resource), the function the build checked it
with. A static resource's content is either ``contents`` (read from the project's file at
build time) or its reader in handlers.py; a template always has a reader, called with the
variables matched from the URI (typed and checked by the template's
``x-mcp-codegen-schema``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from ..core.completion import Completer, completer_key
from ..protocol import ordered
from ..protocol.resources import publish_resource
from ..workers import runs_in_worker
from .uri_template import UriTemplate

# Where a template keeps its variables' JSON Schemas: {"variable": {schema}, ...}.
SCHEMA_KEY = "x-mcp-codegen-schema"
# Where a static resource names the project file holding its content (read at build).
FILE_KEY = "x-mcp-codegen-file"


class ResourceRow(TypedDict):
    """One resource as stored in ``_dispatch.py``: the definition as written, a template's
    variables (JSON name -> the reader's keyword parameter), and a static resource's
    contents when a file gives them."""

    definition: dict[str, Any]
    variables: dict[str, str]
    contents: NotRequired[list[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class ResourceEntry:
    """One static resource or template, ready to serve."""

    key: str  # its uri, or its uriTemplate
    name: str
    published: Mapping[str, Mapping[str, Any]]
    mime_type: str | None
    template: UriTemplate | None
    handler: Callable[..., Any] | None
    contents: tuple[dict[str, Any], ...] | None  # from a file, read at build
    variables: Mapping[str, str]  # JSON name -> Python parameter
    schemas: Mapping[str, Mapping[str, Any]]  # variable -> its JSON Schema
    is_async: bool
    in_worker: bool
    completers: Mapping[str, Completer]  # variable -> its completion handler, if any

    def completions(self, variable: str, prefix: str) -> list[str]:
        """The enum values of ``variable`` that start with ``prefix``, in schema order."""
        values = self.schemas.get(variable, {}).get("enum", [])
        return [v for v in values if isinstance(v, str) and v.startswith(prefix)]


def load_resources(
    data: Iterable[ResourceRow],
    handlers: Mapping[str, Callable[..., Any]],
    revisions: Iterable[str],
    completers: Mapping[str, Callable[..., Any]] | None = None,
) -> tuple[ResourceEntry, ...]:
    """``handlers``: a reader by uri or uriTemplate (none for a resource read from a file);
    ``completers``: completion handlers by ``completer_key("resource", TEMPLATE, VARIABLE)``."""
    completers = completers or {}
    chosen = ordered(revisions)
    table = []
    for row in data:
        definition = row["definition"]
        key = str(definition.get("uriTemplate", definition.get("uri")))
        forms: list[dict[str, Any]] = []
        published: dict[str, dict[str, Any]] = {}
        for revision in chosen:
            form, _ = publish_resource(definition, revision)
            same = next((f for f in forms if f == form), None)
            if same is None:
                forms.append(form)
                same = form
            published[revision.name] = same
        handler = handlers.get(key)
        is_async = handler is not None and inspect.iscoroutinefunction(handler)
        contents = row.get("contents")
        schemas = definition.get(SCHEMA_KEY, {})
        variable_completers = {}
        for variable in row["variables"]:
            completer = completers.get(completer_key("resource", key, variable))
            if completer is not None:
                label = f"resource template {key!r} variable {variable!r}"
                variable_completers[variable] = Completer(
                    completer, label, inspect.iscoroutinefunction(completer)
                )
        table.append(
            ResourceEntry(
                key=key,
                name=str(definition["name"]),
                published=published,
                mime_type=definition.get("mimeType"),
                template=UriTemplate.parse(key) if "uriTemplate" in definition else None,
                handler=handler,
                contents=None if contents is None else tuple(contents),
                variables=row["variables"],
                schemas=schemas if isinstance(schemas, dict) else {},
                is_async=is_async,
                in_worker=handler is not None and runs_in_worker(handler, is_async),
                completers=variable_completers,
            )
        )
    return tuple(table)
