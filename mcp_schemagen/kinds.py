"""The kinds of definition a project writes, one row each: where its files are
configured, how a file is read, how it is checked, what marks its handlers and how its
list result names it. load, check, the build record, the handler merge and `breaking`
read these rows instead of naming tools, prompts and resources one by one; a new kind is
a row here plus its own modules (docs/architecture.md, "How to add a kind")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_schemagen.check.by_kind import check_prompts, check_resources, check_tools
from mcp_schemagen.diagnostics import Diagnostic
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.prompts import prompts_in
from mcp_schemagen.load.resources import resources_in
from mcp_schemagen.load.tools import tools_in
from mcp_schemagen.source import Source

# How a parsed file is read into definitions (load/tools.py's definitions_of calls it).
Reader = Callable[[Any, str], tuple[list[Source], list[Diagnostic]]]
# A kind's checks over all its definitions, given what reading its files found.
Checker = Callable[[Sequence[Source], Config, Sequence[Diagnostic]], list[Diagnostic]]


@dataclass(frozen=True)
class Kind:
    name: str  # Source.kind; the singular noun messages use
    # The field of its list result ("tools" of tools/list) and that method; None for a
    # kind no list publishes (completions answer completion/complete).
    list_field: str | None
    listing: str | None
    # The [tool.mcp-codegen] key holding the globs of its files, and how a parsed file is
    # read. None: it has no files of its own (resource templates share the resources'
    # files, read by that row's reader; completions are asked for inside other kinds).
    config_key: str | None
    read: Reader | None
    check: Checker | None
    # The word of its handlers' marker comment, `# mcp-codegen <marker>: "<key>"`.
    marker: str
    # Whether a project must have files of this kind (a server serves at least a tool).
    required: bool = False

    @property
    def marker_prefix(self) -> str:
        return f"# mcp-codegen {self.marker}: "


KINDS: tuple[Kind, ...] = (
    Kind("tool", "tools", "tools/list", "tools", tools_in, check_tools, "tool", required=True),
    Kind("prompt", "prompts", "prompts/list", "prompts", prompts_in, check_prompts, "prompt"),
    Kind(
        "resource",
        "resources",
        "resources/list",
        "resources",
        resources_in,
        check_resources,
        "resource",
    ),
    Kind(
        "resource template",
        "resourceTemplates",
        "resources/templates/list",
        None,
        None,
        None,
        "resource",
    ),
    Kind("completion", None, None, None, None, None, "completion"),
)

BY_NAME = {kind.name: kind for kind in KINDS}


def with_files() -> tuple[Kind, ...]:
    """The kinds read from files of their own, in the order they are loaded and checked."""
    return tuple(kind for kind in KINDS if kind.config_key is not None)


def markers() -> tuple[str, ...]:
    """Every marker word, once each, in table order (a tool's first)."""
    return tuple(dict.fromkeys(kind.marker for kind in KINDS))
