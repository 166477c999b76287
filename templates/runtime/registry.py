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
