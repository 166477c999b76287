"""The assertion keywords that stand alone: type, enum/const and the numeric, string and
array bounds. Each answers, for one keyword pair, whether the accepted values narrow or widen."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from mcp_schemagen.contract.differences import Difference, Effect, difference, shown, value_key
from mcp_schemagen.diagnostics import pointer_join

ALL_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})

N, W, U = Effect.NARROWS, Effect.WIDENS, Effect.UNKNOWN


def types_of(schema: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema's `type` admits (integer within number); None when it is
    not a list of known type names."""
    declared = schema.get("type")
    if declared is None:
        return ALL_TYPES
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list) or not all(n in ALL_TYPES for n in names):
        return None
    found = set(names)
    if "number" in found:
        found.add("integer")
    return frozenset(found)


def compare_types(old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
    if old.get("type") == new.get("type"):
        return []
    where = pointer_join(at, "type")
    before, after = types_of(old), types_of(new)
    if before is None or after is None:
        return [difference(where, f"type {shown(old.get('type'))} → {shown(new.get('type'))}", U)]
    # Where enum or const lists the values, only their types are accepted.
    before, after = _value_types(old, before), _value_types(new, after)
    effects = [e for e, lost in ((N, before - after), (W, after - before)) if lost]
    if not effects:
        return []  # ["number", "integer"] and "number" admit the same values
    said = f"type {shown(old.get('type', 'any'))} → {shown(new.get('type', 'any'))}"
    return [difference(where, said, *effects)]


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _value_types(schema: dict[str, Any], declared: frozenset[str]) -> frozenset[str]:
    values = allowed_values(schema)
    if values is None:
        return declared
    return declared & frozenset(json_type(v) for v in values.values())


def allowed_values(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The values enum and const allow, by JSON equality; None when they allow any."""
    allowed: dict[str, Any] | None = None
    if isinstance(schema.get("enum"), list):
        allowed = {value_key(v): v for v in schema["enum"]}
    if "const" in schema:
        const = {value_key(schema["const"]): schema["const"]}
        allowed = const if allowed is None else {k: v for k, v in const.items() if k in allowed}
    return allowed


def compare_values(old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
    before, after = allowed_values(old), allowed_values(new)
    key = "const" if "const" in new or ("const" in old and "enum" not in new) else "enum"
    where = pointer_join(at, key)
    if after is None:
        removed = f"{key} removed: any value of the type accepted"
        return [] if before is None else [difference(where, removed, W)]
    if before is None:
        return [difference(where, f"{key} added: only {shown(list(after.values()))}", N)]
    found = []
    lost = [v for k, v in before.items() if k not in after]
    gained = [v for k, v in after.items() if k not in before]
    if lost:
        found.append(difference(where, f"no longer accepts {shown(lost)}", N))
    if gained:
        found.append(difference(where, f"now also accepts {shown(gained)}", W))
    return found


Bound = tuple[Fraction, bool]  # (limit, exclusive)


def _number(value: Any) -> Fraction | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str, lower: bool) -> Bound | None:
    """The tighter of a schema's inclusive and exclusive bound on one side; a value
    that is not a number raises ValueError."""
    found: list[Bound] = []
    for key, strict in ((inclusive, False), (exclusive, True)):
        if key in schema:
            number = _number(schema[key])
            if number is None:
                raise ValueError(key)
            found.append((number, strict))
    if not found:
        return None
    # Lower bound: the greatest limit, exclusive first on a tie; upper: the least.
    if lower:
        return max(found, key=lambda b: (b[0], b[1]))
    return min(found, key=lambda b: (b[0], not b[1]))


def _integral(bound: Bound | None, lower: bool) -> Bound | None:
    """An integer's bound written inclusive: > 0 and >= 1 allow the same integers."""
    if bound is None:
        return None
    limit, strict = bound
    if lower:
        edge = math.floor(limit) + 1 if strict else math.ceil(limit)
    else:
        edge = math.ceil(limit) - 1 if strict else math.floor(limit)
    return Fraction(edge), False


def _tighter(first: Bound | None, second: Bound | None, lower: bool) -> bool:
    """Whether ``second`` refuses a value ``first`` allows."""
    if second is None:
        return False
    if first is None:
        return True
    if first[0] != second[0]:
        return second[0] > first[0] if lower else second[0] < first[0]
    return second[1] and not first[1]


def _said(schema: dict[str, Any], keys: tuple[str, ...]) -> str:
    present = [f"{k} {shown(schema[k])}" for k in keys if k in schema]
    return ", ".join(present) or "none"


def compare_bound(
    old: dict[str, Any],
    new: dict[str, Any],
    at: str,
    keys: tuple[str, str],
    *,
    lower: bool,
    integers: bool = False,
) -> list[Difference]:
    """One side (lower or upper) of a range: keys are (inclusive, exclusive) keywords;
    length bounds have no exclusive keyword and pass "" for it."""
    present = tuple(k for k in keys if k)
    if all(value_key(old.get(k)) == value_key(new.get(k)) for k in present):
        return []
    where = pointer_join(at, next(k for k in present if k in new or k in old))
    said = f"{_said(old, present)} → {_said(new, present)}"
    try:
        before = _bound(old, keys[0], keys[1], lower)
        after = _bound(new, keys[0], keys[1], lower)
    except ValueError:
        return [difference(where, said, U)]
    if integers:
        before, after = _integral(before, lower), _integral(after, lower)
    effects = [
        e
        for e, hit in ((N, _tighter(before, after, lower)), (W, _tighter(after, before, lower)))
        if hit
    ]
    return [difference(where, said, *effects)] if effects else []


def compare_numbers(
    old: dict[str, Any], new: dict[str, Any], at: str, integers: bool
) -> list[Difference]:
    found = compare_bound(
        old, new, at, ("minimum", "exclusiveMinimum"), lower=True, integers=integers
    )
    found += compare_bound(
        old, new, at, ("maximum", "exclusiveMaximum"), lower=False, integers=integers
    )
    return found + _compare_multiple(old, new, at)


def _compare_multiple(old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
    if value_key(old.get("multipleOf")) == value_key(new.get("multipleOf")):
        return []
    where = pointer_join(at, "multipleOf")
    said = f"multipleOf {shown(old.get('multipleOf'))} → {shown(new.get('multipleOf'))}"
    before, after = _number(old.get("multipleOf")), _number(new.get("multipleOf"))
    if ("multipleOf" in old and not before) or ("multipleOf" in new and not after):
        return [difference(where, said, U)]
    if before is None:
        return [difference(where, said, N)]
    if after is None:
        return [difference(where, said, W)]
    effects = []
    if (before / after).denominator != 1:  # a multiple of the old step is not one of the new
        effects.append(N)
    if (after / before).denominator != 1:
        effects.append(W)
    return [difference(where, said, *effects)] if effects else []


def compare_lengths(
    old: dict[str, Any], new: dict[str, Any], at: str, low: str, high: str
) -> list[Difference]:
    """minLength/maxLength, minItems/maxItems, minProperties/maxProperties: integer bounds."""
    return compare_bound(old, new, at, (low, ""), lower=True) + compare_bound(
        old, new, at, (high, ""), lower=False
    )


def compare_flag(old: dict[str, Any], new: dict[str, Any], at: str, key: str) -> list[Difference]:
    """A keyword that restricts when true (uniqueItems)."""
    before, after = old.get(key, False), new.get(key, False)
    if before == after:
        return []
    if not isinstance(before, bool) or not isinstance(after, bool):
        return [difference(pointer_join(at, key), f"{key} {shown(before)} → {shown(after)}", U)]
    return [difference(pointer_join(at, key), f"{key} {before} → {after}", N if after else W)]


def compare_pattern(old: dict[str, Any], new: dict[str, Any], at: str) -> list[Difference]:
    before, after = old.get("pattern"), new.get("pattern")
    if before == after:
        return []
    where = pointer_join(at, "pattern")
    if before is None:
        return [difference(where, f"pattern {shown(after)} added", N)]
    if after is None:
        return [difference(where, f"pattern {shown(before)} removed", W)]
    # Inclusion of regular languages is decidable only for true regular expressions;
    # ECMA 262 patterns are not, so a changed pattern is never called compatible.
    return [difference(where, f"pattern {shown(before)} → {shown(after)}", U)]
