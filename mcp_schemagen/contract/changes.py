"""A classified change: where it is, what it does to whom, and how it is printed (the
verdict of a schema difference is the reader's: readers.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from mcp_schemagen.contract.differences import Difference


class Category(enum.Enum):
    BREAKING_CALLERS = "breaking-callers"  # a call that worked is refused now
    BREAKING_RESULTS = "breaking-results"  # a result consumer's assumption no longer holds
    SAFETY = "safety"  # a promise about side effects or access loosened
    COMPATIBLE = "compatible"
    CACHE = "cache"  # the bytes clients list changed: prompt caches and baselines go stale
    UNKNOWN = "unknown"  # cannot be decided; never taken as compatible

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    Category.BREAKING_CALLERS: "breaking (callers)",
    Category.BREAKING_RESULTS: "breaking (result consumers)",
    Category.SAFETY: "safety",
    Category.COMPATIBLE: "compatible",
    Category.CACHE: "cache",
    Category.UNKNOWN: "unknown",
}


@dataclass(frozen=True)
class Change:
    file: str
    pointer: str
    category: Category
    what: str
    # Breaks only callers that sent a key the old schema did not declare (a property added
    # where any other was accepted): compatible under `breaking-only-declared-properties`.
    undeclared_only: bool = field(default=False, compare=False)

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}" if self.pointer else self.file

    def __str__(self) -> str:
        return f"{self.location}: {self.category.label}: {self.what}"


def merged(found: list[Difference]) -> list[Difference]:
    """One difference per pointer: one change, one verdict, the strongest of its effects
    (a const 1 → 2 both refuses 1 and accepts 2)."""
    by_pointer: dict[str, list[Difference]] = {}
    for one in found:
        by_pointer.setdefault(one.pointer, []).append(one)
    return [
        Difference(
            pointer,
            frozenset().union(*(d.effects for d in group)),
            "; ".join(dict.fromkeys(d.what for d in group)),
            any(d.told for d in group),
        )
        for pointer, group in by_pointer.items()
    ]
