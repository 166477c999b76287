"""What one schema change does to the set of values a schema accepts."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any


class Effect(enum.Enum):
    NARROWS = "narrows"  # some value accepted before is refused now
    WIDENS = "widens"  # some value refused before is accepted now
    UNKNOWN = "unknown"  # cannot be decided: never taken as compatible
    # Narrows only for values under an object key the old schema did not declare (a new
    # property where additionalProperties was open): a caller that sent the key is refused
    # now, so it breaks callers, unless the project says its callers send only declared
    # keys (`breaking-only-declared-properties`, settings.py).
    NARROWS_UNDECLARED = "narrows-undeclared"
    # Undecided in one direction only: an anyOf branch covered, if at all, by a union.
    MAYBE_NARROWS = "maybe-narrows"
    MAYBE_WIDENS = "maybe-widens"
    # A declared property removed: whatever it holds now, it is no longer promised, so a
    # result consumer that reads it breaks even where results narrow (readers.py).
    DROPS_PROPERTY = "drops-property"


@dataclass(frozen=True)
class Difference:
    """One change, at a JSON pointer inside the compared schema."""

    pointer: str
    effects: frozenset[Effect]
    what: str
    # The words already say what the change means to the schema's reader (readers.py).
    told: bool = False


def difference(pointer: str, what: str, *effects: Effect) -> Difference:
    return Difference(pointer, frozenset(effects), what)


def narrows(found: list[Difference]) -> bool:
    """Whether some value valid before may be refused now (or it cannot be told)."""
    return any(d.effects & {Effect.NARROWS, Effect.MAYBE_NARROWS, Effect.UNKNOWN} for d in found)


def widens(found: list[Difference]) -> bool:
    """Whether some value refused before may be valid now (or it cannot be told), or a
    declared property is dropped (a result consumer's promise: readers.py)."""
    widening = {Effect.WIDENS, Effect.MAYBE_WIDENS, Effect.UNKNOWN, Effect.DROPS_PROPERTY}
    return any(d.effects & widening for d in found)


def shown(value: Any) -> str:
    """A JSON value as a change line quotes it, cut short."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def value_key(value: Any) -> str:
    """Equality as JSON Schema's enum and const see it: 1 == 1.0, but true != 1."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, dict):
        return (
            "{"
            + ",".join(f"{json.dumps(k)}:{value_key(v)}" for k, v in sorted(value.items()))
            + "}"
        )
    if isinstance(value, list):
        return "[" + ",".join(value_key(v) for v in value) + "]"
    return json.dumps(value)
