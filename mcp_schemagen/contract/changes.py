"""A classified change: where it is, what it does to whom, and how it is printed."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from mcp_schemagen.contract.differences import Difference, Effect


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

    @property
    def location(self) -> str:
        return f"{self.file}#{self.pointer}" if self.pointer else self.file

    def __str__(self) -> str:
        return f"{self.location}: {self.category.label}: {self.what}"


def for_inputs(file: str, found: list[Difference]) -> list[Change]:
    """Changes of a schema values are sent to (arguments): narrowing breaks callers."""
    return [Change(file, d.pointer, _input_category(d), d.what) for d in found]


def for_outputs(file: str, found: list[Difference]) -> list[Change]:
    """Changes of a schema values are received under (results): widening breaks consumers."""
    return [Change(file, d.pointer, _output_category(d), d.what) for d in found]


def _input_category(found: Difference) -> Category:
    if found.effects & {Effect.UNKNOWN, Effect.MAYBE_NARROWS}:
        return Category.UNKNOWN
    if Effect.NARROWS in found.effects:
        return Category.BREAKING_CALLERS
    return Category.COMPATIBLE


def _output_category(found: Difference) -> Category:
    if found.effects & {Effect.UNKNOWN, Effect.MAYBE_WIDENS}:
        return Category.UNKNOWN
    if Effect.WIDENS in found.effects:
        return Category.BREAKING_RESULTS
    return Category.COMPATIBLE
