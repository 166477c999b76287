"""Load and check every kind of definition the project has, driven by kinds.KINDS: one
path for tools, prompts, resources and any later kind with files of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from mcp_schemagen.diagnostics import Diagnostic, error
from mcp_schemagen.kinds import BY_NAME, Kind, with_files
from mcp_schemagen.load.config import Config
from mcp_schemagen.load.tools import read_definition_files
from mcp_schemagen.source import Source


def read_kind(kind: Kind, config: Config) -> tuple[list[Source], list[Diagnostic], list[Path]]:
    """The definitions in the files of ``kind`` (of it and of kinds sharing its files),
    the problems reading them, and the files read."""
    assert kind.config_key is not None and kind.read is not None
    return read_definition_files(
        config.root,
        config.globs(kind.config_key),
        kind.name,
        kind.read,
        allow_outside=config.allow_outside,
    )


def checked_sources(
    config: Config, on_read: Callable[[str, list[Source]], object] | None = None
) -> tuple[tuple[Source, ...], list[Diagnostic]]:
    """Every definition of the project in the order read (each kind's files in the
    table's order, a file's definitions in its order) and every problem: each kind's
    files read, then checked. ``on_read`` is given each kind's name and definitions as
    read, before they are checked (the build starts work ahead on them meanwhile)."""
    found: list[Source] = []
    problems: list[Diagnostic] = []
    for kind in with_files():
        assert kind.config_key is not None and kind.check is not None
        sources, loaded, files = read_kind(kind, config)
        if on_read is not None:
            on_read(kind.name, sources)
        if kind.required and not files and not loaded:  # a match outside is reported
            globs = ", ".join(config.globs(kind.config_key))
            loaded.append(
                error(
                    str(config.pyproject),
                    f"/tool/mcp-codegen/{kind.config_key}",
                    f"no {kind.name} files match {globs}; add one or fix the globs",
                )
            )
        problems += loaded
        problems += kind.check(sources, config, loaded)
        found += sources
    return tuple(found), problems


def of_kinds(sources: Iterable[Source], *names: str) -> list[Source]:
    """The definitions of the kinds named, in their order (a kind sharing files with
    another, as templates share the resources', stays in file order with it)."""
    assert all(name in BY_NAME for name in names)
    return [source for source in sources if source.kind in names]
