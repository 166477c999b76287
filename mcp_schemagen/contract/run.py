"""`mcp-codegen breaking`: read both sides, compare, apply acknowledgements and decide
whether the command fails; report.py prints the outcome."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from mcp_schemagen.contract import rules, sources
from mcp_schemagen.contract.changes import Category, Change
from mcp_schemagen.contract.settings import (
    DECLARED_ONLY_KEY,
    Acknowledgement,
    failing_categories,
    only_declared_properties,
    read_acknowledgements,
)
from mcp_schemagen.contract.snapshot import Snapshot
from mcp_schemagen.load.config import Config

_DECLARED_ONLY = f"; compatible as {DECLARED_ONLY_KEY} says callers send no other"


@dataclass(frozen=True)
class Outcome:
    against: str
    changes: list[Change]
    acknowledged: dict[Change, Acknowledgement]
    unused: list[Acknowledgement]
    failing_categories: frozenset[Category]
    warnings: list[str]

    @property
    def failing(self) -> list[Change]:
        return [
            c
            for c in self.changes
            if c.category in self.failing_categories and c not in self.acknowledged
        ]


def read_against(config: Config, against: str) -> Snapshot:
    """A saved tools/list when ``against`` names a file, else a git revision."""
    path = Path(against)
    if not path.is_absolute():
        path = Path.cwd() / path
    if path.is_file():
        return sources.read_listing(path)
    return sources.read_revision(config, against)


def breaking(config: Config, against: str) -> Outcome:
    old = read_against(config, against)
    new = sources.read_current(config)
    found = rules.compare(old, new, config.revisions)
    if only_declared_properties(config.root):
        found = [
            replace(c, category=Category.COMPATIBLE, what=c.what + _DECLARED_ONLY)
            if c.undeclared_only
            else c
            for c in found
        ]
    changes = sorted(set(found), key=lambda c: (c.file, c.pointer, c.category.value, c.what))
    acknowledgements = read_acknowledgements(config.root)
    acknowledged: dict[Change, Acknowledgement] = {}
    used: set[int] = set()
    for change in changes:
        for entry in acknowledgements:
            if entry.location == change.location and entry.reference in (None, against):
                acknowledged[change] = entry
                used.add(entry.index)
    unused = [a for a in acknowledgements if a.index not in used]
    return Outcome(
        against, changes, acknowledged, unused, failing_categories(config.root), old.warnings
    )
