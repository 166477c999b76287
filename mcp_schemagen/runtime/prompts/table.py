"""The prompt table: one row per prompt, as the generator writes it and the server reads it.

``definition`` is the prompt as its author wrote it, stored once; each revision's form is
derived at start-up by ``Revision.publish_prompt``, the function the build checked it
with. An argument's JSON Schema (its ``x-mcp-codegen-schema``) types and validates the
argument and feeds completion; it is never published.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from ..core.completion import Completer, completer_key
from ..protocol import ordered
from ..workers import runs_in_worker

# Where a prompt argument carries its JSON Schema: PromptArgument has no `_meta` in any
# revision, so an `x-` key, which the build strips from every published form.
SCHEMA_KEY = "x-mcp-codegen-schema"


class PromptRow(TypedDict):
    """One prompt as stored in ``_dispatch.py``: the definition as written, and each
    argument's JSON name -> the handler's keyword parameter."""

    definition: dict[str, Any]
    arguments: dict[str, str]


@dataclass(frozen=True, slots=True)
class PromptEntry:
    """One prompt, ready to serve."""

    name: str
    published: Mapping[str, Mapping[str, Any]]
    handler: Callable[..., Any]
    arguments: Mapping[str, str]  # JSON name -> Python parameter
    required: frozenset[str]
    schemas: Mapping[str, Mapping[str, Any]]  # JSON name -> the argument's JSON Schema
    is_async: bool
    in_worker: bool
    completers: Mapping[str, Completer]  # argument -> its completion handler, if any

    def completions(self, argument: str, prefix: str) -> list[str]:
        """The enum values of ``argument`` that start with ``prefix``, in schema order."""
        values = self.schemas.get(argument, {}).get("enum", [])
        return [v for v in values if isinstance(v, str) and v.startswith(prefix)]


def load_prompts(
    data: Mapping[str, PromptRow],
    handlers: Mapping[str, Callable[..., Any]],
    revisions: Iterable[str],
    completers: Mapping[str, Callable[..., Any]] | None = None,
) -> tuple[PromptEntry, ...]:
    """``completers``: completion handlers by ``completer_key("prompt", NAME, ARGUMENT)``."""
    completers = completers or {}
    chosen = ordered(revisions)
    table = []
    for name, row in data.items():
        definition = row["definition"]
        forms: list[dict[str, Any]] = []
        published: dict[str, dict[str, Any]] = {}
        for revision in chosen:
            form, _ = revision.publish_prompt(definition)
            same = next((f for f in forms if f == form), None)
            if same is None:
                forms.append(form)
                same = form
            published[revision.name] = same
        arguments = [a for a in definition.get("arguments", []) if isinstance(a, dict)]
        handler = handlers[name]
        is_async = inspect.iscoroutinefunction(handler)
        argument_completers = {}
        for argument in arguments:
            completer = completers.get(completer_key("prompt", name, argument["name"]))
            if completer is not None:
                label = f"prompt {name!r} argument {argument['name']!r}"
                argument_completers[argument["name"]] = Completer(
                    completer, label, inspect.iscoroutinefunction(completer)
                )
        table.append(
            PromptEntry(
                name=name,
                published=published,
                handler=handler,
                arguments=row["arguments"],
                required=frozenset(a["name"] for a in arguments if a.get("required") is True),
                schemas={a["name"]: a[SCHEMA_KEY] for a in arguments if SCHEMA_KEY in a},
                is_async=is_async,
                in_worker=runs_in_worker(handler, is_async),
                completers=argument_completers,
            )
        )
    return tuple(table)
